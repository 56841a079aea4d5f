import type { Queryable } from '../../db/client.js';
import { errors } from '../../errors.js';
import { readImageInfo } from '../../media-tools/image-info.js';
import type { VirusScanner } from '../../media-tools/virus-scanner.js';
import { detectFocalPoint, type FocalPoint } from '../../media-tools/focal-crop.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { deleteUploadedCoverRow, findMemoryMedia, type CoverFindings } from './cover-repository.js';

export { insertCoverMedia, setCoverColumns, type CoverFindings } from './cover-repository.js';

/**
 * The writes behind a book's cover (contract-decisions, "Cover"; the rows in
 * cover-repository.ts). Each runs in the caller's transaction, which holds
 * the book's row lock.
 */

/**
 * Removes the book's uploaded cover (a media row of no memory) unless it is
 * `keep`: its row, its bytes from the book's storage, and its object (the
 * returned key, to be queued for deletion in the same transaction). A memory's
 * photo chosen as the cover is never removed here.
 */
export async function dropUploadedCover(q: Queryable, bookId: string, mediaId: string | null, keep?: string): Promise<string | null> {
  if (!mediaId || mediaId === keep) return null;
  return deleteUploadedCoverRow(q, bookId, mediaId);
}

/**
 * A photo of one of the book's memories, to be its cover (PATCH cover_media_id):
 * any other id (another book's, an uploaded cover, nothing) is 404 not_found;
 * audio or video, or a file found infected or awaiting its scan, is 400
 * validation_failed. Its focal point: the one given, else its detected subject.
 */
export async function memoryPhotoForCover(
  q: Queryable,
  store: ObjectStore,
  book: { id: string; cover_media_id: string | null },
  mediaId: string,
  focal: FocalPoint | undefined,
): Promise<{ mediaId: string; focal: FocalPoint }> {
  const m = await findMemoryMedia(q, book.id, mediaId);
  if (!m) throw errors.notFound('media');
  if (m.kind !== 'image') throw errors.validation(`The cover must be a photo; media ${mediaId} is ${m.kind}.`, { field: 'cover_media_id', reason: 'not_image' });
  if (m.scan_result === 'infected' || m.scan_result === 'pending') {
    throw errors.validation('That photo cannot be the cover: it was found infected or awaits its virus scan.', { field: 'cover_media_id', reason: m.scan_result });
  }
  return { mediaId: m.id, focal: focal ?? (await focalOfStored(store, m.storage_key)) };
}

/** The detected subject of a stored photo (the centre when it cannot be read). */
export async function focalOfStored(store: ObjectStore, key: string): Promise<FocalPoint> {
  const copy = await store.localCopy(key).catch(() => null);
  if (!copy) return { x: 0.5, y: 0.5 };
  try {
    return await detectFocalPoint(copy.path);
  } finally {
    await copy.release().catch(() => {});
  }
}

/**
 * Reads a staged cover upload once, outside any transaction: its upright
 * size, its detected subject (the default focal point) and, with a virus
 * scanner configured, its verdict. An infected photo is 400
 * validation_failed (reason infected); a scanner that cannot answer is 503.
 */
export async function examineCoverUpload(store: ObjectStore, key: string, scanner: VirusScanner | null): Promise<CoverFindings> {
  const copy = await store.localCopy(key);
  try {
    const info = await readImageInfo(copy.path);
    if (info.width === null) throw errors.validation('That photo could not be read.', { field: 'file', reason: 'unreadable' });
    let scanResult: CoverFindings['scanResult'] = 'not_scanned';
    if (scanner) {
      const verdict = await scanner.scan(copy.path).catch((err: unknown) => {
        throw errors.serviceUnavailable('The virus scanner cannot be reached just now; send the cover again shortly.', null, {
          headers: { 'retry-after': '5' },
          cause: err,
          transient: true,
        });
      });
      if (verdict.result === 'infected') throw errors.validation('That file was found infected and was not kept.', { field: 'file', reason: 'infected' });
      scanResult = 'clean';
    }
    return { width: info.width, height: info.height, focal: await detectFocalPoint(copy.path), scanResult };
  } finally {
    await copy.release().catch(() => {});
  }
}
