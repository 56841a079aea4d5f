import type { Queryable } from '../../db/client.js';
import { one, sharedQuery } from '../../db/client.js';
import type { MediaKind, ProcessingStatus, ScanResult } from './media-policy.js';
import type { MediaRow } from './media-types.js';

/** Every query names `m` (media). */
export const MEDIA_COLUMNS = `m.id, m.submission_id, m.book_id, m.uploaded_by, m.kind, m.mime_type, m.declared_mime_type, m.original_filename,
  m.size_bytes, m.sha256, m.storage_key, m.thumbnail_key, m.derived_bytes, m.width, m.height, m.duration_seconds,
  m.processing_status, m.processing_error, m.scan_result, m.scan_signature, m.created_at, m.updated_at`;

/** A media file of one submission of one book; any other id is simply not found. */
export async function findMedia(q: Queryable, bookId: string, submissionId: string, mediaId: string, o: { forUpdate?: boolean } = {}): Promise<MediaRow | undefined> {
  return one<MediaRow>(
    q,
    `SELECT ${MEDIA_COLUMNS} FROM media m WHERE m.id = $1 AND m.submission_id = $2 AND m.book_id = $3${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [mediaId, submissionId, bookId],
  );
}

/**
 * The media of these submissions, in upload order. Shared with identical
 * reads at the same time (a page many clients read): the rows are read-only.
 */
export async function findMediaOfSubmissions(q: Queryable, submissionIds: string[]): Promise<readonly Readonly<MediaRow>[]> {
  return sharedQuery<MediaRow>(
    q,
    `SELECT ${MEDIA_COLUMNS} FROM media m WHERE m.submission_id = ANY($1::uuid[]) ORDER BY m.submission_id, m.created_at, m.id`,
    [submissionIds],
  );
}

export async function insertMedia(
  q: Queryable,
  m: {
    id: string;
    submissionId: string;
    bookId: string;
    uploadedBy: string | null;
    kind: MediaKind;
    mimeType: string;
    declaredMimeType: string | null;
    originalFilename: string | null;
    sizeBytes: number;
    sha256: string;
    storageKey: string;
    durationSeconds: number | null;
    scanResult: ScanResult;
  },
): Promise<MediaRow> {
  const row = await one<MediaRow>(
    q,
    `INSERT INTO media AS m (id, submission_id, book_id, uploaded_by, kind, mime_type, declared_mime_type, original_filename,
                             size_bytes, sha256, storage_key, duration_seconds, scan_result)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${MEDIA_COLUMNS}`,
    [
      m.id,
      m.submissionId,
      m.bookId,
      m.uploadedBy,
      m.kind,
      m.mimeType,
      m.declaredMimeType,
      m.originalFilename,
      m.sizeBytes,
      m.sha256,
      m.storageKey,
      m.durationSeconds,
      m.scanResult,
    ],
  );
  return row!;
}

/** Deletes one media file of the book; the row it was, or undefined when there was none. */
export async function deleteMedia(q: Queryable, bookId: string, mediaId: string): Promise<MediaRow | undefined> {
  const [gone] = await q.query<MediaRow>(`DELETE FROM media m WHERE m.id = $1 AND m.book_id = $2 RETURNING ${MEDIA_COLUMNS}`, [mediaId, bookId]);
  return gone;
}

/** The stored files of a submission's media, with the bytes each counts against the book. */
export async function findSubmissionFiles(q: Queryable, submissionId: string) {
  return q.query<{ id: string; storage_key: string; thumbnail_key: string | null; bytes: number }>(
    `SELECT id, storage_key, thumbnail_key, size_bytes + derived_bytes AS bytes FROM media WHERE submission_id = $1`,
    [submissionId],
  );
}

/** Every stored file of a book: media, posters and share cards. */
export async function findBookFileKeys(q: Queryable, bookId: string): Promise<string[]> {
  const rows = await q.query<{ key: string }>(
    `SELECT storage_key AS key FROM media WHERE book_id = $1
     UNION ALL SELECT thumbnail_key FROM media WHERE book_id = $1 AND thumbnail_key IS NOT NULL
     UNION ALL SELECT share_card_key FROM submissions WHERE book_id = $1 AND share_card_key IS NOT NULL`,
    [bookId],
  );
  return rows.map((r) => r.key);
}

/** The book's storage counter, moved by `bytes` (negative to give back); never below zero. */
export async function addBookStorage(q: Queryable, bookId: string, bytes: number): Promise<void> {
  await q.query(`UPDATE books SET storage_used_bytes = GREATEST(0, storage_used_bytes + $2) WHERE id = $1`, [bookId, bytes]);
}

/** Locks a media file's book and submission, the lock order of every write in a book (book, submission, media). */
export async function lockMediaParents(q: Queryable, bookId: string, submissionId: string): Promise<void> {
  await q.query(`SELECT id FROM books WHERE id = $1 FOR NO KEY UPDATE`, [bookId]);
  await q.query(`SELECT id FROM submissions WHERE id = $1 FOR UPDATE`, [submissionId]);
}

/** The submission embeds its media: a change to them moves its updated_at (its ETag, updated_since). */
export async function touchSubmission(q: Queryable, submissionId: string): Promise<void> {
  await q.query(`UPDATE submissions SET updated_at = now() WHERE id = $1`, [submissionId]);
}

export async function findMediaParents(q: Queryable, mediaId: string) {
  return one<{ book_id: string; submission_id: string }>(q, `SELECT book_id, submission_id FROM media WHERE id = $1`, [mediaId]);
}

/** Moves the processing status of a media file that is in one of `from`; undefined when it is not (or is gone). */
export async function setProcessingStatus(q: Queryable, mediaId: string, status: 'processing' | 'failed', error: string | null, from: ProcessingStatus[]): Promise<MediaRow | undefined> {
  return one<MediaRow>(
    q,
    `UPDATE media m SET processing_status = $2, processing_error = $3
     WHERE m.id = $1 AND m.processing_status = ANY($4::text[]) RETURNING ${MEDIA_COLUMNS}`,
    [mediaId, status, error, from],
  );
}

/** Media processing for longer than `olderThanSeconds` (at most 500). */
export async function findStuckProcessing(q: Queryable, olderThanSeconds: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM media WHERE processing_status = 'processing' AND updated_at < now() - make_interval(secs => $1) LIMIT 500`,
    [olderThanSeconds],
  );
  return rows.map((r) => r.id);
}

