import type { Db } from '../../db/client.js';
import { hitBucket, peekBucket, pruneHits } from './rate-limit-repository.js';

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the oldest hit in the window leaves it (0 when allowed). */
  retryAfterSeconds: number;
  remaining: number;
}

/**
 * Sliding-window limiter kept in the database, so every server process
 * shares one count (see migrations/0005_rate_limit_hit.sql).
 */
export function createRateLimiter(deps: { db: Db }) {
  const { db } = deps;
  return {
    /**
     * Counts one hit: one statement (the rate_limit_hit function, which
     * serialises its bucket with an advisory lock), always a transaction of
     * its own, on both backends: the bucket is held for a moment, not for a
     * whole request, so callers count before they open theirs (a caller
     * holding one is refused by the Db). It commits without waiting for its
     * WAL flush (migrations/0015_rate_limit_async_commit.sql).
     */
    async hit(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
      const r = await hitBucket(db, bucket, limit, windowSeconds);
      if (!r.allowed) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(r.wait_seconds)), remaining: 0 };
      return { allowed: true, retryAfterSeconds: 0, remaining: r.remaining };
    },

    /**
     * Whether `bucket` is over its limit now, counting nothing: for limits on
     * failures, checked before the work that may fail and hit after it fails.
     */
    async peek(bucket: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
      const r = await peekBucket(db, bucket, windowSeconds);
      if (r.hits >= limit) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(r.wait_seconds ?? 1)), remaining: 0 };
      return { allowed: true, retryAfterSeconds: 0, remaining: limit - r.hits };
    },

    /** Drops hits that have left every window (called by the housekeeping timer). */
    async prune(maxWindowSeconds: number): Promise<void> {
      await pruneHits(db, maxWindowSeconds);
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
