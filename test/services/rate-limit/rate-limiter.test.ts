/**
 * The rate limiter's hit commits without waiting for its WAL flush when it
 * runs in a transaction of its own (migrations/0015), so a bucket's lock is
 * not held through a disk flush. That must never reach anyone else's
 * transaction: a request's own writes always commit durably.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../src/services/rate-limit/rate-limiter.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const setting = async (q: { query<R>(text: string): Promise<R[]> }) =>
  (await q.query<{ s: string }>(`SELECT current_setting('synchronous_commit') AS s`))[0].s;

describe('rate limit hits', () => {
  it('count in a sliding window and refuse past the limit, with the wait', async () => {
    const limiter = createRateLimiter({ db: database.db });
    const bucket = `test:${randomUUID()}`;
    expect(await limiter.hit(bucket, 2, 60)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 1 });
    expect(await limiter.hit(bucket, 2, 60)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 0 });
    const refused = await limiter.hit(bucket, 2, 60);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('commits its own transaction asynchronously, and only its own', async () => {
    const db = database.db;
    const own = await db.begin();
    try {
      await own.query(`SELECT * FROM rate_limit_hit($1, 10, 60, true)`, [`test:${randomUUID()}`]);
      expect(await setting(own)).toBe('off');
    } finally {
      await own.rollback();
    }
    const theirs = await db.begin();
    try {
      await theirs.query(`SELECT * FROM rate_limit_hit($1, 10, 60, false)`, [`test:${randomUUID()}`]);
      expect(await setting(theirs)).toBe('on');
    } finally {
      await theirs.rollback();
    }
    // The session itself is untouched once the transaction is over.
    expect(await setting(db)).toBe('on');
  });

  it('is refused from code holding a transaction, on both backends alike (a hit is counted before the request opens its own)', async () => {
    const db = database.db;
    const limiter = createRateLimiter({ db });
    const bucket = `test:${randomUUID()}`;
    await expect(db.transaction(async () => limiter.hit(bucket, 10, 60))).rejects.toThrow(/holds an open transaction/);
    // Nothing was counted, and the next hit outside any transaction is the first.
    expect((await limiter.hit(bucket, 10, 60)).remaining).toBe(9);
  });
});
