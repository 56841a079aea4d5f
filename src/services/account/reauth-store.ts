import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
import { hmac, randomBase62, safeEqual, sha256 } from '../../lib/secrets.js';

/** The contract's Limits table: a delete grant is single use and lives five minutes. */
export const REAUTH_GRANT_SECONDS = 300;
/** A one-time code: six digits, ten minutes, five attempts. */
export const REAUTH_CODE_SECONDS = 600;
export const REAUTH_CODE_ATTEMPTS = 5;
/** Step-up tries (password or code) per user: five per 15 minutes, then 429. */
export const REAUTH_TRIES = 5;
export const REAUTH_WINDOW_SECONDS = 900;

const GRANT_PREFIX = 'reauth_';
const GRANT_RE = /^reauth_[0-9A-Za-z]{40}$/;
const PURPOSE = 'delete_account';

export type CodeChannel = 'email' | 'sms';

/**
 * Step-up grants and one-time codes for account deletion. A grant is a
 * random 238-bit token kept as its SHA-256 (like API keys). A six-digit code
 * has too little entropy for a plain hash, and too few attempts for argon2
 * to matter: it is kept as an HMAC under SECRET_KEY bound to its row, and
 * compared in constant time.
 */
export function createReauthStore(deps: { secretKey: string }) {
  const codeHash = (id: string, code: string) => hmac(deps.secretKey, `reauth-code\0${id}\0${code}`);

  return {
    async issueGrant(q: Queryable, userId: string): Promise<{ reauth_token: string; expires_in: number }> {
      const token = GRANT_PREFIX + randomBase62(40);
      await q.query(
        `INSERT INTO reauth_grants (id, user_id, purpose, token_hash, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
        [uuidv7(), userId, PURPOSE, sha256(token), REAUTH_GRANT_SECONDS],
      );
      return { reauth_token: token, expires_in: REAUTH_GRANT_SECONDS };
    },

    /**
     * Spends the user's live grant with this token: its id, or undefined when
     * the token is unknown, another user's, spent or expired (all the same
     * answer to the caller). The row stays locked until the caller's
     * transaction ends, so two requests never spend one grant.
     */
    async spendGrant(q: Queryable, userId: string, token: string): Promise<string | undefined> {
      if (!GRANT_RE.test(token)) return undefined;
      const row = await one<{ id: string }>(
        q,
        `UPDATE reauth_grants SET used_at = now()
         WHERE token_hash = $1 AND user_id = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > now()
         RETURNING id`,
        [sha256(token), userId, PURPOSE],
      );
      return row?.id;
    },

    /** Whether the user holds a live grant with this token, spending nothing (a check before work that must not wait in a transaction). */
    async hasGrant(q: Queryable, userId: string, token: string): Promise<boolean> {
      if (!GRANT_RE.test(token)) return false;
      const row = await one<{ id: string }>(
        q,
        `SELECT id FROM reauth_grants WHERE token_hash = $1 AND user_id = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > now()`,
        [sha256(token), userId, PURPOSE],
      );
      return row !== undefined;
    },

    /**
     * Gives a spent grant back for the retry of a request that could not
     * finish (202 deletion_queued), with a fresh lifetime so a client that
     * waits the Retry-After still finds it alive.
     */
    async restoreGrant(q: Queryable, grantId: string): Promise<void> {
      await q.query(
        `UPDATE reauth_grants SET used_at = NULL, expires_at = GREATEST(expires_at, now() + make_interval(secs => $2)) WHERE id = $1`,
        [grantId, REAUTH_GRANT_SECONDS],
      );
    },

    /** A new code for the user; any earlier code of theirs stops working. Returns the plaintext to send. */
    async issueCode(q: Queryable, userId: string, channel: CodeChannel): Promise<{ code: string; expires_in: number }> {
      const id = uuidv7();
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await q.query(`DELETE FROM reauth_codes WHERE user_id = $1 AND purpose = $2`, [userId, PURPOSE]);
      await q.query(
        `INSERT INTO reauth_codes (id, user_id, purpose, channel, code_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
        [id, userId, PURPOSE, channel, codeHash(id, code), REAUTH_CODE_SECONDS],
      );
      return { code, expires_in: REAUTH_CODE_SECONDS };
    },

    /**
     * Checks a code against the user's live one. A wrong code uses one of its
     * attempts (the caller commits that even though it answers 403); the
     * right one is used up. False when there is no live code.
     */
    async useCode(q: Queryable, userId: string, code: string): Promise<boolean> {
      const row = await one<{ id: string; code_hash: Uint8Array }>(
        q,
        `SELECT id, code_hash FROM reauth_codes
         WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now() AND attempts < $3
         ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
        [userId, PURPOSE, REAUTH_CODE_ATTEMPTS],
      );
      if (!row) return false;
      const ok = safeEqual(Buffer.from(row.code_hash), codeHash(row.id, code.trim()));
      if (ok) await q.query(`UPDATE reauth_codes SET used_at = now() WHERE id = $1`, [row.id]);
      else await q.query(`UPDATE reauth_codes SET attempts = attempts + 1 WHERE id = $1`, [row.id]);
      return ok;
    },

    /** Drops the user's codes and spent grants (the account is gone). */
    async forget(q: Queryable, userId: string): Promise<void> {
      // A grant given back with a 202 stays until it expires: the retry it was given back for is answered done.
      await q.query(`DELETE FROM reauth_grants WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at <= now())`, [userId]);
      await q.query(`DELETE FROM reauth_codes WHERE user_id = $1`, [userId]);
    },
  };
}
export type ReauthStore = ReturnType<typeof createReauthStore>;
