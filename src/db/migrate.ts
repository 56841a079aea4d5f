import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './client.js';

/** Forward-only numbered SQL files, shipped with the package (`migrations/NNNN_name.sql`). */
export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** The migrations shipped, in order: their ids only (a file is read when it is pending, not on every start). */
export function listMigrations(dir = MIGRATIONS_DIR): { id: string; file: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ''), file: path.join(dir, f) }));
}

/**
 * Applies pending migrations, each in its own transaction. An advisory lock
 * makes concurrent starts (two servers, a server and `memorybook migrate`)
 * apply each migration exactly once. A file is sent whole over the simple
 * query protocol, so the server's own parser splits it into statements
 * (comments, quotes, dollar-quoted bodies) and a syntax error anywhere fails
 * the file before any of it runs. A file must not hold its own BEGIN or
 * COMMIT: it already runs in a transaction. When nothing is pending (most
 * starts) it only reads schema_migrations.
 */
export async function migrate(db: Db, options: { dir?: string } = {}): Promise<string[]> {
  const migrations = listMigrations(options.dir);
  const done = await appliedIds(db);
  const pending = migrations.filter((m) => !done.has(m.id));
  if (pending.length === 0) return [];
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const applied: string[] = [];
  // Checked again under the lock: another process may have applied some since the read above.
  for (const m of pending) {
    const did = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(7243017)');
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE id = $1', [m.id]);
      if (done.length) return false;
      await tx.exec(readFileSync(m.file, 'utf8'));
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
      return true;
    });
    if (did) applied.push(m.id);
  }
  return applied;
}

/** The ids in schema_migrations; none when the table is not there yet (a new database). */
async function appliedIds(db: Db): Promise<Set<string>> {
  const [{ present }] = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!present) return new Set();
  return new Set((await db.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
}
