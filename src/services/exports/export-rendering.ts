import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { jsonExportChunks } from '../../exports/json-export.js';
import type { PdfMemory } from '../../exports/pdf/pdf-book.js';
import { signatureOf } from '../../lib/contributor.js';
import { isoMicro } from '../../lib/time.js';
import { ObjectNotFoundError, type ObjectStore } from '../../storage/object-store.js';
import {
  approvedSubmissionIds,
  firstPhotoKey,
  isReleasable,
  namedCoverPhotoKey,
  readExportBook,
  readExportSubmissions,
  type ExportBook,
  type ExportSubmission,
} from './export-content.js';
import { recordExportEvent } from '../events/event-objects.js';
import { completeExport, failExport, findExportById, markArtifactRemoved, startExport } from './export-repository.js';
import { issuePlayLink } from './play-links.js';
import { ARTIFACT_RETENTION_SECONDS, coverKeyBeside, coverObjectKey, DEFAULT_PAPER_CALIPER_UM, exportObjectKey, FORMAT_FILES, hasCoverWrap, type ExportRow } from './export-types.js';

/** Why a render stopped, in words a client may see (paths, hosts and stacks stay in the logs). */
class RenderError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'RenderError';
  }
}

export interface RenderRun {
  signal: AbortSignal;
  /** 1 on the first run. */
  attempt: number;
  /** Renders allowed in all; the run after the last one (there only when the last died) records the failure. */
  attempts: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/**
 * Rendering of exports, run by the `export.render` job: pending →
 * processing (when a worker takes it) → complete, or failed with a reason
 * once its renders are spent. A run that dies half way (the worker was
 * killed) leaves the job processing; the queue runs it again once the lease
 * lapses, and it starts over: the artifact only appears, whole, when the
 * store has it all. Finished files are kept 7 days (`export.expire`).
 */
export function createExportRendering(deps: {
  db: Db;
  store: ObjectStore;
  queue?: JobSender;
  now?: () => Date;
  /** Thickness of one page of the printed book (µm): the spine of a cover wrap is the page count times it. */
  paperCaliperUm?: number;
  /** The service's public address: printed recordings link to its /play/ pages. */
  publicUrl?: string;
}) {
  const { db, store } = deps;
  // A failure for good is recorded with its event, in one transaction.
  const failed = (id: string, error: string) => db.transaction(async (tx) => (await failExport(tx, id, error)) && recordExportEvent(tx, 'export.failed', id));

  function needQueue(): JobSender {
    if (!deps.queue) throw new Error('exports need the job queue');
    return deps.queue;
  }

  async function renderPdf(job: ExportRow, book: ExportBook, key: string, signal: AbortSignal, log: RenderRun['log']) {
    const ids = await approvedSubmissionIds(db, book.id);
    const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-export-'));
    try {
      const file = path.join(dir, FORMAT_FILES.pdf.file);
      // Loaded with the first PDF (PDFKit, its fonts and sharp are heavy to load at start).
      const { renderPdfBook, MIN_PRINT_PPI } = await import('../../exports/pdf/pdf-book.js');
      const openPicture = async (pictureKey: string) => {
        try {
          return await store.localCopy(pictureKey, { signal });
        } catch (err) {
          if (err instanceof ObjectNotFoundError || signal.aborted) throw err;
          throw new RenderError('A photo could not be read from storage.', { cause: err });
        }
      };
      // The cover photo: the one the owner names, else the first pinned memory's (the book's first photo).
      const coverPicture = (await namedCoverPhotoKey(db, book.id, book.settings)) ?? (await firstPhotoKey(db, book.id));
      const result = await renderPdfBook({
        title: book.title,
        subtitle: book.subtitle,
        theme: job.theme,
        bleedMm: job.bleed_mm,
        gutterMm: job.gutter_mm,
        memoryCount: ids.length,
        memories: pdfMemories(readExportSubmissions(db, book.id, ids), db, deps.publicUrl ? `${deps.publicUrl}/play/` : null),
        openPicture,
        isMissing: (err) => err instanceof ObjectNotFoundError,
        onPictureSkipped: (pictureKey, why) => log?.warn({ export: job.id, key: pictureKey, why }, 'picture left out of the export'),
        output: createWriteStream(file, { mode: 0o600 }),
        signal,
        now: deps.now?.(),
        printReady: hasCoverWrap(job),
        coverPicture,
      });
      if (hasCoverWrap(job)) {
        // The cover wrap goes to the store first: the job completes only once both files are there.
        const coverFile = path.join(dir, 'cover.pdf');
        const photoKey = result.coverPictureKey;
        let photo: { path: string; release(): Promise<void> } | null = null;
        if (photoKey) {
          try {
            photo = await openPicture(photoKey);
          } catch (err) {
            if (!(err instanceof ObjectNotFoundError)) throw err;
            log?.warn({ export: job.id, key: photoKey }, 'cover photo gone from the store: a typographic cover instead');
          }
        }
        try {
          const { renderCoverWrap } = await import('../../exports/pdf/cover-wrap.js');
          await renderCoverWrap({
            title: book.title,
            subtitle: book.subtitle,
            theme: job.theme,
            bleedMm: job.bleed_mm,
            pageCount: result.pageCount,
            caliperMm: (deps.paperCaliperUm ?? DEFAULT_PAPER_CALIPER_UM) / 1000,
            memoryCount: result.memories,
            photo,
            back: result.back,
            output: createWriteStream(coverFile, { mode: 0o600 }),
            now: deps.now?.(),
          });
        } finally {
          await photo?.release();
        }
        await putArtifact(coverObjectKey(book.id, job.id), createReadStream(coverFile), 'pdf', signal);
      }
      const { size } = await stat(file);
      await putArtifact(key, createReadStream(file), 'pdf', signal);
      // How many photos print soft, and how soft (the log names them).
      const warnings = result.lowResolution.length
        ? [
            `${result.lowResolution.length === 1 ? '1 photo prints' : `${result.lowResolution.length} photos print`} below ${MIN_PRINT_PPI} ppi at its size in the book (lowest ${Math.min(...result.lowResolution.map((r) => r.ppi))} ppi); a larger original prints sharper.`,
          ]
        : [];
      if (warnings.length) log?.warn({ export: job.id, lowResolution: result.lowResolution }, 'photos below print resolution');
      return { bytes: size, pageCount: result.pageCount, warnings };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function putArtifact(key: string, body: Readable, format: ExportRow['export_format'], signal: AbortSignal) {
    try {
      return await store.put(key, body, { contentType: FORMAT_FILES[format].contentType, signal });
    } catch (err) {
      if (signal.aborted || err instanceof RenderError) throw err;
      throw new RenderError('The finished file could not be saved to storage.', { cause: err });
    }
  }

  async function render(
    job: ExportRow,
    book: ExportBook,
    signal: AbortSignal,
    log: RenderRun['log'],
  ): Promise<{ key: string; bytes: number; pageCount: number | null; warnings?: string[] }> {
    const key = exportObjectKey(book.id, job.id, job.export_format);
    const exportedAt = isoMicro(deps.now?.() ?? new Date());
    if (job.export_format === 'pdf') return { key, ...(await renderPdf(job, book, key, signal, log)) };
    const ids = await approvedSubmissionIds(db, book.id);
    if (job.export_format === 'json') {
      const body = Readable.from(jsonExportChunks({ book, exportedAt, submissions: readExportSubmissions(db, book.id, ids) }));
      const { sizeBytes } = await putArtifact(key, body, 'json', signal);
      return { key, bytes: sizeBytes, pageCount: null };
    }
    const { writeZipExport } = await import('../../exports/zip-export.js');
    const zipped = await writeZipExport(
      {
        book,
        exportedAt,
        walk: () => readExportSubmissions(db, book.id, ids),
        openMedia: async (mediaKey) => {
          try {
            return await store.get(mediaKey);
          } catch (err) {
            if (err instanceof ObjectNotFoundError) throw err;
            throw new RenderError('A media file could not be read from storage.', { cause: err });
          }
        },
        isMissing: (err) => err instanceof ObjectNotFoundError,
        isReleasable,
      },
      (archive) => putArtifact(key, archive, 'zip', signal),
    );
    if (zipped.missing) log?.warn({ export: job.id, missing: zipped.missing }, 'media files gone from the store were left out of the export');
    return { key, bytes: zipped.sink.sizeBytes, pageCount: null };
  }

  function reasonOf(err: unknown, signal: AbortSignal): string {
    if (err instanceof RenderError) return err.reason;
    if (signal.aborted) return 'Rendering took longer than allowed, or its worker stopped.';
    return 'Rendering failed unexpectedly.';
  }

  return {
    /** One run of the job. */
    async run(exportId: string, o: RenderRun): Promise<void> {
      const log = o.log;
      const job = await startExport(db, exportId, o.attempt);
      if (!job) return; // finished already, or its book was purged
      const lastRender = o.attempt >= o.attempts;
      if (o.attempt > o.attempts) {
        // The last render never reported back (its worker died): this run only records that.
        await failed(job.id, `Export failed after ${o.attempts} attempts: rendering did not finish (job ${job.id}).`);
        log?.error({ export: job.id }, 'export failed for good: its last render never finished');
        return;
      }
      const book = await readExportBook(db, job.book_id);
      if (!book) {
        await failed(job.id, 'The book was deleted before the export was rendered.');
        return;
      }
      let made: Awaited<ReturnType<typeof render>>;
      try {
        made = await render(job, book, o.signal, log);
      } catch (err) {
        if (!lastRender) throw err; // the queue retries it
        const attempts = o.attempt === 1 ? '1 attempt' : `${o.attempt} attempts`;
        await failed(job.id, `Export failed after ${attempts}: ${reasonOf(err, o.signal)} (job ${job.id})`);
        log?.error({ err, export: job.id }, 'export failed for good');
        return;
      }
      const done = await db.transaction(async (tx) => {
        const row = await completeExport(tx, job.id, {
          key: made.key,
          bytes: made.bytes,
          pageCount: made.pageCount,
          retentionSeconds: ARTIFACT_RETENTION_SECONDS,
          warnings: made.warnings,
        });
        if (row) await needQueue().send('export.expire', { exportId: job.id }, { tx, startAfterSeconds: ARTIFACT_RETENTION_SECONDS });
        if (row) await recordExportEvent(tx, 'export.completed', job.id);
        return row;
      });
      // Its book was purged meanwhile (or another run finished it first): nothing will ever point at this file.
      if (!done) {
        const now = await findExportById(db, job.id);
        if (!now || now.artifact_key !== made.key) {
          await store.delete(made.key);
          if (hasCoverWrap(job)) await store.delete(coverKeyBeside(made.key));
        }
      } else {
        log?.info({ export: job.id, format: job.export_format, bytes: made.bytes, pages: made.pageCount }, 'export rendered');
      }
    },

    /** The `export.expire` job: the artifact's 7 days are over; its file goes, the job row stays (410 from now on). */
    async expire(exportId: string): Promise<void> {
      const job = await findExportById(db, exportId);
      if (!job || job.status !== 'complete' || job.artifact_removed_at || !job.artifact_key) return;
      const left = (new Date(job.expires_at!).getTime() - (deps.now?.() ?? new Date()).getTime()) / 1000;
      if (left > 60) {
        // Run early (a clock moved): look again when it is due.
        await needQueue().send('export.expire', { exportId }, { startAfterSeconds: Math.ceil(left) });
        return;
      }
      await store.delete(job.artifact_key);
      if (hasCoverWrap(job)) await store.delete(coverKeyBeside(job.artifact_key));
      await markArtifactRemoved(db, job.id);
    },
  };
}
export type ExportRendering = ReturnType<typeof createExportRendering>;

/**
 * The memories as the PDF shows them: the pictures it can print, and its recordings and videos, each
 * with a new link to the page where it plays (`playBase` + token), or none when `playBase` is null.
 */
async function* pdfMemories(source: AsyncIterable<ExportSubmission>, db: Db, playBase: string | null): AsyncGenerator<PdfMemory> {
  for await (const s of source) {
    const usable = s.media.filter((m) => isReleasable(m) && m.processing_status === 'complete');
    yield {
      id: s.id,
      text: s.text_content,
      signature: signatureOf(s),
      date: s.created_at,
      pinned: s.is_pinned,
      pictures: usable.flatMap((m): PdfMemory['pictures'] =>
        m.kind === 'image' ? [{ key: m.storage_key, kind: 'photo' }] : m.kind === 'video' && m.thumbnail_key ? [{ key: m.thumbnail_key, kind: 'video' }] : [],
      ),
      recordings: await Promise.all(
        usable
          .filter((m): m is typeof m & { kind: 'audio' | 'video' } => m.kind === 'audio' || m.kind === 'video')
          .map(async (m) => ({ kind: m.kind, duration: m.duration_seconds, url: playBase ? `${playBase}${await issuePlayLink(db, m.id)}/` : null })),
      ),
    };
  }
}
