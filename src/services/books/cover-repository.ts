import type { Queryable } from '../../db/client.js';
import type { FocalPoint } from '../../media-tools/focal-crop.js';
import type { BookRow } from './book-types.js';

/**
 * The rows behind a book's cover (contract-decisions, "Cover"; storage model
 * in migrations/0032_book_cover.sql): the book's cover columns and the media
 * row of an uploaded cover, which belongs to no memory. The writes run in the
 * caller's transaction, which holds the book's row lock.
 */

/** What a Book's `cover` is made from: the cover's media row, read with the book. */
export interface CoverFile {
  media_id: string;
  storage_key: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  scan_result: string;
}

export type CoverOfBook = Pick<BookRow, 'id' | 'cover_media_id' | 'cover_focal_x' | 'cover_focal_y'>;

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

/** Sets the book's cover columns: a media id and its focal point, or none (the automatic choice). */
export async function setCoverColumns(q: Queryable, bookId: string, cover: { mediaId: string; focal: { x: number; y: number } } | null): Promise<void> {
  await q.query(`UPDATE books SET cover_media_id = $2, cover_focal_x = $3, cover_focal_y = $4 WHERE id = $1`, [
    bookId,
    cover?.mediaId ?? null,
    cover?.focal.x ?? null,
    cover?.focal.y ?? null,
  ]);
}

/** Deletes an uploaded cover's media row (never a memory's photo) and frees its bytes from the book's storage; its object's key, or null when there was no such row. */
export async function deleteUploadedCoverRow(q: Queryable, bookId: string, mediaId: string): Promise<string | null> {
  const [gone] = await q.query<{ size_bytes: string | number; storage_key: string }>(
    `DELETE FROM media WHERE id = $1 AND book_id = $2 AND submission_id IS NULL RETURNING size_bytes, storage_key`,
    [mediaId, bookId],
  );
  if (!gone) return null;
  await q.query(`UPDATE books SET storage_used_bytes = GREATEST(0, storage_used_bytes - $2) WHERE id = $1`, [bookId, Number(gone.size_bytes)]);
  return gone.storage_key;
}

/** A media row of one of the book's memories (undefined: no such media, or not a memory's). */
export async function findMemoryMedia(q: Queryable, bookId: string, mediaId: string) {
  const [m] = await q.query<{ id: string; kind: string; scan_result: string; storage_key: string; submission_id: string | null; subject: unknown }>(
    `SELECT m.id, m.kind, m.scan_result, m.storage_key, m.submission_id, m.subject FROM media m
     JOIN submissions s ON s.id = m.submission_id AND s.book_id = m.book_id
     WHERE m.id = $1 AND m.book_id = $2`,
    [mediaId, bookId],
  );
  return m;
}

/** What the cover's upload is found to be before it is recorded: its size as displayed, its subject, its scan verdict. */
export interface CoverFindings {
  width: number | null;
  height: number | null;
  focal: FocalPoint;
  /** Where its subject is (focal-crop.ts's SubjectFindings), stored with it as processing stores a memory's photo's; null when not found. */
  subject: object | null;
  scanResult: 'clean' | 'not_scanned';
}

/** Records an examined cover upload as a media row of the book that belongs to no memory (submission_id NULL). */
export async function insertCoverMedia(
  q: Queryable,
  m: { id: string; bookId: string; uploadedBy: string; mimeType: string; declaredMimeType: string | null; filename: string | null; sizeBytes: number; sha256: string; key: string },
  f: CoverFindings,
): Promise<void> {
  await q.query(
    `INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, declared_mime_type, original_filename, size_bytes, sha256, storage_key,
                        width, height, processing_status, scan_result, subject)
     VALUES ($1, NULL, $2, $3, 'image', $4, $5, $6, $7, $8, $9, $10, $11, 'complete', $12, $13::jsonb)`,
    [m.id, m.bookId, m.uploadedBy, m.mimeType, m.declaredMimeType, m.filename, m.sizeBytes, m.sha256, m.key, f.width, f.height, f.scanResult, f.subject ? JSON.stringify(f.subject) : null],
  );
}

/**
 * New card tokens for the book's approved memories whose share card shows the
 * cover (no photo of their own to show, or their photo is one of `coverIds`);
 * their card keys are cleared. Answers each renewed memory with its new token
 * and its old card's key.
 */
export function renewCardTokens(q: Queryable, bookId: string, coverIds: string[]) {
  return q.query<{ id: string; token: string; old_key: string | null }>(
    `UPDATE submissions s SET share_card_token = gen_random_uuid(), share_card_key = NULL
     FROM (SELECT c.id, c.share_card_key FROM submissions c
           WHERE c.book_id = $1 AND c.status = 'approved' AND c.share_card_token IS NOT NULL
             AND (NOT EXISTS (SELECT 1 FROM media m WHERE m.submission_id = c.id AND m.kind = 'image' AND m.processing_status = 'complete'
                                                      AND m.scan_result NOT IN ('infected', 'pending'))
                  OR EXISTS (SELECT 1 FROM media m WHERE m.submission_id = c.id AND m.id = ANY($2::uuid[])))
           FOR UPDATE) old
     WHERE s.id = old.id
     RETURNING s.id, s.share_card_token AS token, old.share_card_key AS old_key`,
    [bookId, coverIds],
  );
}

/** Clears the book's cover when it is one of `mediaIds`; answers the cleared cover's id, or undefined. */
export async function clearCoverAmong(q: Queryable, bookId: string, mediaIds: string[]): Promise<{ cover_media_id: string } | undefined> {
  const [was] = await q.query<{ cover_media_id: string }>(
    `UPDATE books b SET cover_media_id = NULL, cover_focal_x = NULL, cover_focal_y = NULL
     FROM (SELECT id, cover_media_id FROM books WHERE id = $1) was
     WHERE b.id = was.id AND was.cover_media_id = ANY($2::uuid[])
     RETURNING was.cover_media_id`,
    [bookId, mediaIds],
  );
  return was;
}
