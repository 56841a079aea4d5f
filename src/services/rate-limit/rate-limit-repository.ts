import type { Db } from '../../db/client.js';

/**
 * Counts one hit in `bucket`: the rate_limit_hit function (migrations/0005,
 * 0015), one statement that serialises its bucket with an advisory lock and
 * commits without waiting for its WAL flush.
 */
export async function hitBucket(db: Db, bucket: string, limit: number, windowSeconds: number) {
  const [r] = await db.query<{ allowed: boolean; wait_seconds: number; remaining: number }>(`SELECT * FROM rate_limit_hit($1, $2, $3, $4)`, [bucket, limit, windowSeconds, true]);
  return r;
}

/** The hits in `bucket`'s window now, and the seconds until the oldest leaves it; counts nothing. */
export async function peekBucket(db: Db, bucket: string, windowSeconds: number) {
  const [r] = await db.query<{ hits: number; wait_seconds: number | null }>(
    `SELECT count(*)::integer AS hits, EXTRACT(EPOCH FROM (min(hit_at) + make_interval(secs => $2) - clock_timestamp()))::double precision AS wait_seconds
     FROM rate_limit_hits WHERE bucket = $1 AND hit_at > clock_timestamp() - make_interval(secs => $2)`,
    [bucket, windowSeconds],
  );
  return r;
}

/** Drops hits older than the longest window. */
export async function pruneHits(db: Db, maxWindowSeconds: number): Promise<void> {
  await db.query(`DELETE FROM rate_limit_hits WHERE hit_at < clock_timestamp() - make_interval(secs => $1)`, [maxWindowSeconds]);
}
