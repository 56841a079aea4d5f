import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';

/** Where the account's deletion stands; `forUpdate` locks the user row for the rest of the caller's transaction. */
export async function findDeletionState(q: Queryable, userId: string, o: { forUpdate?: boolean } = {}) {
  return one<{ deleted_at: string | null; deletion_requested_at: string | null }>(
    q,
    `SELECT deleted_at, deletion_requested_at FROM users WHERE id = $1${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [userId],
  );
}

/**
 * Personal data off the user row, with a unique tombstone email (so the
 * address can sign up again); the account marked deleted. False when it
 * already was.
 */
export async function scrubUser(q: Queryable, userId: string): Promise<boolean> {
  const row = await one<{ id: string }>(
    q,
    `UPDATE users SET email = 'deleted-' || id || '@invalid', password_hash = NULL, first_name = '', last_name = '',
       phone_number = NULL, telegram_chat_id = NULL, telegram_username = NULL, imessage_identifier = NULL,
       is_staff = false, is_active = false, deleted_at = now(), deletion_requested_at = NULL
     WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
    [userId],
  );
  return row !== undefined;
}

export async function endWebSessions(q: Queryable, userId: string): Promise<void> {
  await q.query(`UPDATE web_sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL`, [userId]);
}

/** The deletion waits for the backups' erasure (the first request's time is kept). */
export async function markDeletionRequested(q: Queryable, userId: string): Promise<void> {
  await q.query(`UPDATE users SET deletion_requested_at = COALESCE(deletion_requested_at, now()) WHERE id = $1`, [userId]);
}

/** Accounts whose deletion still waits for the backups' erasure. */
export async function findAccountsAwaitingErasure(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ id: string }>(`SELECT id FROM users WHERE deletion_requested_at IS NOT NULL AND deleted_at IS NULL ORDER BY id`);
  return rows.map((r) => r.id);
}

/** Deleted accounts whose purge has not finished though it was due over an hour ago. */
export async function findAccountsAwaitingPurge(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM users WHERE deleted_at IS NOT NULL AND purged_at IS NULL AND deleted_at < now() - interval '1 hour' ORDER BY id`,
  );
  return rows.map((r) => r.id);
}

export async function markPurged(q: Queryable, userId: string): Promise<void> {
  await q.query(`UPDATE users SET purged_at = now() WHERE id = $1`, [userId]);
}

/** The live books the user is a member of without owning them. */
export async function findJoinedBookIds(q: Queryable, userId: string): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT b.id FROM book_members m JOIN books b ON b.id = m.book_id AND b.deleted_at IS NULL WHERE m.user_id = $1 AND m.role <> 'owner' ORDER BY b.id`,
    [userId],
  );
  return rows.map((r) => r.id);
}

/** The live books the user owns. */
export async function findOwnedBookIds(q: Queryable, userId: string): Promise<string[]> {
  const rows = await q.query<{ id: string }>(`SELECT id FROM books WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY id`, [userId]);
  return rows.map((r) => r.id);
}

/**
 * A deleted user's history: memberships (but ownerships, which go with their
 * books), audit trail (but the deletion's own event), stored answers from
 * before the deletion (its own answer stays, so a retry still replays it),
 * sessions, and key names.
 */
export async function deleteUserHistory(q: Queryable, userId: string, deletedAt: string): Promise<void> {
  await q.query(`DELETE FROM book_members WHERE user_id = $1 AND role <> 'owner'`, [userId]);
  await q.query(`DELETE FROM audit_events WHERE user_id = $1 AND event <> 'account_deleted'`, [userId]);
  await q.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND created_at < $2`, [userId, deletedAt]);
  await q.query(`DELETE FROM web_sessions WHERE user_id = $1`, [userId]);
  await q.query(`UPDATE api_tokens SET name = 'deleted', last_used_at = NULL WHERE user_id = $1`, [userId]);
}

/** Remembers the key a 202 deletion_queued was answered under (its retry comes with it). */
export async function rememberDeletionKey(q: Queryable, userId: string, key: { key: string; fingerprint: string }): Promise<void> {
  await q.query(`INSERT INTO account_deletion_keys (user_id, key, fingerprint) VALUES ($1, $2, $3) ON CONFLICT (user_id, key) DO NOTHING`, [
    userId,
    key.key,
    key.fingerprint,
  ]);
}

/**
 * As the deletion finishes: every key a 202 was answered under gets the
 * deletion's answer to replay (for 24 hours, like every stored answer). A key
 * whose request is finishing the deletion right now stores the same answer itself;
 * an expired answer left under the key is replaced, as saveAnswer does.
 */
export async function answerDeletionKeys(q: Queryable, userId: string, answer: { status: number; headers: Record<string, string>; body: string; ttlSeconds: number }): Promise<void> {
  await q.query(
    `WITH pending AS (DELETE FROM account_deletion_keys WHERE user_id = $1 RETURNING user_id, key, fingerprint)
     INSERT INTO idempotency_keys (user_id, key, fingerprint, response_status, response_headers, response_body, expires_at)
     SELECT user_id, key, fingerprint, $2, $3::jsonb, $4, now() + make_interval(secs => $5) FROM pending
     ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
       response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body,
       created_at = now(), expires_at = EXCLUDED.expires_at
     WHERE idempotency_keys.expires_at <= now()`,
    [userId, answer.status, JSON.stringify(answer.headers), answer.body, answer.ttlSeconds],
  );
}
