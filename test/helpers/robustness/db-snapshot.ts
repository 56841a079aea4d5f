import type { Db } from '../../../src/db/client.js';

/**
 * Tables a rejected request may legitimately touch: request bookkeeping, not
 * data. Everything else in the current schema must be byte-for-byte the same
 * after a malformed request. (current_schema() is the test's own schema on
 * both backends; a job queue's own schema is never in it.)
 */
const BOOKKEEPING_TABLES = new Set(['rate_limit_hits', 'idempotency_keys', 'audit_events', 'schema_migrations']);

/**
 * Columns that change on a read by design: api_tokens.last_used_at is
 * refreshed at most once a minute by any authenticated request.
 */
const VOLATILE_COLUMNS = ['last_used_at'];

export type DbSnapshot = Record<string, { rows: number; hash: string }>;

/** Row count and a hash of every row (volatile columns left out) for each data table. */
export async function snapshotDb(db: Db): Promise<DbSnapshot> {
  const tables = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const drop = VOLATILE_COLUMNS.map((c) => ` - '${c}'`).join('');
  const out: DbSnapshot = {};
  for (const { table_name } of tables) {
    if (BOOKKEEPING_TABLES.has(table_name)) continue;
    const ident = `"${table_name.replace(/"/g, '""')}"`;
    const [row] = await db.query<{ rows: number; hash: string }>(
      `SELECT count(*)::int AS rows,
              md5(coalesce(string_agg((to_jsonb(x)${drop})::text, '|' ORDER BY (to_jsonb(x)${drop})::text), '')) AS hash
         FROM ${ident} x`,
    );
    out[table_name] = row;
  }
  return out;
}

/** Stored idempotent responses: a request rejected before the route's work must never leave one. */
export async function countStoredResponses(db: Db): Promise<number> {
  const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency_keys`);
  return row.n;
}

export function diffSnapshots(before: DbSnapshot, after: DbSnapshot): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[name];
    const b = after[name];
    if (!a || !b) out.push(`table ${name} ${a ? 'disappeared' : 'appeared'}`);
    else if (a.rows !== b.rows) out.push(`table ${name}: ${a.rows} → ${b.rows} rows`);
    else if (a.hash !== b.hash) out.push(`table ${name}: rows changed (same count, ${a.rows})`);
  }
  return out;
}
