import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { newUser, type TestUser } from '../helpers/factories.js';

// GET /books/ in activity order (the default books_sort) must read a page's books, not every book of
// the caller, on whatever plan the database picks: with no planner statistics (PGlite has no
// autovacuum; the test server runs without it) and with them (issue 44).

let t: TestApp;
let owner: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  owner = await newUser(t);
  // A thousand books, active a minute apart (as the bench seeds them): ten to a ten-minute bucket.
  await t.db.query(
    `INSERT INTO books (id, slug, owner_id, title, theme, plan_slug, created_at, updated_at, last_activity_at)
     SELECT gen_random_uuid(), 'plan-book-' || i, $1, 'Plan book ' || i, 'elegant_classic', 'free',
            now() - i * interval '1 minute', now() - i * interval '1 minute', now() - i * interval '1 minute'
     FROM generate_series(1, 1000) AS i`,
    [owner.user.id],
  );
  await t.db.query(`INSERT INTO book_members (book_id, user_id, role) SELECT id, $1, 'owner' FROM books WHERE owner_id = $1`, [owner.user.id]);
});
afterAll(() => t.close());

/** Asks for a page over HTTP and returns its slugs, its next cursor and the page statement the service sent (watched on the app's own Db). */
async function page(cursor?: string) {
  const sent: { text: string; params: unknown[] }[] = [];
  const db = t.db as { sharedRead: (text: string, params: unknown[]) => Promise<unknown> };
  const sharedRead = db.sharedRead;
  db.sharedRead = (text, params) => {
    sent.push({ text, params });
    return sharedRead.call(t.db, text, params);
  };
  try {
    const res = await t.get('/api/v1/books/', { token: owner.token, query: { limit: '50', ...(cursor ? { cursor } : {}) } });
    expect(res.status).toBe(200);
    const statement = sent.find((s) => s.text.includes('book_members'));
    expect(statement).toBeDefined();
    return { slugs: res.body.items.map((b: { slug: string }) => b.slug) as string[], next: res.body.next_cursor as string, statement: statement! };
  } finally {
    db.sharedRead = sharedRead;
  }
}

/** Runs the statement on a generic plan (as the service's prepared statements run) under EXPLAIN ANALYZE: the books rows it read. */
async function booksRead(statement: { text: string; params: unknown[] }): Promise<number> {
  const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);
  const [{ plan }] = await t.db.transaction(async (tx) => {
    await tx.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
    await tx.query(`PREPARE book_page AS ${statement.text}`);
    const rows = await tx.query<Record<string, unknown>>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE book_page(${statement.params.map(literal).join(', ')})`);
    await tx.query('DEALLOCATE book_page');
    return rows.map((r) => ({ plan: r['QUERY PLAN'] }));
  });
  let books = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node['Relation Name'] === 'books') books += Number(node['Actual Rows']) * Number(node['Actual Loops'] ?? 1);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: Record<string, unknown> }[])[0].Plan);
  return books;
}

const slugs = (from: number, n: number) => Array.from({ length: n }, (_, i) => `plan-book-${from + i}`);

async function expectBoundedPages() {
  const first = await page();
  expect(first.slugs).toEqual(slugs(1, 50));
  // 51 rows asked: the page's books and the rest of the ten-minute bucket holding its last row.
  expect(await booksRead(first.statement)).toBeLessThanOrEqual(51 + 10);
  const second = await page(first.next);
  expect(second.slugs).toEqual(slugs(51, 50));
  // From a cursor: also the rest of the cursor's own bucket.
  expect(await booksRead(second.statement)).toBeLessThanOrEqual(51 + 20);
  const deep = await page((await page((await page(second.next)).next)).next);
  expect(deep.slugs).toEqual(slugs(201, 50));
}

it('reads a page of books, not every book, without planner statistics', async () => {
  const stats = await t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = current_schema() AND tablename IN ('books', 'book_members')`,
  );
  expect(stats[0].n).toBe(0);
  await expectBoundedPages();
});

it('and with them', async () => {
  await t.db.query('ANALYZE books');
  await t.db.query('ANALYZE book_members');
  await expectBoundedPages();
});