/** Locks a media row; its derived bytes, or undefined when it is gone. */
export async function lockMediaDerivedBytes(q: Queryable, mediaId: string): Promise<number | undefined> {
  const [row] = await q.query<{ derived_bytes: number }>(`SELECT derived_bytes FROM media WHERE id = $1 FOR UPDATE`, [mediaId]);
  return row && Number(row.derived_bytes);
}

/**
 * What processing found: complete, with dimensions, duration, poster, derived bytes, scan outcome and where
 * a photo's subject is (null keeps what is there). One statement: a run killed before it leaves the row as
 * it was, and a run again writes the same findings over them.
 */
export async function completeProcessing(
  q: Queryable,
  mediaId: string,
  f: {
    width: number | null;
    height: number | null;
    durationSeconds: number | null;
    thumbnailKey: string | null;
    derivedBytes: number;
    scanResult: ScanResult | null;
    scanSignature: string | null;
    /** Where the subject of the photo (or the video's poster frame) is: focal-crop.ts's SubjectFindings. */
    subject: object | null;
  },
): Promise<void> {
  await q.query(
    `UPDATE media SET processing_status = 'complete', processing_error = NULL, width = $2, height = $3,
       duration_seconds = COALESCE($4, duration_seconds), thumbnail_key = COALESCE($5, thumbnail_key), derived_bytes = $6,
       scan_result = COALESCE($7, scan_result), scan_signature = COALESCE($8, scan_signature), subject = COALESCE($9::jsonb, subject)
     WHERE id = $1`,
    [mediaId, f.width, f.height, f.durationSeconds, f.thumbnailKey, f.derivedBytes, f.scanResult, f.scanSignature, f.subject ? JSON.stringify(f.subject) : null],
  );
}

/** An object in the store that no row owns yet (an upload in progress); the sweep removes it if none ever does. */
export async function recordPendingObject(q: Queryable, key: string): Promise<void> {
  await q.query(`INSERT INTO pending_objects (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`, [key]);
}

