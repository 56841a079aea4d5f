import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { sha256 } from '../../lib/secrets.js';
import type { MailStream } from './mail-stream-types.js';

/** Records that the user left the stream; false when they had left it before. */
export async function insertOptOut(q: Queryable, userId: string, stream: MailStream): Promise<boolean> {
  const inserted = await q.query(
    `INSERT INTO mail_stream_optouts (user_id, stream) VALUES ($1, $2) ON CONFLICT (user_id, stream) DO NOTHING RETURNING stream`,
    [userId, stream],
  );
  return inserted.length > 0;
}

/** Claims (user, stream, period) for one mail; false when it was claimed before. */
export async function claimStreamSend(q: Queryable, userId: string, stream: MailStream, period: string): Promise<boolean> {
  const claimed = await q.query(
    `INSERT INTO mail_stream_sends (user_id, stream, period) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING period`,
    [userId, stream, period],
  );
  return claimed.length > 0;
}

/** The live user an unsubscribe token of this stream belongs to (the token as sent, in plaintext). */
export async function findTokenUser(q: Queryable, token: string, stream: MailStream): Promise<string | undefined> {
  const row = await one<{ user_id: string }>(
    q,
    `SELECT t.user_id FROM mail_unsubscribe_tokens t JOIN users u ON u.id = t.user_id AND u.deleted_at IS NULL
     WHERE t.token_hash = $1 AND t.stream = $2`,
    [sha256(token.toLowerCase()), stream],
  );
  return row?.user_id;
}

export async function insertUnsubscribeToken(q: Queryable, token: string, userId: string, stream: MailStream): Promise<void> {
  await q.query(`INSERT INTO mail_unsubscribe_tokens (token_hash, user_id, stream) VALUES ($1, $2, $3)`, [sha256(token), userId, stream]);
}

/** Whether the account is live and has not left the stream. */
export async function streamOpenTo(q: Queryable, userId: string, stream: string): Promise<boolean> {
  const row = await one<{ ok: boolean }>(
    q,
    `SELECT NOT EXISTS (SELECT 1 FROM mail_stream_optouts o WHERE o.user_id = u.id AND o.stream = $2) AS ok
     FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL AND u.is_active`,
    [userId, stream],
  );
  return row?.ok === true;
}

export async function findLiveUser(q: Queryable, userId: string) {
  return one<{ email: string; first_name: string }>(q, `SELECT email, first_name FROM users WHERE id = $1 AND deleted_at IS NULL`, [userId]);
}

/**
 * Per owner or admin (live, still in digests) and book: the memories that
 * arrived in [from, to), with the pending among them, ordered by user.
 */
export async function findDigestRows(q: Queryable, from: string, to: string) {
  return q.query<{ user_id: string; email: string; first_name: string; book_id: string; title: string; new_count: number; pending_count: number }>(
    `SELECT m.user_id, u.email, u.first_name, b.id AS book_id, b.title,
            count(*)::int AS new_count, count(*) FILTER (WHERE s.status = 'pending')::int AS pending_count
     FROM book_members m
     JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL AND u.is_active AND u.email IS NOT NULL
     JOIN books b ON b.id = m.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
     JOIN submissions s ON s.book_id = b.id AND s.created_at >= $1 AND s.created_at < $2
     WHERE m.role IN ('owner', 'admin')
       AND NOT EXISTS (SELECT 1 FROM mail_stream_optouts o WHERE o.user_id = m.user_id AND o.stream = 'digests')
     GROUP BY m.user_id, u.email, u.first_name, b.id, b.title
     ORDER BY m.user_id, b.title, b.id`,
    [from, to],
  );
}

/** The three newest memories of each book that arrived in [from, to). */
export async function findDigestExcerpts(q: Queryable, bookIds: string[], from: string, to: string) {
  return q.query<{ book_id: string; contributor_name: string | null; text_content: string }>(
    `SELECT book_id, contributor_name, text_content FROM (
       SELECT s.book_id, s.contributor_name, s.text_content,
              row_number() OVER (PARTITION BY s.book_id ORDER BY s.created_at DESC, s.id DESC) AS n
       FROM submissions s WHERE s.book_id = ANY ($1::uuid[]) AND s.created_at >= $2 AND s.created_at < $3
     ) x WHERE n <= 3`,
    [bookIds, from, to],
  );
}

/** Active books with no new memory for `quietDays`, whose live owner still takes activity reminders. */
export async function findQuietBooks(q: Queryable, quietDays: number) {
  return q.query<{ book_id: string; slug: string; is_public: boolean; form_key: string; title: string; owner_id: string; email: string; first_name: string; last_memory_at: string | null }>(
    `SELECT b.id AS book_id, b.slug, b.is_public, b.form_key, b.title, b.owner_id, u.email, u.first_name, last.at AS last_memory_at
     FROM books b
     JOIN users u ON u.id = b.owner_id AND u.deleted_at IS NULL AND u.is_active
     LEFT JOIN LATERAL (SELECT max(s.created_at) AS at FROM submissions s WHERE s.book_id = b.id) last ON true
     WHERE b.deleted_at IS NULL AND b.deletion_requested_at IS NULL AND b.status = 'active'
       AND COALESCE(last.at, b.created_at) < now() - make_interval(days => $1)
       AND NOT EXISTS (SELECT 1 FROM mail_stream_optouts o WHERE o.user_id = b.owner_id AND o.stream = 'activity_reminders')
     ORDER BY b.id`,
    [quietDays],
  );
}

/** The user's unsubscribe links stop working (their account is being deleted). */
export async function deleteUnsubscribeTokens(q: Queryable, userId: string): Promise<void> {
  await q.query(`DELETE FROM mail_unsubscribe_tokens WHERE user_id = $1`, [userId]);
}

/** Everything the streams kept about a user: streams left, mail sent, unsubscribe links. */
export async function deleteUserStreamData(q: Queryable, userId: string): Promise<void> {
  await q.query(`DELETE FROM mail_stream_optouts WHERE user_id = $1`, [userId]);
  await q.query(`DELETE FROM mail_stream_sends WHERE user_id = $1`, [userId]);
  await deleteUnsubscribeTokens(q, userId);
}
