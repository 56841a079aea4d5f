import type { Queryable } from '../../db/client.js';
import type { ExportBook, ExportMedia, ExportSubmission } from '../../exports/export-input.js';

/**
 * The book export's reads (the exports domain's read repository): the book,
 * its approved memories in book order a chunk at a time with their media and
 * transcripts, and its cover photo. Reads only; the variant renders.
 */

export type { ExportBook, ExportMedia, ExportSubmission };
type ExportTranscript = NonNullable<ExportMedia['transcript']>;

/** Rows read per query while walking a book; bounds memory whatever the book's size. */
const CHUNK = 200;

export async function readExportBook(q: Queryable, bookId: string): Promise<ExportBook | null> {
  // The cover: a photo of this book that may be handed out (never one found infected or awaiting its scan).
  const [book] = await q.query<Omit<ExportBook, 'cover'> & { cover_media_id: string | null; cover_key: string | null; cover_x: number | null; cover_y: number | null }>(
    `SELECT b.id, b.slug, b.title, b.subtitle, b.theme, b.use_case_slug, b.settings, b.is_public, b.status, b.created_at, b.updated_at,
            m.id AS cover_media_id, m.storage_key AS cover_key, b.cover_focal_x AS cover_x, b.cover_focal_y AS cover_y
     FROM books b LEFT JOIN media m ON m.id = b.cover_media_id AND m.book_id = b.id AND m.kind = 'image' AND m.scan_result NOT IN ('infected', 'pending')
     WHERE b.id = $1 AND b.deleted_at IS NULL`,
    [bookId],
  );
  if (!book) return null;
  const { cover_media_id: mediaId, cover_key: key, cover_x: x, cover_y: y, ...rest } = book;
  return { ...rest, cover: mediaId && key ? { media_id: mediaId, storage_key: key, focal_point: { x: x ?? 0.5, y: y ?? 0.5 } } : null };
}

/**
 * The ids of the book's approved memories in book order: pinned first, then
 * oldest first. Taken once when rendering starts, so the book's contents are
 * fixed then (a memory approved meanwhile waits for the next export; one
 * deleted meanwhile is left out when its chunk is read).
 */
