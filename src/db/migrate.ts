import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './client.js';

/** Forward-only numbered SQL files, shipped with the package (`migrations/NNNN_name.sql`). */
export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export function listMigrations(dir = MIGRATIONS_DIR): { id: string; sql: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ''), sql: readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * Applies pending migrations, each in its own transaction. An advisory lock
 * makes concurrent starts (two servers, a server and `memorybook migrate`)
 * apply each migration exactly once.
 */
export async function migrate(db: Db): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const applied: string[] = [];
  for (const m of listMigrations()) {
    const did = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(7243017)');
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE id = $1', [m.id]);
      if (done.length) return false;
      for (const statement of splitSql(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
      return true;
    });
    if (did) applied.push(m.id);
  }
  return applied;
}

/**
 * Splits a migration into statements for the extended protocol, which takes
 * one statement at a time. Understands comments, quotes and $$ bodies.
 */
export function splitSql(sql: string): string[] {
  const out: string[] = [];
  let cur = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      cur += sql.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '$') {
      const tag = /^\$[a-zA-Z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        cur += sql.slice(i, end + tag.length);
        i = end + tag.length;
        continue;
      }
    }
    if (c === ';') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      i++;
      continue;
    }
    cur += c;
    i++;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}
