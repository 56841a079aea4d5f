import { afterAll, beforeAll, expect, it } from 'vitest';
import { analyzeChangedTables } from '../../src/db/statistics.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { newUser, type TestUser } from '../helpers/factories.js';
import { backendName } from '../helpers/test-db.js';

let t: TestApp;
let owner: TestUser;
beforeAll(async () => {
  t = await buildTestApp({ worker: true });
  owner = await newUser(t);
});
afterAll(() => t.close());

/** A thousand books of the owner's, active a minute apart (as the bench seeds them). */
async function thousandBooks() {
  await t.db.query(
    `INSERT INTO books (id, slug, owner_id, title, theme, plan_slug, created_at, updated_at, last_activity_at)
     SELECT gen_random_uuid(), 'stats-book-' || i, $1, 'Stats book ' || i, 'elegant_classic', 'free',
            now() - i * interval '1 minute', now() - i * interval '1 minute', now() - i * interval '1 minute'
     FROM generate_series(1, 1000) AS i`,
    [owner.user.id],
  );
  await t.db.query(`INSERT INTO book_members (book_id, user_id, role) SELECT id, $1, 'owner' FROM books WHERE owner_id = $1`, [owner.user.id]);
}

/** The books rows GET /books/ reads for its first page in activity order, on the plan the service's prepared statement runs. */
async function booksReadForFirstPage(): Promise<number> {
  const page = await t.get('/api/v1/books/?limit=50', { token: owner.token });
  expect(page.status).toBe(200);
  expect(page.body.items).toHaveLength(50);
  expect(page.body.items.map((b: { slug: string }) => b.slug)).toEqual(Array.from({ length: 50 }, (_, i) => `stats-book-${i + 1}`));
  // The statement as the list sends it, planned as the service's are (a generic plan).
  const [{ plan }] = await t.db.transaction(async (tx) => {
    await tx.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
    const text = `SELECT m.book_id FROM book_members m JOIN books b ON b.id = m.book_id
      WHERE m.user_id = $1 AND m.role IN ('owner', 'admin') AND m.book_live AND m.book_status = $2
      ORDER BY m.book_activity_bucket DESC, b.last_activity_at DESC, m.book_id DESC LIMIT $3`;
    await tx.query(`PREPARE stats_page(uuid, text, int) AS ${text}`);
    const rows = await tx.query<{ plan: unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE stats_page('${owner.user.id}', 'active', 51)`);
    await tx.query('DEALLOCATE stats_page');
    return rows.map((r) => ({ plan: (r as Record<string, unknown>)['QUERY PLAN'] }));
  });
  let booksRows = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node['Relation Name'] === 'books') booksRows += Number(node['Actual Rows']) * Number(node['Actual Loops'] ?? 1);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: Record<string, unknown> }[])[0].Plan);
  return booksRows;
}

/** PGlite runs no autovacuum; a PostgreSQL server may run without it too (the test server does). */
const withoutAutovacuum = async () =>
  backendName === 'pglite' || (await t.db.query<{ v: string }>(`SELECT current_setting('autovacuum') AS v`))[0].v === 'off';

it('where no autovacuum runs: analyzes tables never analyzed, then only those whose size moved; the book list then reads a page, not every book', async () => {
  if (!(await withoutAutovacuum())) return;
  // A schema of its own: every table fresh, never analyzed.
  const first = await analyzeChangedTables(t.db);
  expect(first).toEqual(expect.arrayContaining(['books', 'book_members', 'submissions']));
  expect(await analyzeChangedTables(t.db)).toEqual([]);

  await thousandBooks();
  // Statistics from when the tables were nearly empty: the plan may sort every book of the caller.
  const analyzed = await analyzeChangedTables(t.db);
  expect(analyzed).toEqual(expect.arrayContaining(['books', 'book_members']));
  expect(analyzed).not.toContain('submissions');
  // With them, a page of 50 (51 rows asked) reads its own books and those sharing its last ten-minute bucket.
  expect(await booksReadForFirstPage()).toBeLessThanOrEqual(51 + 10);
});

it('leaves PostgreSQL with autovacuum on to it', async () => {
  if (await withoutAutovacuum()) return;
  expect(await analyzeChangedTables(t.db)).toEqual([]);
});

it('runs with housekeeping on a worker', async () => {
  const jobId = (await t.queue.send('housekeeping.run', { period: '2031-05-06T10:20:00.000Z' }))!;
  for (let i = 0; i < 200 && (await t.queue.getJob('housekeeping.run', jobId))?.state !== 'completed'; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await t.queue.getJob('housekeeping.run', jobId))?.state).toBe('completed');
  expect(await analyzeChangedTables(t.db)).toEqual([]);
});
