import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { RateLimitResult } from '../rate-limit/rate-limiter.js';
import type { ExportPipeline } from './export-pipeline.js';
import { deleteAccountExportsOf, findAccountExport, insertAccountExport, lockAccountExports, secondsUntilNextAccountExport } from './export-repository.js';
import {
  ACCOUNT_EXPORT_CONTENT_TYPE,
  ACCOUNT_EXPORT_URL_TTL_SECONDS,
  ACCOUNT_EXPORT_WINDOW_SECONDS,
  type AccountExportRow,
  type AccountExportStatus,
} from './export-types.js';

/** Objects go to the delete job in batches of this many. */
const DELETE_BATCH = 200;

function dailyLimit(retryAfterSeconds: number) {
  return errors.rateLimited(
    retryAfterSeconds,
    { limit: 1, window_seconds: ACCOUNT_EXPORT_WINDOW_SECONDS, retry_after_seconds: retryAfterSeconds },
    {
      message: 'You can ask for one data export per 24 hours; poll the one you have, or ask again after the time in the Retry-After header.',
      headers: { 'retry-after': String(retryAfterSeconds) },
    },
  );
}

/**
 * GDPR data exports of a user's own account, the account kind of the export
 * pipeline: who may ask (the user, for themselves), the cap (one request per
 * 24 hours), and the poll with its download link. The file is written in the
 * background (`account.export`, see account-export-variant.ts) and kept 30 days.
 */
export function createAccountExportService(deps: { db: Db; pipeline: ExportPipeline; queue: JobSender; log?: Pick<FastifyBaseLogger, 'warn'>; now: () => Date }) {
  const { db, pipeline } = deps;
  const clock = () => deps.now();


  /** 429 while an export of the last 24 hours stands; holds the user's export lock to the end of the transaction. */
  async function mustBeAllowed(q: Queryable, userId: string) {
    await lockAccountExports(q, userId);
    const wait = await secondsUntilNextAccountExport(q, userId, ACCOUNT_EXPORT_WINDOW_SECONDS);
    if (wait !== null) throw dailyLimit(wait);
  }

  /** The job as the poll shows it: a complete one whose file is gone, or past its 30 days, reads as expired. */
  function view(row: AccountExportRow, now: Date) {
    const complete = row.status === 'complete';
    const expired = complete && (row.artifact_removed_at !== null || new Date(row.expires_at!).getTime() <= now.getTime());
    return {
      id: row.id,
      status: (expired ? 'expired' : row.status) as AccountExportStatus,
      created_at: row.created_at,
      started_at: row.started_at,
      completed_at: row.completed_at,
      expires_at: complete ? row.expires_at : null,
      size_bytes: complete && !expired ? row.artifact_bytes : null,
      error: row.error,
      download_url: null as string | null,
      url_expires_at: null as string | null,
    };
  }

  return {
    /**
     * The daily limit, read for the route's rate limit (answered before the
     * request's transaction and schema validation, the contract's order; a
     * replay is answered before it). Only existing exports count, so a
     * refused request never uses the day's export; `requestExport` checks
     * again under the user's lock, where it writes.
     */
    async exportAllowance(actor: { id: string }): Promise<RateLimitResult> {
      const wait = await secondsUntilNextAccountExport(db, actor.id, ACCOUNT_EXPORT_WINDOW_SECONDS);
      return wait === null ? { allowed: true, retryAfterSeconds: 0, remaining: 0 } : { allowed: false, retryAfterSeconds: wait, remaining: 0 };
    },

    /** Records a pending export and queues it, in one transaction; 429 rate_limited within 24 hours of the last one. */
    async requestExport(tx: Tx, actor: { id: string }) {
      await mustBeAllowed(tx, actor.id);
      const row = await insertAccountExport(tx, uuidv7(), actor.id);
      await deps.queue.send('account.export', { exportId: row.id }, { tx });
      return { id: row.id, status: row.status, created_at: row.created_at };
    },

    /**
     * The caller's own export (anyone else's, or an id not shaped like ours:
     * 404). Once complete, a download link valid 60 minutes (never past the
     * file's 30 days) is minted on every poll; 502 storage_unavailable
     * (Retry-After) when it cannot be signed just now.
     */
    async getExport(actor: { id: string }, id: string) {
      if (!isUuid(id)) throw errors.notFound('export');
      const row = await findAccountExport(db, actor.id, id);
      if (!row) throw errors.notFound('export');
      const now = clock();
      const shown = view(row, now);
      if (shown.status !== 'complete') return shown;
      // Every format (1 without the originals, 2 with them inline) is the same gzip-compressed JSON file.
      const link = await pipeline.signedLink(row, row.artifact_key!, {
        ttlCap: ACCOUNT_EXPORT_URL_TTL_SECONDS,
        contentType: ACCOUNT_EXPORT_CONTENT_TYPE,
        downloadName: `memorybook-account-export-${row.created_at.slice(0, 10)}.json.gz`,
        now,
        log: deps.log,
      });
      return { ...shown, download_url: link.url, url_expires_at: link.expiresAt };
    },

    /** For an account being purged (in its transaction): its export rows go, and their files are queued for removal. */
    async releaseUserExports(q: Tx, userId: string): Promise<void> {
      const keys = await deleteAccountExportsOf(q, userId);
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        await deps.queue.send('storage.delete-objects', { keys: keys.slice(i, i + DELETE_BATCH) }, { tx: q });
      }
    },
  };
}
export type AccountExportService = ReturnType<typeof createAccountExportService>;
