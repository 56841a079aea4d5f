import type { Db } from './client.js';

/**
 * The planner's statistics where no autovacuum keeps them. PostgreSQL's
 * autovacuum re-ANALYZEs a table once enough of it has changed; PGlite runs
 * none, and a PostgreSQL server may run with `autovacuum = off` (as test and
 * bench servers often do), so those tables were never analyzed and every
 * plan was made on guesses. Prepared statements run on their generic plan (PLAN_CACHE_MODE),
 * and without statistics a plan that sorts a whole list can look as cheap
 * as one that walks its index and stops after a page: GET /books/ in
 * activity order read and sorted every one of a caller's 1,000 books (with
 * their JSON) for each page of 50, 3.3 ms a page instead of 0.75 ms.
 *
 * This is autovacuum's analyze for them: tables never analyzed, or whose
 * size has moved by more than a tenth (and a page) since their statistics
 * were taken, are analyzed; the cached plans that read them are made again.
 * Run by housekeeping (every 10 minutes, the first a few seconds after start,
 * off the start path). A no-op on PostgreSQL with autovacuum on (the default).
 * Only the tables of the service's own schema. Answers the tables analyzed.
 */
export async function analyzeChangedTables(db: Db): Promise<string[]> {
  if (db.kind === 'postgres') {
    const [{ on }] = await db.query<{ on: boolean }>(`SELECT current_setting('autovacuum') = 'on' AS on`);
    if (on) return [];
  }
  const rows = await db.query<{ name: string }>(
    `SELECT quote_ident(c.relname) AS name FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
       AND (c.reltuples < 0 OR abs(pg_relation_size(c.oid) / current_setting('block_size')::int - c.relpages) > 1 + c.relpages / 10)
     ORDER BY c.relname`,
  );
  if (!rows.length) return [];
  await db.exec(`ANALYZE ${rows.map((r) => r.name).join(', ')}`);
  return rows.map((r) => r.name);
}
