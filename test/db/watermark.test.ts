import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDb, type Db } from '../../src/db/client.js';
import { listWatermark } from '../../src/db/pagination.js';
import { buildTestApp } from '../helpers/build-test-app.js';
import { newBook, newUser } from '../helpers/factories.js';
import { spawnServer } from '../helpers/spawn-server.js';
import { adminQuery, backendName, createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function testDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

/** A user row stamped with now() (its date_joined), as every list row's change time is. */
const insertUser = (q: Pick<Db, 'query'>) =>
  q.query<{ id: string; stamped: string }>(`INSERT INTO users (id, email) VALUES ($1, $2) RETURNING id, date_joined AS stamped`, [randomUUID(), `${randomUUID()}@example.com`]);

/**
 * A plain login role (no pg_read_all_stats, no superuser) with the rights the
 * service needs on the test's schemas, and its URL. It connects to PostgreSQL
 * itself, not through the run's pooler, whose auth file knows only the test user.
 */
async function plainRole(schemas: string[]): Promise<string> {
  const role = `mb_plain_${randomBytes(4).toString('hex')}`;
  await adminQuery(
    [
      `CREATE ROLE ${role} LOGIN`,
      ...schemas.map(
        (s) => `GRANT USAGE ON SCHEMA ${s} TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA ${s} TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA ${s} TO ${role}`,
      ),
    ].join('; '),
  );
  cleanups.push(() => adminQuery(`DROP OWNED BY ${role}; DROP ROLE ${role}`));
  const url = new URL(process.env.TEST_DATABASE_UPSTREAM_URL || TEST_DATABASE_URL!);
  url.username = role;
  url.password = '';
  return url.toString();
}

describe.runIf(backendName === 'postgres')('Last-Modified watermark under a role without pg_read_all_stats (PostgreSQL)', () => {
  it("stays at or before the start of another role's open transaction, which pg_stat_activity hides from it", async () => {
    const database = await testDatabase();
    const schema = database.schema!;
    const plain = createPostgresDb(await plainRole([schema]), { schema, poolSize: 2 });
    cleanups.push(() => plain.close());
    const [who] = await plain.query<{ can_read_stats: boolean; superuser: boolean }>(
      `SELECT pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS can_read_stats, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`,
    );
    expect(who).toEqual({ can_read_stats: false, superuser: false });

    // Another role (the test's superuser: a worker under its own role, through the run's pooler if any) writes a row and stays open.
    const writer = await database.db.begin();
    cleanups.push(() => writer.rollback());
    const [{ pid, started }] = await writer.query<{ pid: number; started: string }>(`SELECT pg_backend_pid() AS pid, now() AS started`);
    const [row] = await insertUser(writer);
    expect(row.stamped).toBe(started);
    await sleep(2500);

    // The premise: the plain role cannot see that transaction's start, so the activity view alone would answer ~now - 1 s.
    const [seen] = await plain.query<{ xact_start: string | null; blind: string }>(
      `SELECT (SELECT xact_start FROM pg_stat_activity WHERE pid = $1) AS xact_start,
              date_trunc('second', interval '-1 second' + LEAST(now(), COALESCE(
                (SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database() AND xact_start IS NOT NULL), now()))) AS blind`,
      [pid],
    );
    expect(seen.xact_start).toBeNull();
    expect(seen.blind > started).toBe(true);

    // The watermark the plain role serves is at or before the writer's start.
    const watermark = await listWatermark(plain);
    expect(watermark <= started).toBe(true);

    // So a sync pinned to it finds the row once the writer commits.
    await writer.commit();
    const found = await plain.query(`SELECT 1 FROM users WHERE id = $1 AND date_joined >= $2::timestamptz`, [row.id, watermark]);
    expect(found).toHaveLength(1);
  });

  it("a service logged in as a plain role: a list's Last-Modified does not pass the start of another role's open transaction", async () => {
    const t = await buildTestApp();
    const u = await newUser(t);
    await newBook(t, u, { title: 'Before' });
    const schema = t.database.schema!;
    const url = await plainRole([schema, `${schema}_pgboss`]);
    const server = await spawnServer({ schema, env: { DATABASE_URL: url, DATABASE_POOLER: 'none' } });
    cleanups.push(() => server.stop('SIGKILL'));

    // Another role's transaction (the test's superuser) writes a book row and stays open.
    const writer = await t.db.begin();
    cleanups.push(() => writer.rollback());
    const [{ started }] = await writer.query<{ started: string }>(`SELECT now() AS started`);
    await insertUser(writer);
    await sleep(2500);

    const res = await fetch(`${server.url}/api/v1/books/`, { headers: { authorization: `Bearer ${u.token}` } });
    expect(res.status).toBe(200);
    const lastModified = res.headers.get('last-modified')!;
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.parse(started));
  });

  it('is at least a second before the present, to the second', async () => {
    const database = await testDatabase();
    await sleep(1100); // the watermark of this Db is shared for a second after it is read
    const [{ now }] = await database.db.query<{ now: string }>(`SELECT now() AS now`);
    const watermark = await listWatermark(database.db);
    expect(watermark).toMatch(/\.000000Z$/);
    // (Not bounded below: other transactions open on this server, outside the test, may hold it back.)
    expect(Date.parse(now) - Date.parse(watermark)).toBeGreaterThanOrEqual(1000);
  });

  it('a transaction marks its start in pg_locks, where any role sees it, and the mark goes with it', async () => {
    const database = await testDatabase();
    const plain = createPostgresDb(await plainRole([database.schema!]), { schema: database.schema!, poolSize: 1, pooler: 'none' });
    cleanups.push(() => plain.close());
    const marks = async (pid: number) =>
      (await plain.query<{ n: number }>(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND pid = $1`, [pid]))[0].n;
    const writer = await database.db.begin();
    const [{ pid }] = await writer.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
    expect(await marks(pid)).toBe(1);
    await writer.commit();
    expect(await marks(pid)).toBe(0);
  });
});

describe.runIf(backendName === 'pglite')('Last-Modified watermark on PGlite (one connection)', () => {
  it('is the present second less one, and a committed row is found by a sync pinned to it', async () => {
    const database = await testDatabase();
    const watermark = await listWatermark(database.db);
    const [row] = await database.db.transaction((tx) => insertUser(tx));
    expect(watermark).toMatch(/\.000000Z$/);
    expect(watermark <= row.stamped).toBe(true);
    expect(Date.parse(row.stamped) - Date.parse(watermark)).toBeLessThan(3000);
    const found = await database.db.query(`SELECT 1 FROM users WHERE id = $1 AND date_joined >= $2::timestamptz`, [row.id, watermark]);
    expect(found).toHaveLength(1);
  });
});
