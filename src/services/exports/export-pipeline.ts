import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../../db/client.js';
import { errors } from '../../errors.js';
import { stoppedByWorker, type JobName, type JobSender } from '../../jobs/job-catalog.js';
import { isoMicro } from '../../lib/time.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { artifactFiles, completeExport, failExport, findExportById, markArtifactRemoved, startExport } from './export-repository.js';
import { ARTIFACT_RETRY_AFTER_SECONDS, type ExportKind, type ExportRow } from './export-types.js';

/**
 * The one export pipeline, for both kinds (a book, a user's account):
 *
 *   request (the kind's service records a pending row and queues its job, in one transaction)
 *   → run (a worker takes it under a heartbeat lease: processing; the kind's variant
 *     renders and stores the file; complete, with its expiry job, in one transaction)
 *   → signed download (the kind's service signs a link to the stored file)
 *   → expiry (the file goes when its time is over; the row stays)
 *   → purge (the book's or account's deletion removes the files with the rest).
 *
 * A run that dies half way (its worker was killed) leaves the job processing;
 * the queue runs it again once the lease lapses, and it starts over: the file
 * only appears, whole, when the store has it all. Runs that fail are retried by
 * the queue; the last allowed run records the failure, and a run after it
 * (there only when the last one died) records only that.
 */

/** Why a run stopped, in words a client may see (paths, hosts and stacks stay in the logs). */
export class ExportRunError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'ExportRunError';
  }
}

