import { timingSafeEqual } from 'node:crypto';
import type { Db, Queryable } from '../../db/client.js';
import { createBatchedLookup } from '../../db/batched-lookup.js';
import { uuidv7 } from '../../lib/ids.js';
import { randomBase62, sha256 } from '../../lib/secrets.js';
import type { UserRow } from '../users/user-types.js';
import { insertToken, revokeTokenById, revokeTokensOfUser, selectBearers, selectLiveTokens, touchLastUsed, type TokenRow } from './token-repository.js';

export const TOKEN_PREFIX = 'svc_live_';
const TOKEN_RE = /^svc_live_[0-9A-Za-z]{32,128}$/;

export type { TokenRow };

export interface BearerIdentity {
  user: UserRow;
  token: TokenRow;
}

/** Only well-formed keys reach the database. */
export function isTokenShaped(value: string): boolean {
  return TOKEN_RE.test(value);
}

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
      const rows = await selectBearers(db, hashes);
      for (const row of rows) {
        if (row.t_revoked_at || !row.t_stale) continue;
        // Off the request path: a failed refresh must never fail the request.
        touchLastUsed(db, row.t_id as string).catch(() => {});
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
      const token = await insertToken(q, { id: uuidv7(), userId, name, tokenHash: sha256(plaintext) });
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
      return revokeTokenById(q, tokenId);
    },

    /** Revokes every live key of a user; web sessions are untouched. */
    async revokeAllTokens(q: Queryable, userId: string): Promise<number> {
      return revokeTokensOfUser(q, userId);
    },

    async listTokens(userId: string): Promise<TokenRow[]> {
      return selectLiveTokens(db, userId);
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
