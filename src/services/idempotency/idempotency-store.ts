import { createHash } from 'node:crypto';
import type { Db, OpenTransaction, Queryable } from '../../db/client.js';
import { one, sqlLiteral } from '../../db/client.js';

import { IDEMPOTENCY_TTL_SECONDS } from './idempotency-ttl.js';

export { IDEMPOTENCY_TTL_SECONDS };

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type ClaimResult =
  | { kind: 'claimed'; tx: OpenTransaction }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_use' }
  | { kind: 'reused' };

interface KeyRow {
  fingerprint: string;
  response_status: number;
  response_headers: Record<string, string> | null;
  response_body: string;
}

/** The advisory lock that stands for (user, key) while its request runs: 64 bits of a digest, as a signed bigint. */
function lockKey(userId: string, key: string): string {
  return createHash('sha256').update(`idempotency\0${userId}\0${key}`).digest().readBigInt64BE(0).toString();
}

const toStored = (row: KeyRow): StoredResponse => ({ status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body });

/**
 * Idempotency keys, crash-safe. A request with a key runs inside one
 * transaction that holds a transaction-scoped advisory lock on (user, key):
 * its effect and its stored answer commit together, so a committed effect
 * always has its answer, and a crash before the commit leaves neither. The
 * lock dies with the transaction (and with the connection of a process that
 * died), so a retry right after a crash runs at once: it replays the
 * committed answer or runs the request once. Only answers are stored: there
 * is no "running" row to outlive its process.
 *
 * PGlite is one connection: every transaction waits for the one before it,
 * so there the lock is moot and a second request simply finds the answer.
 */
export function createIdempotencyStore(deps: { db: Db }) {
  const { db } = deps;

  async function find(q: Queryable, userId: string, key: string) {
    return one<KeyRow>(
      q,
      `SELECT fingerprint, response_status, response_headers, response_body FROM idempotency_keys
       WHERE user_id = $1 AND key = $2 AND expires_at > now()`,
      [userId, key],
    );
  }

  return {
    /**
     * Opens the request's transaction and claims (user, key) in it. On
     * 'claimed' the caller runs the request in `tx` and ends it with
     * `saveAnswer` + commit, or a rollback; on anything else nothing is open.
     */
    async claim(userId: string, key: string, fingerprint: string): Promise<ClaimResult> {
      // BEGIN, the claim and the savepoint in one round trip: the lock, then the stored answer read in
      // a statement of its own (migrations/0006_idempotency_claim.sql), then the point an error answer
      // rolls back to, so it is stored in the same transaction (unused when the key answers at once).
      const tx = await db.begin<{ locked: boolean } & Partial<KeyRow>>(
        `SELECT * FROM idempotency_claim(${sqlLiteral(userId)}::uuid, ${sqlLiteral(key)}, ${sqlLiteral(lockKey(userId, key))}::bigint); SAVEPOINT effect`,
      );
      try {
        const [claim] = tx.rows;
        if (!claim.locked) {
          await tx.rollback();
          return { kind: 'in_use' };
        }
        if (claim.fingerprint == null) return { kind: 'claimed', tx };
        const row = claim as KeyRow;
        await tx.rollback();
        return row.fingerprint === fingerprint ? { kind: 'replay', response: toStored(row) } : { kind: 'reused' };
      } catch (err) {
        await tx.rollback();
        throw err;
      }
    },

    /**
     * Stores the answer to replay, in `q`: the request's own transaction for
     * an answer that follows an effect; for an error answer (whose effect was
     * rolled back) a short transaction of its own. An expired row is replaced.
     */
    async saveAnswer(q: Queryable, userId: string, key: string, fingerprint: string, response: StoredResponse): Promise<void> {
      await q.query(
        `INSERT INTO idempotency_keys (user_id, key, fingerprint, response_status, response_headers, response_body, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
           response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body,
           created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()`,
        [userId, key, fingerprint, response.status, JSON.stringify(response.headers), response.body, IDEMPOTENCY_TTL_SECONDS],
      );
    },

    /**
     * The same INSERT as saveAnswer, as a statement with its values inlined,
     * for `tx.commit(script)`: the answer and COMMIT in one round trip.
     */
    answerScript(userId: string, key: string, fingerprint: string, response: StoredResponse): string {
      return `INSERT INTO idempotency_keys (user_id, key, fingerprint, response_status, response_headers, response_body, expires_at)
         VALUES (${sqlLiteral(userId)}::uuid, ${sqlLiteral(key)}, ${sqlLiteral(fingerprint)}, ${sqlLiteral(response.status)},
           ${sqlLiteral(JSON.stringify(response.headers))}::jsonb, ${sqlLiteral(response.body)}, now() + make_interval(secs => ${IDEMPOTENCY_TTL_SECONDS}))
         ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
           response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body,
           created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()`;
    },

    /** The stored answer under (user, key), whatever request it answered. */
    async find(userId: string, key: string): Promise<{ fingerprint: string; response: StoredResponse } | undefined> {
      const row = await find(db, userId, key);
      return row && { fingerprint: row.fingerprint, response: toStored(row) };
    },

    /** The stored answer for exactly this request, if any (a revoked key's replay, a deleted book's DELETE). */
    async lookup(userId: string, key: string, fingerprint: string): Promise<StoredResponse | undefined> {
      const row = await find(db, userId, key);
      return row && row.fingerprint === fingerprint ? toStored(row) : undefined;
    },

    /** Deletes expired keys (housekeeping). */
    async purgeExpired(): Promise<number> {
      const rows = await db.query(`DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1`);
      return rows.length;
    },
  };
}
export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
