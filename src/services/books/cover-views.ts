import type { Queryable } from '../../db/client.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { CoverView } from './book-mapper.js';
import { findCoverFile, type CoverFile, type CoverOfBook } from './cover-repository.js';

export { findCoverFile, findCoverFiles, type CoverFile } from './cover-repository.js';

/** How long a cover's signed URL lives: as long as a media download's (media-types.ts MEDIA_URL_TTL_SECONDS). */
const COVER_URL_TTL_SECONDS = 900;

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
