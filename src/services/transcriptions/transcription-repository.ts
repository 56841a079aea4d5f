import { one, type Queryable } from '../../db/client.js';
import type { TranscriptSegment } from '../../media-tools/transcriber.js';

export const TRANSCRIPTION_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

export interface TranscriptionRow {
  media_id: string;
  book_id: string;
  submission_id: string;
  status: TranscriptionStatus;
  language: string | null;
  text: string | null;
  segments: TranscriptSegment[];
  edited_text: string | null;
  failure_reason: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

const COLUMNS = `t.media_id, t.book_id, t.submission_id, t.status, t.language, t.text, t.segments, t.edited_text, t.failure_reason, t.attempts,
  t.created_at, t.updated_at, t.completed_at`;

export async function findTranscription(q: Queryable, mediaId: string, o: { forUpdate?: boolean } = {}): Promise<TranscriptionRow | undefined> {
  return one<TranscriptionRow>(q, `SELECT ${COLUMNS} FROM transcriptions t WHERE t.media_id = $1${o.forUpdate ? ' FOR UPDATE' : ''}`, [mediaId]);
}

/** The transcriptions of these media files (exports). */
export async function findTranscriptionsOfMedia(q: Queryable, mediaIds: string[]): Promise<TranscriptionRow[]> {
  if (!mediaIds.length) return [];
  return q.query<TranscriptionRow>(`SELECT ${COLUMNS} FROM transcriptions t WHERE t.media_id = ANY($1::uuid[])`, [mediaIds]);
}

/** A new request: inserted pending, or a failed one asked for again (back to pending, its attempts from 0; an edit stays). Undefined when one is under way or done. */
export async function requestTranscription(q: Queryable, m: { mediaId: string; bookId: string; submissionId: string; requestedBy: string | null }): Promise<TranscriptionRow | undefined> {
  return one<TranscriptionRow>(
    q,
    `INSERT INTO transcriptions AS t (media_id, book_id, submission_id, requested_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (media_id) DO UPDATE SET status = 'pending', attempts = 0, failure_reason = NULL, requested_by = EXCLUDED.requested_by
       WHERE t.status = 'failed'
     RETURNING ${COLUMNS}`,
    [m.mediaId, m.bookId, m.submissionId, m.requestedBy],
  );
}

/** Claims a run: pending or processing (a run cut off) becomes processing, one more attempt counted. */
export async function startAttempt(q: Queryable, mediaId: string): Promise<TranscriptionRow | undefined> {
  return one<TranscriptionRow>(
    q,
    `UPDATE transcriptions t SET status = 'processing', attempts = attempts + 1 WHERE media_id = $1 AND status IN ('pending', 'processing') RETURNING ${COLUMNS}`,
    [mediaId],
  );
}

export async function completeTranscription(q: Queryable, mediaId: string, r: { language: string | null; text: string; segments: TranscriptSegment[] }) {
  return one<TranscriptionRow>(
    q,
    `UPDATE transcriptions t SET status = 'completed', language = $2, text = $3, segments = $4::jsonb, failure_reason = NULL, completed_at = now()
     WHERE media_id = $1 AND status = 'processing' RETURNING ${COLUMNS}`,
    [mediaId, r.language, r.text, JSON.stringify(r.segments)],
  );
}

/** A provider failure that will be retried: back to pending with why (the next run's job is queued with it). */
export async function awaitRetry(q: Queryable, mediaId: string, reason: string) {
  return one<TranscriptionRow>(q, `UPDATE transcriptions t SET status = 'pending', failure_reason = $2 WHERE media_id = $1 AND status = 'processing' RETURNING ${COLUMNS}`, [
    mediaId,
    reason,
  ]);
}

export async function failTranscription(q: Queryable, mediaId: string, reason: string) {
  return one<TranscriptionRow>(
    q,
    `UPDATE transcriptions t SET status = 'failed', failure_reason = $2, completed_at = NULL WHERE media_id = $1 AND status IN ('pending', 'processing') RETURNING ${COLUMNS}`,
    [mediaId, reason],
  );
}

export async function editTranscription(q: Queryable, mediaId: string, text: string) {
  return one<TranscriptionRow>(q, `UPDATE transcriptions t SET edited_text = $2 WHERE media_id = $1 RETURNING ${COLUMNS}`, [mediaId, text]);
}

/** Runs that stopped without an outcome (their worker died on the last attempt): older than this, they are failed. */
export async function findStuckTranscriptions(q: Queryable, olderThanSeconds: number): Promise<string[]> {
  const rows = await q.query<{ media_id: string }>(
    `SELECT media_id FROM transcriptions WHERE status = 'processing' AND updated_at < now() - make_interval(secs => $1) LIMIT 100`,
    [olderThanSeconds],
  );
  return rows.map((r) => r.media_id);
}

/** Whether the book transcribes on arrival (settings.transcribe_automatically) and whether its plan lacks the feature (undefined: no such book). */
export async function findAutoTranscription(q: Queryable, bookId: string): Promise<{ auto: boolean; gated: boolean } | undefined> {
  const [book] = await q.query<{ auto: boolean; gated: boolean }>(
    `SELECT coalesce(b.settings->>'transcribe_automatically', 'false') = 'true' AS auto,
                coalesce(p.features->>'feature_transcription', 'false') <> 'true' AS gated
         FROM books b JOIN plans p ON p.slug = b.plan_slug WHERE b.id = $1`,
    [bookId],
  );
  return book;
}

/** The book's settings (for its language); undefined when the book is gone. */
export async function findBookSettings(q: Queryable, bookId: string): Promise<{ settings: Record<string, unknown> } | undefined> {
  const [book] = await q.query<{ settings: Record<string, unknown> }>('SELECT settings FROM books WHERE id = $1', [bookId]);
  return book;
}
