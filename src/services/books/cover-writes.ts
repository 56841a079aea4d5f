import type { Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { recordEvent } from '../events/record-event.js';
import { toBook } from './book-mapper.js';
import { findBookForUpdate } from './book-repository.js';
import { coverOf } from './cover-views.js';
import { readImageInfo } from '../../media-tools/image-info.js';
import type { VirusScanner } from '../../media-tools/virus-scanner.js';
import { currentFindings, detectFocalPoint, findSubject, subjectOf, type FocalPoint } from '../../media-tools/focal-crop.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { clearCoverAmong, deleteUploadedCoverRow, findMemoryMedia, renewCardTokens, type CoverFindings } from './cover-repository.js';

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
 * The share cards drawn with the cover, made again after it changed: a
 * memory with no photo to show carries the cover on its card, and a memory's
 * own photo is cropped around the cover's focal point while it is the cover
 * (`coverIds`: the cover before and after). Each such approved memory gets a
 * new card token: its old card is dropped at once (no stale card is served;
 * share_card_url is null until the new one is there) and removed once this
 * commits, a render queued before this one finds its token gone, and the new
 * render records submission.updated as an approval's does. In the cover
 * change's transaction, under the book's lock. Answers how many were renewed.
 */
export async function renewCoverCards(q: Tx, queue: JobSender, bookId: string, coverIds: (string | null)[]): Promise<number> {
  const rows = await renewCardTokens(q, bookId, coverIds.filter((id): id is string => Boolean(id)));
  for (const r of rows) await queue.send('share-card.render', { submissionId: r.id, token: r.token }, { tx: q });
  const oldKeys = rows.flatMap((r) => (r.old_key ? [r.old_key] : []));
  if (oldKeys.length) await queue.send('storage.delete-objects', { keys: oldKeys }, { tx: q });
  return rows.length;
}

/**
 * Memory photos of the book about to be deleted (`mediaIds`, in the caller's
 * transaction, book locked): when one is its cover, the book returns to the
 * automatic choice, which moves its updated_at (so its ETag), records
 * book.updated and renews the cards drawn with it.
 */
export async function dropCoverAmong(q: Tx, store: ObjectStore, queue: JobSender, bookId: string, mediaIds: string[]): Promise<boolean> {
  if (!mediaIds.length) return false;
  const was = await clearCoverAmong(q, bookId, mediaIds);
  if (!was) return false;
  const book = (await findBookForUpdate(q, bookId))!;
  await recordEvent(q, 'book.updated', bookId, toBook(book, 'owner', await coverOf(q, store, book)));
  await renewCoverCards(q, queue, bookId, [was.cover_media_id]);
  return true;
}

/**
 * A photo of one of the book's memories, to be its cover (PATCH cover_media_id):
 * any other id (another book's, an uploaded cover, nothing) is 404 not_found;
 * audio or video, or a file found infected or awaiting its scan, is 400
 * validation_failed. Its focal point: the one given, else its detected subject
 * (PATCH finds it before taking the book's lock and gives it here).
 */
export async function memoryPhotoForCover(
  q: Queryable,
  store: ObjectStore,
  book: { id: string; cover_media_id: string | null },
  mediaId: string,
  focal: FocalPoint | undefined,
): Promise<{ mediaId: string; focal: FocalPoint }> {
  const m = await findMemoryPhoto(q, book.id, mediaId);
  return { mediaId: m.id, focal: focal ?? (await focalOfStored(store, m)) };
}

/** memoryPhotoForCover's checks: the photo of one of the book's memories, or the error saying why it cannot be the cover. */
export async function findMemoryPhoto(q: Queryable, bookId: string, mediaId: string): Promise<{ id: string; storage_key: string; subject: unknown }> {
  const m = await findMemoryMedia(q, bookId, mediaId);
  if (!m) throw errors.notFound('media');
  if (m.kind !== 'image') throw errors.validation(`The cover must be a photo; media ${mediaId} is ${m.kind}.`, { field: 'cover_media_id', reason: 'not_image' });
  if (m.scan_result === 'infected' || m.scan_result === 'pending') {
    throw errors.validation('That photo cannot be the cover: it was found infected or awaits its virus scan.', { field: 'cover_media_id', reason: m.scan_result });
  }
  return m;
}

/**
 * Where the subject of a stored photo is: as its processing found it, else detected now (a photo processed
 * before subjects were stored); the centre when it cannot be read.
 */
export async function focalOfStored(store: ObjectStore, photo: { storage_key: string; subject?: unknown }): Promise<FocalPoint> {
  const stored = currentFindings(photo.subject);
  if (stored) return subjectOf(stored).focal;
  const copy = await store.localCopy(photo.storage_key).catch(() => null);
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
    // Found once and stored with the cover's row, as processing does for a memory's photo.
    const subject = await findSubject(copy.path);
    return { width: info.width, height: info.height, focal: subject ? subjectOf(subject).focal : await detectFocalPoint(copy.path), subject, scanResult };
  } finally {
    await copy.release().catch(() => {});
  }
}
