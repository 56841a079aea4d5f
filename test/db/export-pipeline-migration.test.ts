/** 0026: book exports and account exports move into one table with their ids and states; daily_job_runs goes. */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/client.js';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { adminQuery, TEST_DATABASE_URL } from '../helpers/test-db.js';

const MIGRATION = '0026_one_export_pipeline';
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** An empty database of this run's backend: a schema of its own on PostgreSQL, an instance of its own on PGlite. */
async function emptyDb(): Promise<Db> {
  if (!TEST_DATABASE_URL) {
    const db = await createPgliteDb();
    cleanups.push(() => db.close());
    return db;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const db = createPostgresDb(TEST_DATABASE_URL, { schema, poolSize: 2 });
  cleanups.push(async () => {
    await db.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  return db;
}

/** The migrations before this one, in a folder of their own. */
function migrationsBefore(id: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-migrations-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  for (const f of readdirSync(MIGRATIONS_DIR)) if (/^\d{4}_.*\.sql$/.test(f) && f < `${id}.sql`) copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  return dir;
}

describe(`migration ${MIGRATION}`, () => {
  it('keeps every book and account export, with its state, file and dates', async () => {
    const db = await emptyDb();
    await migrate(db, { dir: migrationsBefore(MIGRATION) });

    const user = randomUUID();
    const book = randomUUID();
    await db.query(`INSERT INTO users (id, email, first_name, last_name) VALUES ($1, 'old@example.test', 'Old', 'Rows')`, [user]);
    await db.query(`INSERT INTO books (id, slug, title, theme, owner_id, plan_slug) VALUES ($1, 'old-rows', 'Old rows', 'storybook', $2, (SELECT slug FROM plans LIMIT 1))`, [book, user]);
    const [pending, complete, removed] = [randomUUID(), randomUUID(), randomUUID()];
    await db.query(
      `INSERT INTO export_jobs (id, book_id, requested_by, status, theme, intent, export_format, bleed_mm, gutter_mm, created_at) VALUES
         ($1, $4, $5, 'pending', 'storybook', 'shop', 'pdf', 3, 15, '2026-11-01T10:00:00Z'),
         ($2, $4, $5, 'processing', 'modern_clean', 'screen', 'json', 0, 0, '2026-11-02T10:00:00Z'),
         ($3, $4, $5, 'failed', 'modern_clean', 'home', 'zip', 0, 10, '2026-11-03T10:00:00Z')`,
      [pending, complete, removed, book, user],
    );
    await db.query(
      `UPDATE export_jobs SET status = 'complete', completed_at = now(), expires_at = now() + interval '7 days', artifact_key = 'exports/k/book.json',
         artifact_bytes = 1234, warnings = '["soft photo"]'::jsonb WHERE id = $1`,
      [complete],
    );
    const [accountDone, accountExpired] = [randomUUID(), randomUUID()];
    await db.query(`INSERT INTO account_exports (id, user_id, created_at) VALUES ($1, $3, '2026-10-01T00:00:00Z'), ($2, $3, '2026-11-20T00:00:00Z')`, [
      accountExpired,
      accountDone,
      user,
    ]);
    await db.query(
      `UPDATE account_exports SET status = 'complete', object_key = 'account-exports/' || user_id || '/' || id || '.json.gz', size_bytes = 99,
         completed_at = created_at, expires_at = created_at + interval '30 days'`,
    );
    await db.query(`UPDATE account_exports SET status = 'expired', removed_at = '2026-10-31T00:00:00Z' WHERE id = $1`, [accountExpired]);

    expect((await migrate(db))[0]).toBe(MIGRATION);

    const rows = await db.query<Record<string, unknown>>(
      `SELECT id, kind, book_id, account_id, requested_by, status, theme, intent, export_format, bleed_mm, gutter_mm, artifact_key,
              artifact_bytes::int AS artifact_bytes, warnings, artifact_removed_at IS NOT NULL AS removed
       FROM exports ORDER BY created_at`,
    );
    expect(rows).toEqual([
      expect.objectContaining({ id: accountExpired, kind: 'account', account_id: user, requested_by: user, book_id: null, status: 'complete', removed: true, artifact_bytes: 99 }),
      expect.objectContaining({ id: pending, kind: 'book', book_id: book, status: 'pending', theme: 'storybook', intent: 'shop', export_format: 'pdf', bleed_mm: 3, gutter_mm: 15 }),
      expect.objectContaining({ id: complete, kind: 'book', status: 'complete', artifact_key: 'exports/k/book.json', artifact_bytes: 1234, warnings: ['soft photo'], removed: false }),
      expect.objectContaining({ id: removed, kind: 'book', status: 'failed', export_format: 'zip', gutter_mm: 10 }),
      expect.objectContaining({ id: accountDone, kind: 'account', status: 'complete', artifact_key: `account-exports/${user}/${accountDone}.json.gz`, removed: false }),
    ]);
    // The old tables and the unused schedule table are gone.
    const tables = await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('export_jobs', 'account_exports', 'daily_job_runs', 'exports')`,
    );
    expect(tables.map((t) => t.name)).toEqual(['exports']);
    // A row of one kind must carry what its kind needs.
    await expect(db.query(`INSERT INTO exports (id, kind, book_id) VALUES ($1, 'book', $2)`, [randomUUID(), book])).rejects.toThrow();
    await expect(db.query(`INSERT INTO exports (id, kind, account_id, book_id) VALUES ($1, 'account', $2, $3)`, [randomUUID(), user, book])).rejects.toThrow();
  });
});
