import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';

export type UploadField = 'photo' | 'media';

export interface TicketRow {
  id: string;
  book_id: string;
  submission_id: string | null;
  field: UploadField;
  upload_id: string | null;
  upload_length: string | null;
  expires_at: Date;
  finished_at: Date | null;
}

const COLUMNS = 'id, book_id, submission_id, field, upload_id, upload_length, expires_at, finished_at';

export async function insertTicket(q: Queryable, t: { id: string; tokenHash: string; bookId: string; submissionId: string; field: UploadField; expiresInSeconds: number }) {
  await q.query(
    `INSERT INTO web_upload_tickets (id, token_hash, book_id, submission_id, field, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [t.id, t.tokenHash, t.bookId, t.submissionId, t.field, t.expiresInSeconds],
  );
}

/** A live ticket of this book by its token's hash (not expired, its memory still there). */
export function findTicketByToken(q: Queryable, bookId: string, tokenHash: string, o: { forUpdate?: boolean } = {}) {
  return one<TicketRow>(
    q,
    `SELECT ${COLUMNS} FROM web_upload_tickets
      WHERE token_hash = $1 AND book_id = $2 AND expires_at > now() AND submission_id IS NOT NULL${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenHash, bookId],
  );
}

/** The live ticket an upload sends the file of, in this book. */
export function findTicketByUpload(q: Queryable, bookId: string, uploadId: string, o: { forUpdate?: boolean } = {}) {
  return one<TicketRow>(
    q,
    `SELECT ${COLUMNS} FROM web_upload_tickets
      WHERE upload_id = $1 AND book_id = $2 AND expires_at > now() AND submission_id IS NOT NULL${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [uploadId, bookId],
  );
}

export async function bindUpload(q: Queryable, ticketId: string, uploadId: string, length: number) {
  await q.query(`UPDATE web_upload_tickets SET upload_id = $2, upload_length = $3 WHERE id = $1`, [ticketId, uploadId, length]);
}

/** The upload no longer sends this ticket's file (refused, or its parts gone): a new one may start. */
export async function unbindUpload(q: Queryable, uploadId: string) {
  await q.query(`UPDATE web_upload_tickets SET upload_id = NULL, upload_length = NULL WHERE upload_id = $1 AND finished_at IS NULL`, [uploadId]);
}

export async function markFinished(q: Queryable, ticketId: string, mediaId: string) {
  await q.query(`UPDATE web_upload_tickets SET finished_at = now(), media_id = $2 WHERE id = $1`, [ticketId, mediaId]);
}

/** Removes tickets past their expiry (or whose memory is gone), returning the uploads they left unfinished. */
export async function deleteExpiredTickets(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ upload_id: string | null; finished_at: Date | null }>(
    `DELETE FROM web_upload_tickets WHERE expires_at <= now() OR submission_id IS NULL RETURNING upload_id, finished_at`,
  );
  return rows.filter((r) => r.upload_id && !r.finished_at).map((r) => r.upload_id!);
}
