import type { Db } from '../../db/client.js';
import { one } from '../../db/client.js';

export async function insertSession(db: Db, s: { id: string; userId: string; tokenHash: Buffer; ttlSeconds: number }): Promise<void> {
  await db.query(
    `INSERT INTO web_sessions (id, user_id, token_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [s.id, s.userId, s.tokenHash, s.ttlSeconds],
  );
}

/** The live session of this cookie hash with its account (active, not deleted): `s_id` and the user's columns. */
export function findLiveSession(db: Db, tokenHash: Buffer) {
  return one<Record<string, unknown>>(
    db,
    `SELECT s.id AS s_id, u.id, u.email, u.first_name, u.last_name, u.books_sort, u.phone_number,
            u.telegram_chat_id, u.telegram_username, u.imessage_identifier, u.is_staff, u.is_active,
            u.date_joined, u.updated_at
     FROM web_sessions s JOIN users u ON u.id = s.user_id
     WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > now()
       AND u.deleted_at IS NULL AND u.is_active`,
    [tokenHash],
  );
}

export async function endSessionByHash(db: Db, tokenHash: Buffer): Promise<void> {
  await db.query(`UPDATE web_sessions SET ended_at = now() WHERE token_hash = $1 AND ended_at IS NULL`, [tokenHash]);
}
