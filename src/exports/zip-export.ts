import path from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';
import type { ExportBook, ExportMedia, ExportSubmission } from './export-input.js';
import { jsonExportChunks } from './json-export.js';

/**
 * The ZIP export: a folder named after the book with the original media
 * files (`media/<submission id>/<media id>.<ext>`) and `book.json` (the JSON
 * export, each media entry naming its `file`). Streamed: one media file is
 * read at a time, straight from the store into the archive, and the archive
 * straight into its sink (the store). Media are stored, not compressed
 * (photos and videos are compressed already); the JSON is deflated.
 */

export interface ZipExportInput {
  book: ExportBook;
  exportedAt: string;
  /** Walks the book's memories in book order; called twice (media first, then the JSON). */
  walk(): AsyncIterable<ExportSubmission>;
  openMedia(key: string): Promise<Readable>;
  /** Whether an error of openMedia means the file is simply gone (it is then left out). */
  isMissing(err: unknown): boolean;
  /** Whether a file may be handed out (the service's rule); the others stay out of the archive. */
  isReleasable(m: ExportMedia): boolean;
}

export interface ZipExportResult<T> {
  sink: T;
  files: number;
  missing: number;
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'image/heic': '.heic',
  'image/heif': '.heif',
  'image/avif': '.avif',
  'image/tiff': '.tif',
  'video/mp4': '.mp4',
  'video/quicktime': '.mov',
  'video/webm': '.webm',
  'audio/mpeg': '.mp3',
  'audio/mp4': '.m4a',
  'audio/aac': '.aac',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/ogg': '.ogg',
  'audio/webm': '.weba',
  'audio/flac': '.flac',
};

/** A file's extension in an archive: from its type, else its own name's, else `.bin`. */
function extensionOf(m: Pick<ExportMedia, 'mime_type' | 'original_filename'>): string {
  const ext = EXTENSIONS[m.mime_type];
  if (ext) return ext;
  const given = path.extname(m.original_filename ?? '').toLowerCase();
  return /^\.[a-z0-9]{1,6}$/.test(given) ? given : '.bin';
}

/** A media file's path inside the book's folder. */
export function mediaPath(s: Pick<ExportSubmission, 'id'>, m: Pick<ExportMedia, 'id' | 'mime_type' | 'original_filename'>): string {
  return `media/${s.id}/${m.id}${extensionOf(m)}`;
}

/**
 * An archive writing into `sink`: `addOne` adds a stream and waits until the
 * archive has taken it in (one file in memory at a time), failing as soon as
 * the sink does; `finish` ends it and resolves with what the sink resolved.
 */
function startArchive<T>(sink: (archive: Readable) => Promise<T>) {
  const zip = new yazl.ZipFile();
  const archive = zip.outputStream as Readable;
  // yazl reports its own failures as events; an unhandled one would end the process.
  zip.on('error', (err: Error) => archive.destroy(err));
  const sinking = sink(archive);
  // The sink failing (the store refused) must stop the writer, which may be waiting on the archive.
  const sinkFailed = sinking.then(
    () => new Promise<never>(() => {}),
    (err) => Promise.reject(err),
  );
  sinkFailed.catch(() => {});
  return {
    async addOne(file: Readable, name: string, o: { compress: boolean; mtime: Date }) {
      zip.addReadStream(file, name, o);
      await Promise.race([finished(file), sinkFailed]);
    },
    /** The last entry, read as the archive is written (a failure of it fails the archive). */
    addLast(file: Readable, name: string, o: { compress: boolean; mtime: Date }) {
      // pipe() does not pass errors on: a failing read must fail the archive, not stall it.
      file.on('error', (err) => archive.destroy(err));
      zip.addReadStream(file, name, o);
    },
    async finish(): Promise<T> {
      zip.end();
      return sinking;
    },
    async abort(err: unknown) {
      archive.destroy(err as Error);
      await sinking.catch(() => {});
    },
  };
}

/** Writes the archive into `sink` (which consumes the stream, e.g. the store's put) and resolves with what the sink resolved. */
export async function writeZipExport<T>(input: ZipExportInput, sink: (archive: Readable) => Promise<T>): Promise<ZipExportResult<T>> {
  const archive = startArchive(sink);
  const folder = input.book.slug;
  const written = new Set<string>();
  let missing = 0;
  try {
    for await (const s of input.walk()) {
      for (const m of s.media) {
        if (!input.isReleasable(m)) continue;
        let file: Readable;
        try {
          file = await input.openMedia(m.storage_key);
        } catch (err) {
          if (!input.isMissing(err)) throw err;
          missing++;
          continue;
        }
        await archive.addOne(file, `${folder}/${mediaPath(s, m)}`, { compress: false, mtime: new Date(m.created_at) });
        written.add(m.id);
      }
    }
    const json = Readable.from(
      jsonExportChunks({
        book: input.book,
        exportedAt: input.exportedAt,
        submissions: input.walk(),
        fileOf: (s, m) => (written.has(m.id) ? mediaPath(s, m) : null),
      }),
    );
    archive.addLast(json, `${folder}/book.json`, { compress: true, mtime: new Date(input.exportedAt) });
    return { sink: await archive.finish(), files: written.size, missing };
  } catch (err) {
    await archive.abort(err);
    throw err;
  }
}
