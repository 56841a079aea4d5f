import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { paginate, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import type { BookContext } from '../books/book-types.js';
import { THEMES } from '../books/book-types.js';
import { toExportJob } from './export-mapper.js';
import { storageUnavailable, type ExportPipeline } from './export-pipeline.js';
import { artifactKeysOfBook, countUnfinished, EXPORT_ORDERINGS, findBookExport, findPendingTwin, insertBookExport, selectExportsOfBook } from './export-repository.js';
import {
  ARTIFACT_URL_TTL_SECONDS,
  coverKeyBeside,
  DEFAULT_FORMAT,
  DEFAULT_INTENT,
  EXPORT_LIMIT_RETRY_AFTER_SECONDS,
  FORMAT_FEATURES,
  FORMAT_FILES,
  hasCoverWrap,
  INTENTS,
  type ExportFormat,
  type ExportIntent,
  type BookExportRow,
  type ExportRequest,
  UNFINISHED_EXPORTS_PER_BOOK,
  UNFINISHED_EXPORTS_PER_USER,
} from './export-types.js';

/** Objects go to the delete job in batches of this many. */
const DELETE_BATCH = 200;

/** An export job of this book named in a path; any other id is simply not found. */
function exportOf(id: string) {
  return async (ctx: BookContext, q: Queryable) => {
    if (!isUuid(id)) throw errors.notFound('export');
    const row = await findBookExport(q, ctx.book.id, id);
    if (!row) throw errors.notFound('export');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

function tooManyUnfinished(scope: 'book' | 'user', limit: number) {
  const whose = scope === 'book' ? 'This book has' : 'You have';
  return errors.rateLimited(
    EXPORT_LIMIT_RETRY_AFTER_SECONDS,
    { scope, limit, retry_after_seconds: EXPORT_LIMIT_RETRY_AFTER_SECONDS },
    {
      message: `${whose} ${limit} exports waiting or rendering already; ask again once one of them has finished (see Retry-After).`,
      headers: { 'retry-after': String(EXPORT_LIMIT_RETRY_AFTER_SECONDS), 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0' },
    },
  );
}

/**
 * Exports of a book, the book kind of the export pipeline: who may ask
 * (owner or admin), the caps and fair order, the jobs' state, and signed
 * links to the finished files. Rendering runs in the background (see
 * book-export-variant.ts); a request only records the job and queues it, in
 * one transaction.
 */
export function createExportService(deps: {
  db: Db;
  access: BookAccess;
  store: ObjectStore;
  pipeline: ExportPipeline;
  cursors: CursorCodec;
  queue: JobSender;
  log?: Pick<FastifyBaseLogger, 'warn'>;
}) {
  const { db, access, store, cursors, pipeline } = deps;


  return {
    /**
     * Owner or admin, also during a grace period. The format needs its plan
     * feature and the theme must be one of the eleven (both 400
     * validation_failed). An identical request while one is still pending
     * answers that job instead of rendering the book twice.
     *
     * At most 4 unfinished exports per book and 10 per requesting user
     * (429 rate_limited). Renders are shared fairly between users: a job's
     * priority is minus the number of that user's exports ahead of it, so the
     * worker takes every user's first export before anyone's second, and one
     * user's queue delays another's export by at most the render under way.
     */
    async requestExport(tx: Tx, actor: Actor, slug: string, body: ExportRequest) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'export', { tx, lock: 'update' });
      const format = (body.export_format ?? DEFAULT_FORMAT) as ExportFormat;
      const intent = (body.intent ?? DEFAULT_INTENT) as ExportIntent;
      const feature = FORMAT_FEATURES[format];
      // The plan gate first (the contract's order: plan gates, then the route's own rules).
      if (ctx.planFeatures[feature] !== true) {
        throw errors.validation(`The book's plan (${ctx.book.plan_slug}) does not include ${feature}, which ${format} exports need.`, {
          field: 'export_format',
          export_format: format,
          feature,
          plan: ctx.book.plan_slug,
        });
      }
      if (!(THEMES as readonly string[]).includes(body.theme)) {
        throw errors.validation(`Unknown theme "${body.theme}".`, { field: 'theme', offered: [...THEMES] });
      }
      const twin = await findPendingTwin(tx, ctx.book.id, { theme: body.theme, intent, format });
      if (twin) return toExportJob(twin);
      const unfinished = await countUnfinished(tx, ctx.book.id, actor.id);
      if (unfinished.book >= UNFINISHED_EXPORTS_PER_BOOK) throw tooManyUnfinished('book', UNFINISHED_EXPORTS_PER_BOOK);
      if (unfinished.user >= UNFINISHED_EXPORTS_PER_USER) throw tooManyUnfinished('user', UNFINISHED_EXPORTS_PER_USER);
      const { bleedMm, gutterMm } = INTENTS[intent];
      const row = await insertBookExport(tx, { id: uuidv7(), bookId: ctx.book.id, requestedBy: actor.id, theme: body.theme, intent, format, bleedMm, gutterMm });
      await deps.queue.send('export.render', { exportId: row.id }, { tx, priority: -unfinished.user });
      return toExportJob(row);
    },

    async getExport(actor: Actor, slug: string, id: string) {
      const { target } = await access.requireBookAccess(actor, slug, 'read_exports', { target: exportOf(id) });
      return toExportJob(target);
    },

    /** A book's exports, newest first (oldest change first with updated_since), on the shared list path. */
    async listExports(actor: Actor, slug: string, query: ListQuery) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'read_exports');
      const { page, watermark } = await paginate<BookExportRow & Record<string, unknown>>(db, cursors, query, {
        list: `exports:${ctx.book.id}`,
        ordering: { name: 'created', keys: EXPORT_ORDERINGS.created },
        sync: EXPORT_ORDERINGS.sync,
        where: [`e.book_id = $1`],
        params: [ctx.book.id],
        select: (o) => selectExportsOfBook(db, o) as Promise<(BookExportRow & Record<string, unknown>)[]>,
      });
      return { page: { ...page, items: page.items.map(toExportJob) }, watermark };
    },

    /**
     * A signed link to the finished file, valid 15 minutes (never past the
     * file's own retention). 409 export_not_ready while it renders; 410
     * export_failed when rendering failed, the file's 7 days are over or the
     * file is gone; 502 storage_unavailable (Retry-After) when the store
     * cannot be asked or the link cannot be signed just now: the file is kept.
     */
    async getArtifact(actor: Actor, slug: string, id: string, now = new Date()) {
      const { target: job } = await access.requireBookAccess(actor, slug, 'read_exports', { target: exportOf(id) });
      if (job.status === 'pending' || job.status === 'processing') {
        throw errors.exportNotReady('The export is still being rendered; poll the job until its status is complete.', { status: job.status });
      }
      if (job.status === 'failed') {
        throw errors.exportFailed(job.error ?? 'The export failed.', { status: job.status, reason: 'failed', error: job.error });
      }
      const expiresAt = new Date(job.expires_at!);
      if (job.artifact_removed_at || expiresAt.getTime() <= now.getTime()) {
        throw errors.exportFailed('The export has expired: files are kept 7 days. Request a new export.', {
          status: job.status,
          reason: 'expired',
          expired_at: job.expires_at,
        });
      }
      let found: Awaited<ReturnType<ObjectStore['head']>>;
      try {
        found = await store.head(job.artifact_key!);
      } catch (err) {
        deps.log?.warn({ err, export: job.id }, 'could not look up an export artifact');
        throw storageUnavailable(err);
      }
      if (!found) {
        throw errors.exportFailed("The export's file is gone. Request a new export.", { status: job.status, reason: 'missing' });
      }
      const link = (key: string, contentType: string, name: string) =>
        pipeline.signedLink(job, key, { ttlCap: ARTIFACT_URL_TTL_SECONDS, contentType, downloadName: name, now, log: deps.log });
      const signed = await link(job.artifact_key!, FORMAT_FILES[job.export_format].contentType, downloadName(job));
      // A shop PDF's cover wrap, signed alike (null for everything else, and for a file rendered before covers were made).
      const coverKey = hasCoverWrap(job) ? coverKeyBeside(job.artifact_key!) : null;
      let hasCover = false;
      try {
        hasCover = coverKey !== null && Boolean(await store.head(coverKey));
      } catch (err) {
        deps.log?.warn({ err, export: job.id }, 'could not look up an export cover');
        throw storageUnavailable(err);
      }
      const cover = hasCover ? await link(coverKey!, 'application/pdf', downloadName(job).replace(/\.pdf$/, '-cover.pdf')) : null;
      return { download_url: signed.url, cover_download_url: cover?.url ?? null, expires_at: signed.expiresAt };
    },

    /** For a book being purged (in its transaction): queues removal of its export files. */
    async releaseBookFiles(q: Tx, bookId: string): Promise<void> {
      const keys = await artifactKeysOfBook(q, bookId);
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        await deps.queue.send('storage.delete-objects', { keys: keys.slice(i, i + DELETE_BATCH) }, { tx: q });
      }
    },
  };
}
export type ExportService = ReturnType<typeof createExportService>;

/** The file name a browser saves the artifact as: `<slug>-<theme>-<intent>.pdf`, `<slug>.json`, `<slug>.zip`. */
function downloadName(job: BookExportRow): string {
  const ext = FORMAT_FILES[job.export_format].file.split('.').pop();
  return job.export_format === 'pdf' ? `${job.book_slug}-${job.theme}-${job.intent}.${ext}` : `${job.book_slug}.${ext}`;
}
