import type { Db } from '../../db/client.js';
import { one } from '../../db/client.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** A claim still 'running' after this long belongs to a request that died; it may be taken over. */
const ABANDONED_AFTER_SECONDS = 300;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_use' }
  | { kind: 'reused' };

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  expired: boolean;
  abandoned: boolean;
}

export function createIdempotencyStore(deps: { db: Db }) {
  const { db } = deps;

  return {
    /**
     * Claims (user, key) for a request with this fingerprint, atomically: the
     * INSERT either creates the claim or finds the existing row. An expired
     * or abandoned row is taken over with a conditional UPDATE, so of two
     * racing requests exactly one wins and the other sees 'in_use' or the replay.
     */
    async claim(userId: string, key: string, fingerprint: string): Promise<ClaimResult> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const inserted = await db.query(
          `INSERT INTO idempotency_keys (user_id, key, fingerprint, state, expires_at)
           VALUES ($1, $2, $3, 'running', now() + make_interval(secs => $4))
           ON CONFLICT (user_id, key) DO NOTHING RETURNING 1`,
          [userId, key, fingerprint, IDEMPOTENCY_TTL_SECONDS],
        );
        if (inserted.length) return { kind: 'claimed' };

        const row = await one<KeyRow>(
          db,
          `SELECT fingerprint, state, response_status, response_headers, response_body,
                  expires_at <= now() AS expired,
                  (state = 'running' AND created_at < now() - make_interval(secs => $3)) AS abandoned
           FROM idempotency_keys WHERE user_id = $1 AND key = $2`,
          [userId, key, ABANDONED_AFTER_SECONDS],
        );
        if (!row) continue; // released between our INSERT and SELECT: try again
        if (row.expired || (row.abandoned && row.fingerprint === fingerprint)) {
          const taken = await db.query(
            `UPDATE idempotency_keys SET fingerprint = $3, state = 'running', response_status = NULL,
               response_headers = NULL, response_body = NULL, created_at = now(),
               expires_at = now() + make_interval(secs => $4)
             WHERE user_id = $1 AND key = $2 AND fingerprint = $5 AND state = $6
               AND (expires_at <= now() OR (state = 'running' AND created_at < now() - make_interval(secs => $7)))
             RETURNING 1`,
            [userId, key, fingerprint, IDEMPOTENCY_TTL_SECONDS, row.fingerprint, row.state, ABANDONED_AFTER_SECONDS],
          );
          if (taken.length) return { kind: 'claimed' };
          continue;
        }
        if (row.fingerprint !== fingerprint) return { kind: 'reused' };
        if (row.state === 'running') return { kind: 'in_use' };
        return {
          kind: 'replay',
          response: { status: row.response_status!, headers: row.response_headers ?? {}, body: row.response_body ?? '' },
        };
      }
      return { kind: 'in_use' };
    },

    async complete(userId: string, key: string, response: StoredResponse): Promise<void> {
      await db.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_headers = $4, response_body = $5
         WHERE user_id = $1 AND key = $2 AND state = 'running'`,
        [userId, key, response.status, JSON.stringify(response.headers), response.body],
      );
    },

    /** Forgets a claim whose response is not to be replayed, so a retry with the key runs again. */
    async release(userId: string, key: string): Promise<void> {
      await db.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'running'`, [userId, key]);
    },

    async lookup(userId: string, key: string, fingerprint: string): Promise<StoredResponse | undefined> {
      const row = await one<KeyRow>(
        db,
        `SELECT fingerprint, state, response_status, response_headers, response_body, false AS expired, false AS abandoned
         FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'done' AND expires_at > now()`,
        [userId, key],
      );
      if (!row || row.fingerprint !== fingerprint) return undefined;
      return { status: row.response_status!, headers: row.response_headers ?? {}, body: row.response_body ?? '' };
    },

    /** Deletes expired keys (housekeeping). */
    async purgeExpired(): Promise<number> {
      const rows = await db.query(`DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1`);
      return rows.length;
    },
  };
}
export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
