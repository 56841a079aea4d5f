import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPostgresDb, type Db } from '../../src/db/client.js';
import { adminQuery, backendName, createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';
import { TEST_SECRET } from '../helpers/build-test-app.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function testDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

function pooled(url: string, schema: string | null): Db {
  const db = createPostgresDb(url, { schema, poolSize: 4, pooler: 'transaction' });
  cleanups.push(() => db.close());
  return db;
}

/**
 * A login role of its own, connecting to PostgreSQL itself (the run's pooler,
 * if any, knows only the test user), whose own settings differ from ours:
 * the service must not depend on them.
 */
async function roleWith(settings: string, schema: string): Promise<string> {
  const role = `mb_pool_${randomBytes(4).toString('hex')}`;
  await adminQuery(
    `CREATE ROLE ${role} LOGIN; ${settings.replaceAll('$role', role)};
     GRANT USAGE ON SCHEMA ${schema} TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
  );
  cleanups.push(() => adminQuery(`DROP OWNED BY ${role}; DROP ROLE ${role}`));
  const url = new URL(process.env.TEST_DATABASE_UPSTREAM_URL || TEST_DATABASE_URL!);
  url.username = role;
  return url.toString();
}

describe('DATABASE_POOLER', () => {
  it('is none by default, takes transaction, and refuses anything else', () => {
    const base = { NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: '/tmp/memorybook-pooler-config', DATABASE_URL: 'postgres://u@db/x' };
    expect(loadConfig(base).database.pooler).toBe('none');
    expect(loadConfig({ ...base, DATABASE_POOLER: 'transaction' }).database.pooler).toBe('transaction');
    expect(() => loadConfig({ ...base, DATABASE_POOLER: 'session' })).toThrow(/DATABASE_POOLER: expected none or transaction, got "session"/);
  });
});

describe.runIf(backendName === 'postgres')('PostgreSQL with DATABASE_POOLER=transaction (PostgreSQL)', () => {
  it('prepares no named statement: parameterised statements from many callers at once, in and out of transactions', async () => {
    const database = await testDatabase();
    const db = pooled(TEST_DATABASE_URL!, database.schema);
    const texts = ['SELECT $1::int + 1 AS n', 'SELECT $1::int * 2 AS n', 'SELECT count(*) + $1::int AS n FROM users'];
    const outside = await Promise.all(Array.from({ length: 60 }, (_, i) => db.query<{ n: number }>(texts[i % 3], [i])));
    expect(outside.map(([r]) => r.n)).toEqual(Array.from({ length: 60 }, (_, i) => [i + 1, i * 2, i][i % 3]));
    const inside = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db.transaction(async (tx) => {
          for (const text of texts) await tx.query(text, [i]);
          // The same server connection as the statements above, for the whole transaction.
          return (await tx.query<{ n: number }>(`SELECT count(*) AS n FROM pg_prepared_statements WHERE NOT from_sql`))[0].n;
        }),
      ),
    );
    expect(inside).toEqual(Array(12).fill(0));
  });

  it("answers in UTC and finds DATABASE_SCHEMA's tables whatever the role's own TimeZone and search_path", async () => {
    const database = await testDatabase();
    const schema = database.schema!;
    const url = await roleWith(`ALTER ROLE $role SET TimeZone = 'Asia/Kolkata'; ALTER ROLE $role SET search_path = public`, schema);
    const db = pooled(url, schema);
    const [out] = await db.query<{ tz: string; at: string; schema: string }>(`SELECT current_setting('TimeZone') AS tz, timestamptz '2026-11-27 01:02:03.456789+00' AS at, current_schema() AS schema`);
    expect(out).toEqual({ tz: 'UTC', at: '2026-11-27T01:02:03.456789Z', schema });
    const [{ users }] = await db.query<{ users: number }>('SELECT count(*) AS users FROM users WHERE email <> $1', ['nobody']);
    expect(users).toBe(0);
    await db.exec(`INSERT INTO schema_migrations (id) VALUES ('9999_pooler_probe')`);
    const inTx = await db.transaction(async (tx) => {
      const [row] = await tx.query<{ tz: string; schema: string }>(`SELECT current_setting('TimeZone') AS tz, current_schema() AS schema`);
      const [probe] = await tx.query<{ id: string }>(`SELECT id FROM schema_migrations WHERE id = $1`, ['9999_pooler_probe']);
      return { ...row, probe: probe?.id };
    });
    expect(inTx).toEqual({ tz: 'UTC', schema, probe: '9999_pooler_probe' });
    // A statement that fails outside a transaction leaves nothing open behind it.
    await expect(db.query('SELECT 1/$1::int', [0])).rejects.toThrow();
    expect((await db.query<{ n: number }>('SELECT $1::int AS n', [7]))[0].n).toBe(7);
  });

  it('sends statements outside a transaction as they are when the role already leads to the schema', async () => {
    const database = await testDatabase();
    const schema = database.schema!;
    const url = await roleWith(`ALTER ROLE $role SET search_path = ${schema}, public`, schema);
    const db = pooled(url, schema);
    // The role's own search_path, not one set for the statement (in a transaction of its own it would be ours alone).
    const [row] = await db.query<{ schema: string; path: string; one: number }>(`SELECT current_schema() AS schema, current_setting('search_path') AS path, $1::int AS one`, [1]);
    expect(row).toEqual({ schema, path: `${schema}, public`, one: 1 });
  });
});
