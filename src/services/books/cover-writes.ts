import type { Queryable } from '../../db/client.js';
import { errors } from '../../errors.js';
import { readImageInfo } from '../../media-tools/image-info.js';
import type { VirusScanner } from '../../media-tools/virus-scanner.js';
import { detectFocalPoint, type FocalPoint } from '../../media-tools/focal-crop.js';
import type { ObjectStore } from '../../storage/object-store.js';

/**
 * The writes behind a book's cover (contract-decisions, "Cover"; storage
 * model in migrations/0032_book_cover.sql). Each runs in the caller's
 * transaction, which holds the book's row lock.
 */

/** Sets the book's cover columns: a media id and its focal point, or none (the automatic choice). */
export async function setCoverColumns(q: Queryable, bookId: string, cover: { mediaId: string; focal: FocalPoint } | null): Promise<void> {
  await q.query(`UPDATE books SET cover_media_id = $2, cover_focal_x = $3, cover_focal_y = $4 WHERE id = $1`, [
    bookId,
    cover?.mediaId ?? null,
    cover?.focal.x ?? null,
    cover?.focal.y ?? null,
  ]);
}

/**
 * Removes the book's uploaded cover (a media row of no memory) unless it is
 * `keep`: its row, its bytes from the book's storage, and its object (the
 * returned key, to be queued for deletion in the same transaction). A memory's
 * photo chosen as the cover is never removed here.
 */
export async function dropUploadedCover(q: Queryable, bookId: string, mediaId: string | null, keep?: string): Promise<string | null> {
  if (!mediaId || mediaId === keep) return null;
  const [gone] = await q.query<{ size_bytes: string | number; storage_key: string }>(
    `DELETE FROM media WHERE id = $1 AND book_id = $2 AND submission_id IS NULL RETURNING size_bytes, storage_key`,
    [mediaId, bookId],
  );
  if (!gone) return null;
  await q.query(`UPDATE books SET storage_used_bytes = GREATEST(0, storage_used_bytes - $2) WHERE id = $1`, [bookId, Number(gone.size_bytes)]);
  return gone.storage_key;
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
  const [m] = await q.query<{ id: string; kind: string; scan_result: string; storage_key: string; submission_id: string | null }>(
    `SELECT m.id, m.kind, m.scan_result, m.storage_key, m.submission_id FROM media m
     JOIN submissions s ON s.id = m.submission_id AND s.book_id = m.book_id
     WHERE m.id = $1 AND m.book_id = $2`,
    [mediaId, book.id],
  );
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

/** What the cover's upload is found to be before it is recorded: its size as displayed, its subject, its scan verdict. */
export interface CoverFindings {
  width: number | null;
  height: number | null;
  focal: FocalPoint;
  scanResult: 'clean' | 'not_scanned';
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

/** Records an examined cover upload as a media row of the book that belongs to no memory (submission_id NULL). */
export async function insertCoverMedia(
  q: Queryable,
  m: { id: string; bookId: string; uploadedBy: string; mimeType: string; declaredMimeType: string | null; filename: string | null; sizeBytes: number; sha256: string; key: string },
  f: CoverFindings,
): Promise<void> {
  await q.query(
    `INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, declared_mime_type, original_filename, size_bytes, sha256, storage_key,
                        width, height, processing_status, scan_result)
     VALUES ($1, NULL, $2, $3, 'image', $4, $5, $6, $7, $8, $9, $10, $11, 'complete', $12)`,
    [m.id, m.bookId, m.uploadedBy, m.mimeType, m.declaredMimeType, m.filename, m.sizeBytes, m.sha256, m.key, f.width, f.height, f.scanResult],
  );
}
