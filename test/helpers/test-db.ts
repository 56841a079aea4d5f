import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { databaseForbiddenError, databaseForbiddenFor } from './database-guard.js';

/** Which backend this run uses: PGlite by default, PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const backendName = TEST_DATABASE_URL ? 'postgres' : 'pglite';
/** DATABASE_POOLER of this run: 'transaction' when TEST_DATABASE_URL is a pooler in transaction mode (npm run test:pgbouncer). */
export const TEST_DATABASE_POOLER: 'none' | 'transaction' = process.env.DATABASE_POOLER === 'transaction' ? 'transaction' : 'none';

/** Runs SQL on the test PostgreSQL server on a connection of its own (schemas made and dropped around a test). */
export async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  db: Db;
  /**
   * The schema this test owns (its job queue uses `<schema>_pgboss`). On
   * PostgreSQL another process can open it with DATABASE_SCHEMA; on PGlite it
   * lives in this worker's in-memory instance only.
   */
  schema: string | null;
  url: string | null;
  /** Drops the schema and its queue schema, leaving nothing behind. Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated schema for one test app, in a database shared by the
 * files of one vitest worker (the suite runs with `isolate: false`).
 * PostgreSQL: a schema in TEST_DATABASE_URL, so workers run in parallel
 * without seeing each other's rows. PGlite: one in-memory instance per worker
 * (starting one costs seconds, a schema a fraction of that), lent to one test
 * database at a time; a second one alive at the same time gets an instance of
 * its own.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const forbidden = databaseForbiddenFor();
  if (forbidden) throw databaseForbiddenError(forbidden);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  return TEST_DATABASE_URL ? postgresSchema(TEST_DATABASE_URL, schema) : pgliteSchema(schema);
}

async function postgresSchema(url: string, schema: string): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const db = createPostgresDb(url, { schema, poolSize: 8, pooler: TEST_DATABASE_POOLER });
  await migrate(db);
  return {
    db,
    schema,
    url,
    drop: once(async () => {
      await db.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }),
  };
}

/** This worker's embedded database, and whether a test database holds it now. */
let sharedPglite: Promise<Db> | undefined;
let sharedPgliteLent = false;

async function pgliteSchema(schema: string): Promise<TestDatabase> {
  const lend = !sharedPgliteLent;
  let instance: Db;
  if (lend) {
    sharedPgliteLent = true;
    try {
      instance = await (sharedPglite ??= createPgliteDb());
    } catch (err) {
      sharedPglite = undefined;
      sharedPgliteLent = false;
      throw err;
    }
  } else {
    instance = await createPgliteDb();
  }
  const drop = once(async () => {
    if (!lend) return instance.close();
    try {
      await instance.exec(`RESET search_path; DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      sharedPgliteLent = false;
    }
  });
  try {
    // PGlite is one session, so search_path holds for every statement until drop().
    await instance.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
    await migrate(instance);
  } catch (err) {
    await drop().catch(() => {});
    throw err;
  }
  // Closing this handle ends the lease: the shared instance stays open for the worker's next file.
  return { db: { ...instance, close: drop }, schema, url: null, drop };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