export interface ExportRun {
  signal: AbortSignal;
  /** 1 on the first run. */
  attempt: number;
  /** Runs allowed in all; the run after the last one (there only when the last died) records the failure. */
  attempts: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

export interface RenderedArtifact {
  key: string;
  bytes: number;
  pageCount: number | null;
  warnings?: string[];
}

/** What differs between the kinds in the background part: what is rendered, how long it is kept, what is announced. */
export interface ExportVariant {
  /** How a failure reads: `rendering` (a book), `writing` (an account's data). */
  work: 'rendering' | 'writing';
  /** How long a finished file is kept. */
  retentionSeconds: number;
  /** The job that removes the file once it is due. */
  expireJob: Extract<JobName, 'export.expire' | 'account.export-expire'>;
  /** Why the export cannot be made any more (its book or account was deleted), or null. */
  gone(job: ExportRow): Promise<string | null>;
  /** Renders the export and stores its file (and any beside it, see artifactFiles); throws ExportRunError with a reason a client may see. */
  render(job: ExportRow, run: ExportRun): Promise<RenderedArtifact>;
  /** Called in the transaction that completes or fails the job (events). */
  finished?(tx: Queryable, job: ExportRow, outcome: 'completed' | 'failed'): Promise<void>;
}

/** 502 storage_unavailable with Retry-After: a link could not be made just now, the file is kept. */
export function storageUnavailable(cause: unknown) {
  return errors.storageUnavailable('A download link could not be made just now; the file is kept. Retry with backoff (1, 2, 4, 8 s, at most 60 s).', null, {
    headers: { 'retry-after': String(ARTIFACT_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/** Seconds a signed link may last: at most `cap`, never past the file's own expiry, at least 1. */
export function linkSeconds(expiresAt: string, now: Date, cap: number): number {
  return Math.max(1, Math.min(cap, Math.floor((new Date(expiresAt).getTime() - now.getTime()) / 1000)));
}

export function createExportPipeline(deps: { db: Db; store: ObjectStore; queue?: JobSender; now?: () => Date; variants: Record<ExportKind, ExportVariant> }) {
  const { db, store, variants } = deps;
  const clock = () => deps.now?.() ?? new Date();

  function needQueue(): JobSender {
    if (!deps.queue) throw new Error('exports need the job queue');
    return deps.queue;
  }

  /** A failure for good is recorded with what the kind announces, in one transaction. */
  function fail(job: ExportRow, error: string) {
    return db.transaction(async (tx) => {
      if ((await failExport(tx, job.id, error)) && variants[job.kind].finished) await variants[job.kind].finished!(tx, job, 'failed');
    });
  }

  function reasonOf(variant: ExportVariant, err: unknown, signal: AbortSignal): string {
    if (err instanceof ExportRunError) return err.reason;
    const work = variant.work === 'rendering' ? 'Rendering' : 'Writing the export';
    if (signal.aborted) return `${work} took longer than allowed.`;
    return `${work} failed unexpectedly.`;
  }

  return {
    /** One run of an export's job (`export.render`, `account.export`): pending → processing → complete, or failed once its runs are spent. */
    async run(exportId: string, o: ExportRun): Promise<void> {
      const log = o.log;
      // In a transaction, as every write to a listed row: its start mark holds the Last-Modified watermark
      // below this row's updated_at even while the UPDATE waits on the row's lock.
      const job = await db.transaction((tx) => startExport(tx, exportId, o.attempt));
      if (!job) return; // finished already, or its book or account was purged
      const variant = variants[job.kind];
      if (o.attempt > o.attempts) {
        // The last run never reported back (its worker died): this run only records that.
        await fail(job, `Export failed after ${o.attempts} attempts: ${variant.work} did not finish (job ${job.id}).`);
        log?.error({ export: job.id, kind: job.kind }, 'export failed for good: its last run never finished');
        return;
      }
      const gone = await variant.gone(job);
      if (gone) {
        await fail(job, gone);
        return;
      }
      let made: RenderedArtifact;
      try {
        made = await variant.render(job, o);
      } catch (err) {
        // Cut off by its worker's shutdown: the queue runs it again uncounted, so even a last run is no failure.
        if (o.attempt < o.attempts || stoppedByWorker(o.signal)) throw err; // the queue retries it
        const runs = o.attempt === 1 ? '1 attempt' : `${o.attempt} attempts`;
        await fail(job, `Export failed after ${runs}: ${reasonOf(variant, err, o.signal)} (job ${job.id})`);
        log?.error({ err, export: job.id, kind: job.kind }, 'export failed for good');
        return;
      }
      const done = await db.transaction(async (tx) => {
        const row = await completeExport(tx, job.id, { key: made.key, bytes: made.bytes, pageCount: made.pageCount, retentionSeconds: variant.retentionSeconds, warnings: made.warnings });
        if (row) {
          await needQueue().send(variant.expireJob, { exportId: job.id }, { tx, startAfterSeconds: variant.retentionSeconds });
          await variant.finished?.(tx, row, 'completed');
        }
        return row;
      });
      if (done) {
        log?.info({ export: job.id, kind: job.kind, format: job.export_format ?? undefined, bytes: made.bytes, pages: made.pageCount ?? undefined }, 'export written');
        return;
      }
      // Its book or account was purged meanwhile (or another run finished first): nothing will ever point at this file.
      const now = await findExportById(db, job.id);
      if (!now || now.artifact_key !== made.key) for (const key of artifactFiles(job, made.key)) await store.delete(key);
    },

    /** An export's expiry job (`export.expire`, `account.export-expire`): the file's time is over; it goes, the row stays. */
    async expire(exportId: string): Promise<void> {
      const job = await findExportById(db, exportId);
      if (!job || job.status !== 'complete' || job.artifact_removed_at || !job.artifact_key) return;
      const left = (new Date(job.expires_at!).getTime() - clock().getTime()) / 1000;
      if (left > 60) {
        // Run early (a clock moved): look again when it is due.
        await needQueue().send(variants[job.kind].expireJob, { exportId }, { startAfterSeconds: Math.ceil(left) });
        return;
      }
      for (const key of artifactFiles(job, job.artifact_key)) await store.delete(key);
      await db.transaction((tx) => markArtifactRemoved(tx, job.id)); // a transaction's start mark covers its updated_at (see run)
    },

    /**
     * A signed link to a stored file, valid `ttlCap` seconds at most and never
     * past the file's expiry; 502 storage_unavailable when it cannot be signed now.
     */
    async signedLink(job: ExportRow, key: string, o: { ttlCap: number; contentType: string; downloadName: string; now: Date; log?: Pick<FastifyBaseLogger, 'warn'> }) {
      try {
        const signed = await store.signedUrl(key, { ttlSeconds: linkSeconds(job.expires_at!, o.now, o.ttlCap), contentType: o.contentType, downloadName: o.downloadName, now: o.now });
        return { url: signed.url, expiresAt: isoMicro(signed.expiresAt) };
      } catch (err) {
        o.log?.warn({ err, export: job.id }, 'could not sign an export URL');
        throw storageUnavailable(err);
      }
    },
  };
}
export type ExportPipeline = ReturnType<typeof createExportPipeline>;
