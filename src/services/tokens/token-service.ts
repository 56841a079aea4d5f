import { timingSafeEqual } from 'node:crypto';
import type { Db, Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { createBatchedLookup } from '../../db/batched-lookup.js';
import { uuidv7 } from '../../lib/ids.js';
import { randomBase62, sha256 } from '../../lib/secrets.js';
import type { UserRow } from '../users/user-types.js';

export const TOKEN_PREFIX = 'svc_live_';
const TOKEN_RE = /^svc_live_[0-9A-Za-z]{32,128}$/;

export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface BearerIdentity {
  user: UserRow;
  token: TokenRow;
}

/** Only well-formed keys reach the database. */
export function isTokenShaped(value: string): boolean {
  return TOKEN_RE.test(value);
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

type LookupRow = Record<string, unknown>;

/**
 * Bearer lookups, batched (see createBatchedLookup): under load one query
 * resolves the keys of many requests. Nothing is cached, so a revocation
 * committed before a request arrived is always seen.
 */
function createBearerLookup(db: Db): (hash: Buffer) => Promise<LookupRow | undefined> {
  return createBatchedLookup<Buffer, LookupRow>({
    id: (hash) => hash.toString('hex'),
    async run(hashes) {
      const rows = await db.query<LookupRow>(BEARER_LOOKUP_SQL, [hashes]);
      for (const row of rows) {
        if (row.t_revoked_at || !row.t_stale) continue;
        // Off the request path: a failed refresh must never fail the request.
        db.query(
          `UPDATE api_tokens SET last_used_at = now() WHERE id = $1 AND revoked_at IS NULL
             AND (last_used_at IS NULL OR last_used_at < now() - ${LAST_USED_RESOLUTION})`,
          [row.t_id],
        ).catch(() => {});
      }
      return new Map(rows.map((row) => [Buffer.from(row.t_hash as Uint8Array).toString('hex'), row]));
    },
  });
}

export function createTokenService(deps: { db: Db }) {
  const { db } = deps;
  const lookupBearer = createBearerLookup(db);
  return {
    /** Issues a key; the plaintext leaves this function once and is never stored. */
    async issueToken(q: Queryable, userId: string, name: string): Promise<{ token: TokenRow; plaintext: string }> {
      const plaintext = TOKEN_PREFIX + randomBase62(40);
      // A name the user already has on a live key is 409 name_taken, translated from api_tokens_user_name_key by the database layer.
      const token = (await one<TokenRow>(
        q,
        `INSERT INTO api_tokens (id, user_id, name, token_hash) VALUES ($1, $2, $3, $4)
         RETURNING id, user_id, name, created_at, last_used_at, revoked_at`,
        [uuidv7(), userId, name, sha256(plaintext)],
      ))!;
      return { token, plaintext };
    },

    /**
     * Resolves a bearer key. The lookup is by SHA-256 of the key (the index
     * never sees the secret) and the stored hash is compared in constant time.
     * Returns `revoked` for a known but revoked key, so the one route that
     * replays with a revoked key can tell it apart.
     */
    async authenticate(plaintext: string): Promise<(BearerIdentity & { revoked: boolean }) | undefined> {
      if (!isTokenShaped(plaintext)) return undefined;
      const hash = sha256(plaintext);
      const row = await lookupBearer(hash);
      // Both are SHA-256 digests, so the lengths match and one constant-time compare suffices.
      const stored = row?.t_hash as Uint8Array | undefined;
      if (!row || !stored || stored.length !== hash.length || !timingSafeEqual(stored, hash)) return undefined;
      const token: TokenRow = {
        id: row.t_id as string,
        user_id: row.id as string,
        name: row.t_name as string,
        created_at: row.t_created_at as string,
        last_used_at: row.t_last_used_at as string | null,
        revoked_at: row.t_revoked_at as string | null,
      };
      const user = { ...row, password_hash: null } as unknown as UserRow;
      return { user, token, revoked: token.revoked_at !== null };
    },

    /** Revokes one key (a no-op when already revoked) and returns when it was revoked. */
    async revokeToken(q: Queryable, tokenId: string): Promise<string> {
      const [row] = await q.query<{ revoked_at: string }>(
        `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING revoked_at`,
        [tokenId],
      );
      return row.revoked_at;
    },

    /** Revokes every live key of a user; web sessions are untouched. */
    async revokeAllTokens(q: Queryable, userId: string): Promise<number> {
      const rows = await q.query(`UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`, [userId]);
      return rows.length;
    },

    async listTokens(userId: string): Promise<TokenRow[]> {
      return db.query<TokenRow>(
        `SELECT id, user_id, name, created_at, last_used_at, revoked_at FROM api_tokens
         WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
        [userId],
      );
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
