import type { Queryable } from '../../db/client.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { CoverView } from './book-mapper.js';
import type { BookRow } from './book-types.js';

/** How long a cover's signed URL lives: as long as a media download's (media-types.ts MEDIA_URL_TTL_SECONDS). */
const COVER_URL_TTL_SECONDS = 900;

/** What a Book's `cover` is made from: the cover's media row, read with the book. */
export interface CoverFile {
  media_id: string;
  storage_key: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  scan_result: string;
}

type CoverOfBook = Pick<BookRow, 'id' | 'cover_media_id' | 'cover_focal_x' | 'cover_focal_y'>;

/** The cover's file, when the book has one chosen and its media row is still there (a memory's photo may have been deleted since). */
export async function findCoverFile(q: Queryable, book: CoverOfBook): Promise<CoverFile | null> {
  if (!book.cover_media_id) return null;
  const [row] = await q.query<CoverFile>(
    `SELECT id AS media_id, storage_key, mime_type, width, height, scan_result FROM media WHERE id = $1 AND book_id = $2 AND kind = 'image'`,
    [book.cover_media_id, book.id],
  );
  return row ?? null;
}

/** The covers of many books at once (a page of GET /books/), keyed by media id. */
export async function findCoverFiles(q: Queryable, books: { id: string; cover_media_id: string | null }[]): Promise<Map<string, CoverFile>> {
  const ids = books.filter((b) => b.cover_media_id).map((b) => b.cover_media_id!);
  if (!ids.length) return new Map();
  const rows = await q.query<CoverFile & { book_id: string }>(
    `SELECT id AS media_id, book_id, storage_key, mime_type, width, height, scan_result FROM media WHERE id = ANY($1::uuid[]) AND kind = 'image'`,
    [ids],
  );
  const byBook = new Map(books.map((b) => [b.cover_media_id, b.id]));
  return new Map(rows.filter((r) => byBook.get(r.media_id) === r.book_id).map((r) => [r.media_id, r]));
}

/**
 * A Book's `cover`: the file's size and focal point, and a URL signed like a
 * media download (never for a file found infected or awaiting its scan; a URL
 * that cannot be signed is null rather than a broken one).
 */
export async function coverView(store: ObjectStore, book: CoverOfBook, file: CoverFile | null): Promise<CoverView | null> {
  if (!file) return null;
  let url: string | null = null;
  if (file.scan_result !== 'infected' && file.scan_result !== 'pending') {
    try {
      url = (await store.signedUrl(file.storage_key, { ttlSeconds: COVER_URL_TTL_SECONDS, contentType: file.mime_type, downloadName: `cover-${file.media_id}.${file.mime_type.split('/')[1] ?? 'bin'}` })).url;
    } catch {
      url = null;
    }
  }
  return {
    media_id: file.media_id,
    url,
    width: file.width,
    height: file.height,
    focal_point: { x: book.cover_focal_x ?? 0.5, y: book.cover_focal_y ?? 0.5 },
  };
}

/** findCoverFile then coverView: the cover of one book as the Book shows it. */
export async function coverOf(q: Queryable, store: ObjectStore, book: CoverOfBook): Promise<CoverView | null> {
  return coverView(store, book, await findCoverFile(q, book));
}
