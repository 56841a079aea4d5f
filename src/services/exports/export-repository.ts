import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { SortKey } from '../../db/pagination.js';
import type { ExportRow } from './export-types.js';

/** Every query names `e` (export_jobs) and `b` (its book, for the slug). */
const COLUMNS = `e.id, e.book_id, b.slug AS book_slug, e.requested_by, e.status, e.theme, e.intent, e.export_format, e.bleed_mm, e.gutter_mm,
  e.artifact_key, e.artifact_bytes, e.page_count, e.error, e.attempts, e.created_at, e.updated_at, e.started_at, e.completed_at,
  e.expires_at, e.artifact_removed_at`;
const FROM = `export_jobs e JOIN books b ON b.id = e.book_id`;

/** Re-reads written rows (a CTE named `e`) with the book's slug. */
const withSlug = (cte: string) => `WITH e AS (${cte}) SELECT ${COLUMNS} FROM e JOIN books b ON b.id = e.book_id`;

export const EXPORT_ORDERINGS: { created: SortKey[]; sync: SortKey[] } = {
  created: [
    { sql: 'e.created_at', dir: 'desc', field: 'created_at', cast: 'timestamptz' },
    { sql: 'e.id', dir: 'desc', field: 'id', cast: 'uuid' },
  ],
  sync: [
    { sql: 'e.updated_at', dir: 'asc', field: 'updated_at', cast: 'timestamptz' },
    { sql: 'e.id', dir: 'asc', field: 'id', cast: 'uuid' },
  ],
};

const normalize = (r: ExportRow | undefined): ExportRow | undefined =>
  r && { ...r, artifact_bytes: r.artifact_bytes === null ? null : Number(r.artifact_bytes) };

/** One export of one book; another book's id is simply not found. */
export async function findExport(q: Queryable, bookId: string, id: string): Promise<ExportRow | undefined> {
  return normalize(await one<ExportRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE e.book_id = $1 AND e.id = $2`, [bookId, id]));
}

/** An export by id alone (the jobs). */
export async function findExportById(q: Queryable, id: string): Promise<ExportRow | undefined> {
  return normalize(await one<ExportRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE e.id = $1`, [id]));
}

/** A job still waiting to start that asked for exactly this: an identical request answers it instead of rendering twice. */
export async function findPendingTwin(q: Queryable, bookId: string, o: { theme: string; intent: string; format: string }): Promise<ExportRow | undefined> {
  return normalize(
    await one<ExportRow>(
      q,
      `SELECT ${COLUMNS} FROM ${FROM}
       WHERE e.book_id = $1 AND e.status = 'pending' AND e.theme = $2 AND e.intent = $3 AND e.export_format = $4
       ORDER BY e.created_at DESC LIMIT 1`,
      [bookId, o.theme, o.intent, o.format],
    ),
  );
}

/**
 * The unfinished (pending or processing) exports of a book and of a user,
 * counted after locking the user's row: two requests of one user on two
 * books then count one after the other (the book's row is locked already).
 */
export async function countUnfinished(q: Queryable, bookId: string, userId: string): Promise<{ book: number; user: number }> {
  await q.query(`SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, [userId]);
  const row = await one<{ of_book: number; of_user: number }>(
    q,
    `SELECT (SELECT count(*)::int FROM export_jobs WHERE book_id = $1 AND status IN ('pending', 'processing')) AS of_book,
            (SELECT count(*)::int FROM export_jobs WHERE requested_by = $2 AND status IN ('pending', 'processing')) AS of_user`,
    [bookId, userId],
  );
  return { book: Number(row?.of_book ?? 0), user: Number(row?.of_user ?? 0) };
}

export async function insertExport(
  q: Queryable,
  e: { id: string; bookId: string; requestedBy: string; theme: string; intent: string; format: string; bleedMm: number; gutterMm: number },
): Promise<ExportRow> {
  const row = await one<ExportRow>(
    q,
    withSlug(
      `INSERT INTO export_jobs (id, book_id, requested_by, theme, intent, export_format, bleed_mm, gutter_mm)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    ),
    [e.id, e.bookId, e.requestedBy, e.theme, e.intent, e.format, e.bleedMm, e.gutterMm],
  );
  return normalize(row)!;
}

/** One page of a book's exports (see paginate for where/params/orderBy). */
export async function selectExportsOfBook(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  const params = [...o.params, o.limit];
  const rows = await q.query<ExportRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${params.length}`, params);
  return rows.map((r) => normalize(r)!);
}

/** Moves a job to processing as a worker takes it (again, after a crash); undefined when it is finished or gone. */
export async function startExport(q: Queryable, id: string, attempt: number): Promise<ExportRow | undefined> {
  return normalize(
    await one<ExportRow>(
      q,
      withSlug(
        `UPDATE export_jobs SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = GREATEST(attempts, $2)
         WHERE id = $1 AND status IN ('pending', 'processing') RETURNING *`,
      ),
      [id, attempt],
    ),
  );
}

export async function completeExport(
  q: Queryable,
  id: string,
  a: { key: string; bytes: number; pageCount: number | null; retentionSeconds: number },
): Promise<ExportRow | undefined> {
  return normalize(
    await one<ExportRow>(
      q,
      withSlug(
        `UPDATE export_jobs SET status = 'complete', completed_at = now(), expires_at = now() + make_interval(secs => $5),
           artifact_key = $2, artifact_bytes = $3, page_count = $4, error = NULL
         WHERE id = $1 AND status = 'processing' RETURNING *`,
      ),
      [id, a.key, a.bytes, a.pageCount, a.retentionSeconds],
    ),
  );
}

export async function failExport(q: Queryable, id: string, error: string): Promise<void> {
  await q.query(`UPDATE export_jobs SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status IN ('pending', 'processing')`, [id, error]);
}

export async function markArtifactRemoved(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE export_jobs SET artifact_removed_at = now() WHERE id = $1 AND artifact_removed_at IS NULL`, [id]);
}

/** The stored artifacts of a book (a purge removes them with the rest of its files). */
export async function artifactKeysOfBook(q: Queryable, bookId: string): Promise<string[]> {
  const rows = await q.query<{ key: string }>(
    `SELECT artifact_key AS key FROM export_jobs WHERE book_id = $1 AND artifact_key IS NOT NULL AND artifact_removed_at IS NULL`,
    [bookId],
  );
  return rows.map((r) => r.key);
}