export async function approvedSubmissionIds(q: Queryable, bookId: string): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM submissions WHERE book_id = $1 AND status = 'approved' ORDER BY is_pinned DESC, created_at, id`,
    [bookId],
  );
  return rows.map((r) => r.id);
}

/** When the book's first and last approved memories were sent (ISO, UTC); null without any. The printed book prints dates only where they tell something. */
export async function approvedDateSpan(q: Queryable, bookId: string): Promise<{ first: string; last: string } | null> {
  const [row] = await q.query<{ first: string | null; last: string | null }>(
    `SELECT to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS first,
            to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last
       FROM submissions WHERE book_id = $1 AND status = 'approved'`,
    [bookId],
  );
  return row?.first && row.last ? { first: row.first, last: row.last } : null;
}

/** A file that may be handed out: never one found infected, nor one still waiting for its scan. */
export const isReleasable = (m: Pick<ExportMedia, 'scan_result'>) => m.scan_result !== 'infected' && m.scan_result !== 'pending';

/**
 * Walks the memories named by `ids` in that order, a chunk at a time, each
 * with its media in upload order. Each chunk is its own short query, so no
 * transaction stays open while a renderer works.
 */
export async function* readExportSubmissions(q: Queryable, bookId: string, ids: string[]): AsyncGenerator<ExportSubmission> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const rows = await q.query<Omit<ExportSubmission, 'media'>>(
      `SELECT s.id, s.text_content, s.contributor_name, s.contributor_email, s.contributor_user_id, s.is_private, s.is_pinned, s.pinned_at,
              s.source, s.created_at, s.updated_at, u.first_name AS contributor_first_name, u.last_name AS contributor_last_name
       FROM submissions s LEFT JOIN users u ON u.id = s.contributor_user_id
       WHERE s.book_id = $1 AND s.id = ANY($2::uuid[]) AND s.status = 'approved'`,
      [bookId, chunk],
    );
    const media = await q.query<Omit<ExportMedia, 'transcript'> & { t_status: string | null; t_language: string | null; t_text: string | null; t_segments: ExportTranscript['segments'] | null; t_edited: boolean | null }>(
      `SELECT m.id, m.submission_id, m.kind, m.mime_type, m.original_filename, m.size_bytes, m.sha256, m.width, m.height, m.duration_seconds,
              m.processing_status, m.scan_result, m.storage_key, m.thumbnail_key, m.created_at, m.subject,
              t.status AS t_status, t.language AS t_language, coalesce(t.edited_text, t.text) AS t_text, t.segments AS t_segments,
              t.edited_text IS NOT NULL AS t_edited
       FROM media m LEFT JOIN transcriptions t ON t.media_id = m.id
       WHERE m.book_id = $1 AND m.submission_id = ANY($2::uuid[]) ORDER BY m.submission_id, m.created_at, m.id`,
      [bookId, chunk],
    );
    const byId = new Map(rows.map((r) => [r.id, { ...r, media: [] as ExportMedia[] }]));
    for (const { t_status, t_language, t_text, t_segments, t_edited, ...m } of media) {
      const transcript: ExportMedia['transcript'] =
        m.kind === 'image' ? undefined : t_status ? { status: t_status, language: t_language, text: t_text ?? '', segments: t_segments ?? [], edited: t_edited === true } : null;
      byId.get(m.submission_id)?.media.push({ ...m, size_bytes: Number(m.size_bytes), ...(transcript === undefined ? {} : { transcript }) });
    }
    for (const id of chunk) {
      const s = byId.get(id);
      if (s) yield s;
    }
  }
}

/**
 * The book's cover photo unless the owner names one: the first photo in book order (pinned memories come
 * first, so it is the first pinned memory's when one has a photo), as the PDF lays them out.
 */
export async function firstPhotoKey(q: Queryable, bookId: string): Promise<string | null> {
  const [row] = await q.query<{ storage_key: string }>(
    `SELECT m.storage_key FROM media m JOIN submissions s ON s.id = m.submission_id
     WHERE m.book_id = $1 AND s.status = 'approved' AND m.kind = 'image' AND m.processing_status = 'complete'
       AND m.scan_result NOT IN ('infected', 'pending')
     ORDER BY s.is_pinned DESC, s.created_at, s.id, m.created_at, m.id LIMIT 1`,
    [bookId],
  );
  return row?.storage_key ?? null;
}

/**
 * Where the subject of a stored picture of the book is (a photo's file, or a video's poster frame), as its
 * processing found it; null when it was not found (or there is no such picture).
 */
export async function storedSubjectOf(q: Queryable, bookId: string, key: string): Promise<unknown> {
  const [row] = await q.query<{ subject: unknown }>(
    `SELECT subject FROM media WHERE book_id = $1 AND (storage_key = $2 OR thumbnail_key = $2) AND subject IS NOT NULL LIMIT 1`,
    [bookId, key],
  );
  return row?.subject ?? null;
}

/**
 * The photo the owner names for the cover (`settings.cover_media_id`): an
 * image of an approved memory of this book, processed and releasable; null otherwise.
 */
export async function namedCoverPhotoKey(q: Queryable, bookId: string, settings: Record<string, unknown> | null | undefined): Promise<string | null> {
  const id = settings?.cover_media_id;
  if (typeof id !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await q.query<{ storage_key: string; scan_result: ExportMedia['scan_result'] }>(
    `SELECT m.storage_key, m.scan_result FROM media m JOIN submissions s ON s.id = m.submission_id
     WHERE m.id = $1 AND m.book_id = $2 AND m.kind = 'image' AND m.processing_status = 'complete' AND s.status = 'approved'`,
    [id, bookId],
  );
  return row && isReleasable(row) ? row.storage_key : null;
}
