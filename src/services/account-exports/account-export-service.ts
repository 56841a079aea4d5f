import { pipeline, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import { isoMicro } from '../../lib/time.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { findDeletionState } from '../account/account-repository.js';
import type { RateLimitResult } from '../rate-limit/rate-limiter.js';
import { accountExportChunks } from './account-export-content.js';
import {
  completeAccountExport,
  deleteAccountExportsOf,
  failAccountExport,
  findAccountExport,
  findAccountExportById,
  insertAccountExport,
  lockUserExports,
  markAccountExportExpired,
  secondsUntilNextExport,
  startAccountExport,
} from './account-export-repository.js';
import {
  ACCOUNT_EXPORT_CONTENT_TYPE,
  ACCOUNT_EXPORT_RETENTION_SECONDS,
  ACCOUNT_EXPORT_RETRY_AFTER_SECONDS,
  ACCOUNT_EXPORT_URL_TTL_SECONDS,
  ACCOUNT_EXPORT_WINDOW_SECONDS,
  accountExportKey,
  type AccountExportRow,
} from './account-export-types.js';

/** Objects go to the delete job in batches of this many. */
const DELETE_BATCH = 200;

export interface AccountExportRun {
  signal: AbortSignal;
  /** 1 on the first run. */
  attempt: number;
  /** Runs allowed in all; the run after the last one (there only when the last died) records the failure. */
  attempts: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/** Why a run stopped, in words a client may see (paths, hosts and stacks stay in the logs). */
class ExportRunError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'ExportRunError';
  }
}

function dailyLimit(retryAfterSeconds: number) {
  return new AppError(
    'rate_limited',
    'You can ask for one data export per 24 hours; poll the one you have, or ask again after the time in the Retry-After header.',
    { limit: 1, window_seconds: ACCOUNT_EXPORT_WINDOW_SECONDS, retry_after_seconds: retryAfterSeconds },
    { headers: { 'retry-after': String(retryAfterSeconds) } },
  );
}

