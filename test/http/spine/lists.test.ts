import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { backendName } from '../../helpers/test-db.js';

let t: TestApp;
let u: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  u = await newUser(t);
  for (let i = 0; i < 5; i++) await newBook(t, u, { title: `List ${i}` });
});

describe('list parameters', () => {
  it.each([
    ['limit', 'abc'],
    ['limit', '0'],
    ['limit', '201'],
    ['limit', '-1'],
    ['updated_since', 'yesterday'],
    ['updated_since', '2026-02-31T00:00:00Z'],
    ['cursor', 'garbage'],
    ['status', 'deleted'],
  ])('400 query_param_invalid with details {param, value} for %s=%s', async (param, value) => {
    const res = await t.get(`/api/v1/books/?${param}=${encodeURIComponent(value)}`, { token: u.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('query_param_invalid');
    expect(res.body.details).toEqual({ param, value });
  });

  it('limit defaults to 50 and accepts 1 and 200', async () => {
    expect((await t.get('/api/v1/books/?limit=1', { token: u.token })).body.items).toHaveLength(1);
    expect((await t.get('/api/v1/books/?limit=200', { token: u.token })).body.items).toHaveLength(5);
    expect((await t.get('/api/v1/books/', { token: u.token })).body.items).toHaveLength(5);
  });

  it('a tampered cursor, or one from another ordering, is 400', async () => {
    const first = await t.get('/api/v1/books/?limit=2', { token: u.token });
    const cursor: string = first.body.next_cursor;
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), v: ['2000-01-01T00:00:00.000000Z', '00000000-0000-7000-8000-000000000000'] })).toString('base64url');
    const tampered = await t.get(`/api/v1/books/?cursor=${encodeURIComponent(`${forged}.${mac}`)}`, { token: u.token });
    expect(tampered.status).toBe(400);
    expect(tampered.body.details.param).toBe('cursor');
    const otherOrdering = await t.get(`/api/v1/books/?updated_since=2000-01-01T00:00:00Z&cursor=${encodeURIComponent(cursor)}`, { token: u.token });
    expect(otherOrdering.status).toBe(400);
  });

  it('updated_since accepts ISO 8601 (with or without zone, with microseconds) and the HTTP-date from Last-Modified', async () => {
    const list = await t.get('/api/v1/books/', { token: u.token });
    const lm = list.headers['last-modified'] as string;
    expect(lm).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    for (const v of ['2000-01-01', '2000-01-01T00:00:00', '2000-01-01T00:00:00.123456Z', '2000-01-01T02:00:00+02:00', lm]) {
      const res = await t.get(`/api/v1/books/?updated_since=${encodeURIComponent(v)}`, { token: u.token });
      expect(res.status, v).toBe(200);
    }
  });

  it('updated_since returns rows changed at or after it, oldest change first, and composes with cursor', async () => {
    const all = await t.get('/api/v1/books/?updated_since=2000-01-01T00:00:00Z', { token: u.token });
    const stamps = all.body.items.map((b: { updated_at: string }) => b.updated_at);
    expect([...stamps].sort()).toEqual(stamps);
    const pivot = stamps[2];
    const since = await t.get(`/api/v1/books/?updated_since=${encodeURIComponent(pivot)}`, { token: u.token });
    expect(since.body.items.map((b: { updated_at: string }) => b.updated_at)).toEqual(stamps.slice(2));
    const p1 = await t.get(`/api/v1/books/?updated_since=2000-01-01T00:00:00Z&limit=3`, { token: u.token });
    const p2 = await t.get(`/api/v1/books/?updated_since=2000-01-01T00:00:00Z&limit=3&cursor=${encodeURIComponent(p1.body.next_cursor)}`, { token: u.token });
    expect([...p1.body.items, ...p2.body.items].map((b: { slug: string }) => b.slug)).toEqual(all.body.items.map((b: { slug: string }) => b.slug));
    expect(p2.body.has_more).toBe(false);
  });
});

describe('Last-Modified sync', () => {
  it('a client pinning updated_since to Last-Modified misses no row while writers run in parallel', async () => {
    const owner = await newUser(t);
    const slugs: string[] = [];
    for (let i = 0; i < 8; i++) slugs.push((await newBook(t, owner, { title: `Sync ${i}` })).slug);
    const seen = new Map<string, string>(); // slug → newest etag the client saw

    async function syncRound(since: string | null): Promise<string> {
      let cursor: string | null = null;
      let watermark = '';
      do {
        const qs = new URLSearchParams({ limit: '4' });
        if (since) qs.set('updated_since', since);
        if (cursor) qs.set('cursor', cursor);
        const res: any = await t.get(`/api/v1/books/?${qs}`, { token: owner.token });
        expect(res.status).toBe(200);
        if (!cursor) watermark = res.headers['last-modified'];
        for (const b of res.body.items) {
          const prev = seen.get(b.slug);
          if (!prev || b.updated_at >= prev.slice(1, -1)) seen.set(b.slug, b.etag);
        }
        cursor = res.body.next_cursor;
      } while (cursor);
      return watermark;
    }

    let stop = false;
    let writes = 0;
    // Over a second sometimes, longer than Last-Modified's rounding. PGlite runs one transaction at a
    // time, so there no write can straddle a read and long sleeps would only slow the suite.
    const slowMs = () => (backendName === 'postgres' ? 200 + Math.random() * 1400 : 20 + Math.random() * 60);
    // Slow writers: each transaction takes its updated_at (now()) at the start and commits later,
    // the case a naive "max(updated_at)" watermark gets wrong.
    const slowWriter = async (w: number) => {
      while (!stop) {
        const slug = slugs[(writes + w) % slugs.length];
        await t.db.transaction(async (tx) => {
          await tx.query(`UPDATE books SET subtitle = $2 WHERE slug = $1`, [slug, `w${w}-${writes}`]);
          await new Promise((r) => setTimeout(r, slowMs()));
        });
        writes++;
        // Writers pause between transactions so a paging client can reach the end of a round.
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const apiWriter = async () => {
      let i = 0;
      while (!stop) {
        await t.patch(`/api/v1/books/${slugs[i++ % slugs.length]}/`, { subtitle: `api-${i}` }, { token: owner.token });
        writes++;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const writers = [slowWriter(0), slowWriter(1), slowWriter(2), apiWriter()];

    let since: string | null = null;
    const started = Date.now();
    while (Date.now() - started < 3500) since = await syncRound(since);
    stop = true;
    await Promise.all(writers);
    // Two more rounds after the writers stop: the client must converge on the final state.
    since = await syncRound(since);
    await syncRound(since);

    expect(writes).toBeGreaterThan(10);
    const final = await t.db.query<{ slug: string; updated_at: string }>(`SELECT slug, updated_at FROM books WHERE slug = ANY($1)`, [slugs]);
    for (const row of final) expect(seen.get(row.slug), row.slug).toBe(`"${row.updated_at}"`);
  });
});