export async function forgetPendingObject(q: Queryable, key: string): Promise<void> {
  await q.query(`DELETE FROM pending_objects WHERE key = $1`, [key]);
}

/** A row takes the object over; false when the sweep claimed it first. */
export async function takePendingObject(q: Queryable, key: string): Promise<boolean> {
  const taken = await q.query(`DELETE FROM pending_objects WHERE key = $1 AND sweeping_at IS NULL RETURNING key`, [key]);
  return taken.length > 0;
}

/**
 * Claims up to 500 entries older than `olderThanSeconds` for removal, in one
 * statement; an entry an attach holds is skipped (it is being taken), and an
 * attach that comes later finds the entry claimed.
 */
export async function claimStalePendingObjects(q: Queryable, olderThanSeconds: number): Promise<string[]> {
  const rows = await q.query<{ key: string }>(
    `UPDATE pending_objects SET sweeping_at = now()
     WHERE key IN (SELECT key FROM pending_objects WHERE created_at < now() - make_interval(secs => $1)
                   ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED)
     RETURNING key`,
    [olderThanSeconds],
  );
  return rows.map((r) => r.key);
}

/** What a share card shows, while the submission is still approved under this approval's token (else undefined). */
export async function findShareCardSubject(q: Queryable, submissionId: string, token: string) {
  return one<{ book_id: string; slug: string; text_content: string; author: string | null; title: string; theme: string; share_card_key: string | null }>(
    q,
    `SELECT s.book_id, b.slug, s.text_content, b.title, b.theme, s.share_card_key,
            COALESCE(NULLIF(s.contributor_name, ''), NULLIF(trim(u.first_name || ' ' || u.last_name), '')) AS author
     FROM submissions s JOIN books b ON b.id = s.book_id LEFT JOIN users u ON u.id = s.contributor_user_id
     WHERE s.id = $1 AND s.share_card_token = $2 AND s.status = 'approved' AND b.deleted_at IS NULL`,
    [submissionId, token],
  );
}

/**
 * The photo of a memory's share card: its own first photo, else the book's
 * chosen cover (with its focal point, around which the card crops it), with
 * where its subject is as processing found it; never a file found infected
 * or awaiting its scan.
 */
export async function findShareCardPhoto(q: Queryable, submissionId: string) {
  return one<{ storage_key: string; focal_x: number | null; focal_y: number | null; subject: unknown }>(
    q,
    `SELECT storage_key, focal_x, focal_y, subject FROM (
       (SELECT m.storage_key, CASE WHEN b.cover_media_id = m.id THEN b.cover_focal_x END AS focal_x,
               CASE WHEN b.cover_media_id = m.id THEN b.cover_focal_y END AS focal_y, m.subject, 0 AS rank
          FROM media m JOIN books b ON b.id = m.book_id
         WHERE m.submission_id = $1 AND m.kind = 'image' AND m.processing_status = 'complete' AND m.scan_result NOT IN ('infected', 'pending')
         ORDER BY m.created_at, m.id LIMIT 1)
       UNION ALL
       (SELECT m.storage_key, b.cover_focal_x, b.cover_focal_y, m.subject, 1
          FROM submissions s JOIN books b ON b.id = s.book_id JOIN media m ON m.id = b.cover_media_id AND m.book_id = b.id
         WHERE s.id = $1 AND m.kind = 'image' AND m.scan_result NOT IN ('infected', 'pending'))
     ) AS c ORDER BY rank LIMIT 1`,
    [submissionId],
  );
}

/**
 * Records the card's file: `stale` when the submission left that approval meanwhile, `already` when
 * another run of the same render recorded it first (the row is locked, so two runs cannot both record it).
 */
export async function recordShareCard(q: Queryable, submissionId: string, token: string, key: string): Promise<'recorded' | 'already' | 'stale'> {
  const [row] = await q.query<{ share_card_key: string | null }>(
    `SELECT share_card_key FROM submissions WHERE id = $1 AND share_card_token = $2 AND status = 'approved' FOR UPDATE`,
    [submissionId, token],
  );
  if (!row) return 'stale';
  if (row.share_card_key === key) return 'already';
  await q.query(`UPDATE submissions SET share_card_key = $2 WHERE id = $1`, [submissionId, key]);
  return 'recorded';
}
