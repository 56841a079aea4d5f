import type { Db } from '../../db/client.js';

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the oldest hit in the window leaves it (0 when allowed). */
  retryAfterSeconds: number;
  remaining: number;
}

/**
 * Sliding-window limiter kept in the database, so every server process
 * shares one count. A transaction-scoped advisory lock per bucket serialises
 * the count-then-insert, so two racing requests never both take the last slot.
 */
export function createRateLimiter(deps: { db: Db }) {
  const { db } = deps;
  return {
    /**
     * Counts one hit. It runs in a transaction of its own (db.autonomous),
     * so the bucket's lock is held for a moment, not for the whole request
     * the hit belongs to.
     */
    async hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
      return db.autonomous(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [bucket]);
        await tx.query(`DELETE FROM rate_limit_hits WHERE bucket = $1 AND hit_at <= clock_timestamp() - make_interval(secs => $2)`, [
          bucket,
          windowSeconds,
        ]);
        const [state] = await tx.query<{ n: number; wait: number | null }>(
          `SELECT count(*)::int AS n,
                  EXTRACT(EPOCH FROM (min(hit_at) + make_interval(secs => $2) - clock_timestamp()))::float8 AS wait
           FROM rate_limit_hits WHERE bucket = $1`,
          [bucket, windowSeconds],
        );
        if (state.n >= limit) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(state.wait ?? windowSeconds)), remaining: 0 };
        }
        await tx.query('INSERT INTO rate_limit_hits (bucket) VALUES ($1)', [bucket]);
        return { allowed: true, retryAfterSeconds: 0, remaining: limit - state.n - 1 };
      });
    },

    /** Drops hits that have left every window (called by the housekeeping timer). */
    async prune(maxWindowSeconds: number): Promise<void> {
      await db.query(`DELETE FROM rate_limit_hits WHERE hit_at < clock_timestamp() - make_interval(secs => $1)`, [maxWindowSeconds]);
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