function storageUnavailable(cause: unknown) {
  return new AppError('storage_unavailable', 'A download link could not be made just now; the file is kept. Retry with backoff (1, 2, 4, 8 s, at most 60 s).', null, {
    headers: { 'retry-after': String(ACCOUNT_EXPORT_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/**
 * GDPR data exports of a user's own account: one request per 24 hours, the
 * file written in the background (`account.export`) as gzip-compressed JSON,
 * streamed page by page into the store, kept 30 days (`account.export-expire`).
 */
export function createAccountExportService(deps: { db: Db; store: ObjectStore; queue?: JobSender; log?: Pick<FastifyBaseLogger, 'warn'>; now?: () => Date }) {
  const { db, store } = deps;
  const clock = () => deps.now?.() ?? new Date();

  function needQueue(): JobSender {
    if (!deps.queue) throw new Error('account exports need the job queue');
    return deps.queue;
  }

  /** 429 while an export of the last 24 hours stands; holds the user's export lock to the end of the transaction. */
  async function mustBeAllowed(q: Queryable, userId: string) {
    await lockUserExports(q, userId);
    const wait = await secondsUntilNextExport(q, userId, ACCOUNT_EXPORT_WINDOW_SECONDS);
    if (wait !== null) throw dailyLimit(wait);
  }

  /** The job as the poll shows it: a complete one past its 30 days reads as expired even before the file is removed. */
  function view(row: AccountExportRow, now: Date) {
    const expired = row.status === 'expired' || (row.status === 'complete' && new Date(row.expires_at!).getTime() <= now.getTime());
    return {
      id: row.id,
      status: expired ? ('expired' as const) : row.status,
      created_at: row.created_at,
      started_at: row.started_at,
      completed_at: row.completed_at,
      expires_at: row.status === 'complete' || row.status === 'expired' ? row.expires_at : null,
      size_bytes: row.status === 'complete' && !expired ? row.size_bytes : null,
      error: row.error,
      download_url: null as string | null,
      url_expires_at: null as string | null,
    };
  }

  /** Writes the document through gzip into the store; never the whole of it in memory. */
  async function write(userId: string, key: string, signal: AbortSignal): Promise<number> {
    const chunks = accountExportChunks(db, userId, isoMicro(clock()));
    let readFailure: unknown;
    const source = Readable.from(
      (async function* () {
        try {
          for await (const chunk of chunks) yield Buffer.from(chunk, 'utf8');
        } catch (err) {
          readFailure = err;
          throw err;
        }
      })(),
    );
    // An error on either side tears both down (the callback only keeps pipeline from throwing):
    // the store's put rejects and leaves nothing behind.
    const gzipped = pipeline(source, createGzip(), () => {});
    try {
      const { sizeBytes } = await store.put(key, gzipped, { contentType: ACCOUNT_EXPORT_CONTENT_TYPE, signal });
      return sizeBytes;
    } catch (err) {
      if (signal.aborted) throw err;
      if (readFailure) throw new ExportRunError('Your data could not be read.', { cause: readFailure });
      throw new ExportRunError('The file could not be saved to storage.', { cause: err });
    }
  }

  function reasonOf(err: unknown, signal: AbortSignal): string {
    if (err instanceof ExportRunError) return err.reason;
    if (signal.aborted) return 'Writing the export took longer than allowed, or its worker stopped.';
    return 'Writing the export failed unexpectedly.';
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
      const wait = await secondsUntilNextExport(db, actor.id, ACCOUNT_EXPORT_WINDOW_SECONDS);
      return wait === null ? { allowed: true, retryAfterSeconds: 0, remaining: 0 } : { allowed: false, retryAfterSeconds: wait, remaining: 0 };
    },

    /** Records a pending export and queues it, in one transaction; 429 rate_limited within 24 hours of the last one. */
    async requestExport(tx: Tx, actor: { id: string }) {
      await mustBeAllowed(tx, actor.id);
      const row = await insertAccountExport(tx, uuidv7(), actor.id);
      await needQueue().send('account.export', { exportId: row.id }, { tx });
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
      const left = Math.floor((new Date(row.expires_at!).getTime() - now.getTime()) / 1000);
      try {
        const signed = await store.signedUrl(row.object_key!, {
          ttlSeconds: Math.max(1, Math.min(ACCOUNT_EXPORT_URL_TTL_SECONDS, left)),
          contentType: ACCOUNT_EXPORT_CONTENT_TYPE,
          downloadName: `memorybook-account-export-${row.created_at.slice(0, 10)}.json.gz`,
          now,
        });
        return { ...shown, download_url: signed.url, url_expires_at: isoMicro(signed.expiresAt) };
      } catch (err) {
        deps.log?.warn({ err, export: row.id }, 'could not sign an account export URL');
        throw storageUnavailable(err);
      }
    },

    /** One run of the `account.export` job: pending → processing → complete, or failed once its runs are spent. */
    async run(exportId: string, o: AccountExportRun): Promise<void> {
      const job = await startAccountExport(db, exportId, o.attempt);
      if (!job) return; // finished already, or its account was purged
      if (o.attempt > o.attempts) {
        // The last run never reported back (its worker died): this run only records that.
        await failAccountExport(db, job.id, `Export failed after ${o.attempts} attempts: writing did not finish (job ${job.id}).`);
        o.log?.error({ export: job.id }, 'account export failed for good: its last run never finished');
        return;
      }
      const user = await findDeletionState(db, job.user_id);
      if (!user || user.deleted_at) {
        await failAccountExport(db, job.id, 'The account was deleted before the export was written.');
        return;
      }
      const key = accountExportKey(job.user_id, job.id);
      let bytes: number;
      try {
        bytes = await write(job.user_id, key, o.signal);
      } catch (err) {
        if (o.attempt < o.attempts) throw err; // the queue retries it
        const runs = o.attempt === 1 ? '1 attempt' : `${o.attempt} attempts`;
        await failAccountExport(db, job.id, `Export failed after ${runs}: ${reasonOf(err, o.signal)} (job ${job.id})`);
        o.log?.error({ err, export: job.id }, 'account export failed for good');
        return;
      }
      const done = await db.transaction(async (tx) => {
        const row = await completeAccountExport(tx, job.id, { key, bytes, retentionSeconds: ACCOUNT_EXPORT_RETENTION_SECONDS });
        if (row) await needQueue().send('account.export-expire', { exportId: job.id }, { tx, startAfterSeconds: ACCOUNT_EXPORT_RETENTION_SECONDS });
        return row;
      });
      if (done) {
        o.log?.info({ export: job.id, bytes }, 'account export written');
        return;
      }
      // The account was purged meanwhile (or another run finished first): nothing will ever point at this file.
      const now = await findAccountExportById(db, job.id);
      if (!now || now.object_key !== key) await store.delete(key);
    },

    /** The `account.export-expire` job: the file's 30 days are over; it goes, the row stays as expired. */
    async expire(exportId: string): Promise<void> {
      const row = await findAccountExportById(db, exportId);
      if (!row || row.status !== 'complete' || !row.object_key) return;
      const left = (new Date(row.expires_at!).getTime() - clock().getTime()) / 1000;
      if (left > 60) {
        // Run early (a clock moved): look again when it is due.
        await needQueue().send('account.export-expire', { exportId }, { startAfterSeconds: Math.ceil(left) });
        return;
      }
      await store.delete(row.object_key);
      await markAccountExportExpired(db, row.id);
    },

    /** For an account being purged (in its transaction): its export rows go, and their files are queued for removal. */
    async releaseUserExports(q: Queryable, userId: string): Promise<void> {
      const keys = await deleteAccountExportsOf(q, userId);
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        await needQueue().send('storage.delete-objects', { keys: keys.slice(i, i + DELETE_BATCH) }, { tx: q });
      }
    },
  };
}
export type AccountExportService = ReturnType<typeof createAccountExportService>;
