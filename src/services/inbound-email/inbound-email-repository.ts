import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { MailVerdict } from '../../mail/mail-authentication.js';

export interface InboundEmailRow {
  id: string;
  book_id: string;
  slug: string;
  received_via: 'smtp' | 'webhook';
  spool_key: string | null;
  auth: MailVerdict;
  outcome: string;
  processed_at: string | null;
}

/**
 * Records one message for one book; false when this book has it already
 * (the same Message-ID or body hash). A concurrent twin waits on the unique
 * index until the first commits, then sees it: exactly one goes on.
 */
export async function insertInboundEmail(
  q: Queryable,
  r: { id: string; bookId: string; dedupeKey: string; via: 'smtp' | 'webhook'; spoolKey: string | null; sizeBytes: number; auth: MailVerdict; outcome: string; processed: boolean },
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO inbound_emails (id, book_id, dedupe_key, received_via, spool_key, size_bytes, auth, outcome, processed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, CASE WHEN $9::boolean THEN now() END)
     ON CONFLICT (book_id, dedupe_key) DO NOTHING RETURNING id`,
    [r.id, r.bookId, r.dedupeKey, r.via, r.spoolKey, r.sizeBytes, JSON.stringify(r.auth), r.outcome, r.processed],
  );
  return rows.length > 0;
}

export function findInboundEmail(q: Queryable, id: string) {
  return one<InboundEmailRow>(
    q,
    `SELECT e.id, e.book_id, b.slug, e.received_via, e.spool_key, e.auth, e.outcome, e.processed_at
     FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE e.id = $1`,
    [id],
  );
}

/**
 * Locks every row that shares this message's spool (one message sent to
 * several books), in id order: the jobs of one message run one after
 * another, so the last one to finish sees the others done and frees the spool.
 */
export async function lockSpoolRows(q: Queryable, spoolKey: string): Promise<{ id: string; processed_at: string | null }[]> {
  return q.query(`SELECT id, processed_at FROM inbound_emails WHERE spool_key = $1 ORDER BY id FOR UPDATE`, [spoolKey]);
}

export async function finishInboundEmail(q: Queryable, id: string, outcome: string, submissionId: string | null): Promise<void> {
  await q.query(`UPDATE inbound_emails SET outcome = $2, submission_id = $3, processed_at = now() WHERE id = $1`, [id, outcome, submissionId]);
}

/** The live account with this address (compared case-insensitively), and its role in the book if it is a member. */
export function findSenderAccount(q: Queryable, bookId: string, email: string) {
  return one<{ id: string; email: string; role: string | null }>(
    q,
    `SELECT u.id, u.email, m.role FROM users u LEFT JOIN book_members m ON m.book_id = $1 AND m.user_id = u.id
     WHERE lower(u.email) = $2 AND u.deleted_at IS NULL ORDER BY u.date_joined LIMIT 1`,
    [bookId, email.toLowerCase()],
  );
}
