import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import { jsonExportChunks } from '../../exports/json-export.js';
import type { PdfMemory } from '../../exports/pdf/pdf-book.js';
import { signatureOf } from '../../lib/contributor.js';
import { isoMicro } from '../../lib/time.js';
import { ObjectNotFoundError, type ObjectStore } from '../../storage/object-store.js';
import {
  approvedSubmissionIds,
  approvedDateSpan,
  firstPhotoKey,
  isReleasable,
  namedCoverPhotoKey,
  storedSubjectOf,
  readExportBook,
  readExportSubmissions,
  type ExportBook,
  type ExportSubmission,
} from './export-content-repository.js';
import { recordExportEvent } from '../events/event-objects.js';
import { ExportRunError as RenderError, type ExportRun, type ExportVariant, type RenderedArtifact } from './export-pipeline.js';
import { issuePlayLink } from './play-links.js';
import { ARTIFACT_RETENTION_SECONDS, coverObjectKey, DEFAULT_PAPER_CALIPER_UM, exportObjectKey, FORMAT_FILES, hasCoverWrap, isBookExport, type BookExportRow, type ExportRow } from './export-types.js';

type RenderRun = ExportRun;

/**
 * The book kind of the export pipeline (see export-pipeline.ts): renders a
 * book's approved memories as a PDF (a `shop` PDF with its cover wrap beside
 * it), a JSON document or a ZIP of the JSON and the original media, into the
 * store; finished files are kept 7 days. Completion and failure are
 * announced as events (export.completed, export.failed).
 */
export function createBookExportVariant(deps: {
  db: Db;
  store: ObjectStore;
  now: () => Date;
  /** Thickness of one page of the printed book (µm): the spine of a cover wrap is the page count times it. */
  paperCaliperUm?: number;
  /** The service's public address: printed recordings link to its /play/ pages. */
  publicUrl?: string;
}): ExportVariant {
  const { db, store } = deps;

  async function renderPdf(job: BookExportRow, book: ExportBook, key: string, signal: AbortSignal, log: RenderRun['log']) {
    const ids = await approvedSubmissionIds(db, book.id);
    const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-export-'));
    try {
      const file = path.join(dir, FORMAT_FILES.pdf.file);
      // Loaded with the first PDF (PDFKit, its fonts and sharp are heavy to load at start).
      const { renderPdfBook, MIN_PRINT_PPI } = await import('../../exports/pdf/pdf-book.js');
      // Where each picture's subject is, as processing stored it (read with its memory, else asked for: the
      // cover is opened before the memories are read), so the book crops around it without looking again.
      const subjects = new Map<string, unknown>();
      const openPicture = async (pictureKey: string) => {
        const subject = subjects.has(pictureKey) ? subjects.get(pictureKey) : await storedSubjectOf(db, book.id, pictureKey);
        try {
          return { ...(await store.localCopy(pictureKey, { signal })), subject };
        } catch (err) {
          if (err instanceof ObjectNotFoundError || signal.aborted) throw err;
          throw new RenderError('A photo could not be read from storage.', { cause: err });
        }
      };
      // The cover photo: the owner's chosen cover (cropped around its focal point), else the photo the settings
      // name, else the first pinned memory's (the book's first photo), its subject detected.
      const coverPicture = book.cover?.storage_key ?? (await namedCoverPhotoKey(db, book.id, book.settings)) ?? (await firstPhotoKey(db, book.id));
      const coverFocal = book.cover?.focal_point ?? null;
      const result = await renderPdfBook({
        title: book.title,
        subtitle: book.subtitle,
        theme: job.theme,
        bleedMm: job.bleed_mm,
        gutterMm: job.gutter_mm,
        memoryCount: ids.length,
        memories: pdfMemories(readExportSubmissions(db, book.id, ids), db, deps.publicUrl ? `${deps.publicUrl}/play/` : null, subjects),
        openPicture,
        isMissing: (err) => err instanceof ObjectNotFoundError,
        onPictureSkipped: (pictureKey, why) => log?.warn({ export: job.id, key: pictureKey, why }, 'picture left out of the export'),
        output: createWriteStream(file, { mode: 0o600 }),
        signal,
        now: deps.now(),
        printReady: hasCoverWrap(job),
        coverPicture,
        coverFocal,
        dates: await approvedDateSpan(db, book.id),
        language: bookLanguage(book.settings),
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
            // The owner's focal point holds for the photo it was chosen on.
            photoFocal: book.cover && photoKey === book.cover.storage_key ? book.cover.focal_point : null,
            back: result.back,
            output: createWriteStream(coverFile, { mode: 0o600 }),
            now: deps.now(),
            language: bookLanguage(book.settings),
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

  async function putArtifact(key: string, body: Readable, format: BookExportRow['export_format'], signal: AbortSignal) {
    try {
      return await store.put(key, body, { contentType: FORMAT_FILES[format].contentType, signal });
    } catch (err) {
      if (signal.aborted || err instanceof RenderError) throw err;
      throw new RenderError('The finished file could not be saved to storage.', { cause: err });
    }
  }

  async function render(job: BookExportRow, book: ExportBook, signal: AbortSignal, log: RenderRun['log']): Promise<RenderedArtifact> {
    const key = exportObjectKey(book.id, job.id, job.export_format);
    const exportedAt = isoMicro(deps.now());
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

  const bookOf = (job: ExportRow): BookExportRow => {
    if (!isBookExport(job)) throw new Error(`export ${job.id} is not a book export`);
    return job;
  };

  return {
    work: 'rendering',
    retentionSeconds: ARTIFACT_RETENTION_SECONDS,
    expireJob: 'export.expire',
    async gone(job) {
      return (await readExportBook(db, bookOf(job).book_id)) ? null : 'The book was deleted before the export was rendered.';
    },
    async render(job, run) {
      const book = await readExportBook(db, bookOf(job).book_id);
      if (!book) throw new RenderError('The book was deleted before the export was rendered.');
      return render(bookOf(job), book, run.signal, run.log);
    },
    async finished(tx, job, outcome) {
      await recordExportEvent(tx, outcome === 'completed' ? 'export.completed' : 'export.failed', job.id);
    },
  };
}


/**
 * The memories as the PDF shows them: the pictures it can print, and its recordings and videos, each
 * with a new link to the page where it plays (`playBase` + token), or none when `playBase` is null.
 * Each picture's stored subject goes into `subjects`, by its key.
 */
async function* pdfMemories(source: AsyncIterable<ExportSubmission>, db: Db, playBase: string | null, subjects: Map<string, unknown>): AsyncGenerator<PdfMemory> {
  for await (const s of source) {
    const usable = s.media.filter((m) => isReleasable(m) && m.processing_status === 'complete');
    // Each picture's stored subject, for when the book opens it.
    for (const m of usable) if (m.kind === 'image' || m.thumbnail_key) subjects.set(m.kind === 'image' ? m.storage_key : m.thumbnail_key!, m.subject ?? null);
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
          .map(async (m) => ({
            kind: m.kind,
            duration: m.duration_seconds,
            url: playBase ? `${playBase}${await issuePlayLink(db, m.id)}/` : null,
            // A completed transcript prints under the recording's code.
            transcript: m.transcript?.status === 'completed' && m.transcript.text.trim() ? m.transcript.text : null,
          })),
      ),
    };
  }
}

/** The language the owner chose for the book (`settings.language`), if any: the printed book's own words are set in it. */
function bookLanguage(settings: Record<string, unknown> | null | undefined): string | null {
  const language = settings?.language;
  return typeof language === 'string' ? language : null;
}
