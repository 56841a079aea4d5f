import type { Db, Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';

export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

// Refreshing last_used_at on every request would turn reads into writes; once a minute is plenty.
const LAST_USED_RESOLUTION = "interval '60 seconds'";

// A revoked key is found even when its account is gone: it authenticates nothing but the
// replay of its own stored answer (replayWithRevokedToken), such as POST /me/delete/'s.
const BEARER_LOOKUP_SQL = `SELECT t.id AS t_id, t.name AS t_name, t.token_hash AS t_hash, t.created_at AS t_created_at,
       t.last_used_at AS t_last_used_at, t.revoked_at AS t_revoked_at,
       (t.last_used_at IS NULL OR t.last_used_at < now() - ${LAST_USED_RESOLUTION}) AS t_stale,
       u.id, u.email, u.first_name, u.last_name, u.books_sort, u.phone_number, u.telegram_chat_id,
       u.telegram_username, u.imessage_identifier, u.is_staff, u.is_active, u.date_joined, u.updated_at
FROM api_tokens t JOIN users u ON u.id = t.user_id
WHERE t.token_hash = ANY ($1::bytea[]) AND ((u.deleted_at IS NULL AND u.is_active) OR t.revoked_at IS NOT NULL)`;

/** The keys with these hashes and their accounts (`t_*` the key's columns, `t_stale` when last_used_at wants a refresh), in one query. */
export function selectBearers(db: Db, hashes: Buffer[]) {
  return db.query<Record<string, unknown>>(BEARER_LOOKUP_SQL, [hashes]);
}

/** Moves a live key's last_used_at to now, unless it moved within the resolution. */
export async function touchLastUsed(db: Db, tokenId: string): Promise<void> {
  await db.query(
    `UPDATE api_tokens SET last_used_at = now() WHERE id = $1 AND revoked_at IS NULL
       AND (last_used_at IS NULL OR last_used_at < now() - ${LAST_USED_RESOLUTION})`,
    [tokenId],
  );
}

/** A name the user already has on a live key is 409 name_taken, translated from api_tokens_user_name_key by the database layer. */
export async function insertToken(q: Queryable, t: { id: string; userId: string; name: string; tokenHash: Buffer }): Promise<TokenRow> {
  return (await one<TokenRow>(
    q,
    `INSERT INTO api_tokens (id, user_id, name, token_hash) VALUES ($1, $2, $3, $4)
     RETURNING id, user_id, name, created_at, last_used_at, revoked_at`,
    [t.id, t.userId, t.name, t.tokenHash],
  ))!;
}

/** Revokes one key (a no-op when already revoked); answers when it was revoked. */
export async function revokeTokenById(q: Queryable, tokenId: string): Promise<string> {
  const [row] = await q.query<{ revoked_at: string }>(`UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING revoked_at`, [tokenId]);
  return row.revoked_at;
}

export async function revokeTokensOfUser(q: Queryable, userId: string): Promise<number> {
  const rows = await q.query(`UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`, [userId]);
  return rows.length;
}

export function selectLiveTokens(db: Db, userId: string): Promise<TokenRow[]> {
  return db.query<TokenRow>(
    `SELECT id, user_id, name, created_at, last_used_at, revoked_at FROM api_tokens
     WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
    [userId],
  );
}
