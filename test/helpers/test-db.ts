import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';

/** Which backend this run uses: PGlite by default, PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const backendName = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDatabase {
  db: Db;
  /** For PostgreSQL: the schema this test owns (another process can open it with DATABASE_SCHEMA). */
  schema: string | null;
  url: string | null;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test app. On PostgreSQL each gets its
 * own schema in the shared test database, so files run in parallel without
 * seeing each other's rows; on PGlite each is a new in-memory instance.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const db = await createPgliteDb();
    await migrate(db);
    return { db, schema: null, url: null, drop: () => db.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const db = createPostgresDb(TEST_DATABASE_URL, { schema, poolSize: 8 });
  await migrate(db);
  return {
    db,
    schema,
    url: TEST_DATABASE_URL,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      // The job queue keeps its tables in a sibling schema.
      await c.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE`);
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}
