import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser } from '../../helpers/factories.js';

const count = async (t: TestApp, slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]))[0].n;

describe('30 creates an hour per (user, IP), here lifted down to 3', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { SUBMISSION_RATE_LIMIT: '3' } });
  });

  it('the fourth create is 429 with an honest Retry-After; replays never count; the 429 is not stored', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const url = `/api/v1/books/${slug}/submissions/`;
    const firstKey = crypto.randomUUID();
    const first = await t.post(url, { text_content: 'one' }, { token: owner.token, idempotencyKey: firstKey });
    expect(first.status).toBe(201);
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    // Replays are answered before the limiter.
    for (let i = 0; i < 3; i++) {
      const replay = await t.post(url, { text_content: 'one' }, { token: owner.token, idempotencyKey: firstKey });
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
    expect((await t.post(url, { text_content: 'two' }, { token: owner.token })).headers['x-ratelimit-remaining']).toBe('1');
    expect((await t.post(url, { text_content: 'three' }, { token: owner.token })).headers['x-ratelimit-remaining']).toBe('0');

    const key = crypto.randomUUID();
    const limited = await t.post(url, { text_content: 'four' }, { token: owner.token, idempotencyKey: key });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited', details: { limit: 3, window_seconds: 3600 } });
    const retryAfter = Number(limited.headers['retry-after']);
    // The oldest of the three hits leaves the window in just under an hour.
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const again = await t.post(url, { text_content: 'four' }, { token: owner.token, idempotencyKey: key });
    expect(again.status).toBe(429);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    // A replay still answers while limited.
    expect((await t.post(url, { text_content: 'one' }, { token: owner.token, idempotencyKey: firstKey })).status).toBe(201);
    expect(await count(t, slug)).toBe(3);
  });

  it('the bucket is per user and per IP, across books', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const slugs = [(await newBook(t, owner, { plan: 'plus' })).slug, (await newBook(t, owner, { plan: 'plus' })).slug];
    await addMember(t, slugs[0], admin, 'admin');
    for (const i of [0, 1, 0]) expect((await t.post(`/api/v1/books/${slugs[i]}/submissions/`, { text_content: 'x' }, { token: owner.token })).status).toBe(201);
    expect((await t.post(`/api/v1/books/${slugs[1]}/submissions/`, { text_content: 'x' }, { token: owner.token })).status).toBe(429);
    // Another user from the same address has their own count.
    expect((await t.post(`/api/v1/books/${slugs[0]}/submissions/`, { text_content: 'x' }, { token: admin.token })).status).toBe(201);
    // The same user from another address too.
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: `/api/v1/books/${slugs[0]}/submissions/`,
      remoteAddress: '203.0.113.9',
      headers: { authorization: `Bearer ${owner.token}`, 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
      payload: JSON.stringify({ text_content: 'x' }),
    });
    expect(elsewhere.statusCode).toBe(201);
  });
});

describe('Retry-After is honest', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { SUBMISSION_RATE_LIMIT: '1', SUBMISSION_RATE_WINDOW_SECONDS: '2' } });
  });

  it('waiting Retry-After seconds and retrying with the same key succeeds', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const url = `/api/v1/books/${slug}/submissions/`;
    expect((await t.post(url, { text_content: 'first' }, { token: owner.token })).status).toBe(201);
    const key = crypto.randomUUID();
    const limited = await t.post(url, { text_content: 'second' }, { token: owner.token, idempotencyKey: key });
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    // The limiter reads the database clock: age the recorded hits by Retry-After instead of sleeping it.
    await t.db.query(`UPDATE rate_limit_hits SET hit_at = hit_at - make_interval(secs => $1)`, [wait]);
    const retried = await t.post(url, { text_content: 'second' }, { token: owner.token, idempotencyKey: key });
    expect(retried.status).toBe(201);
    expect(await count(t, slug)).toBe(2);
  });
});
