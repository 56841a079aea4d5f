import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { SortKey } from '../../db/pagination.js';
import { coverKeyBeside, hasCoverWrap, type AccountExportRow, type BookExportRow, type ExportRow } from './export-types.js';

/**
 * The one repository of exports, both kinds: the pipeline's steps (start,
 * complete, fail, expire) take any export by id; the rest is what each kind's
 * requests and reads need.
 */

/** Every query names `e` (exports) and `b` (its book, for the slug; none for an account export). */
const COLUMNS = `e.id, e.kind, e.book_id, b.slug AS book_slug, e.account_id, e.requested_by, e.status, e.theme, e.intent, e.export_format,
  e.bleed_mm, e.gutter_mm, e.artifact_key, e.artifact_bytes, e.page_count, e.error, e.attempts, e.created_at, e.updated_at,
  e.started_at, e.completed_at, e.expires_at, e.artifact_removed_at, e.warnings`;
const FROM = `exports e LEFT JOIN books b ON b.id = e.book_id`;

/** Re-reads written rows (a CTE named `e`) with the book's slug. */
const withSlug = (cte: string) => `WITH e AS (${cte}) SELECT ${COLUMNS} FROM e LEFT JOIN books b ON b.id = e.book_id`;

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

function normalize<R extends ExportRow>(r: ExportRow | undefined): R | undefined {
  return r && ({ ...r, artifact_bytes: r.artifact_bytes === null ? null : Number(r.artifact_bytes) } as R);
}

// ---------------------------------------------------------------- any export (the pipeline)

/** An export by id alone (the jobs). */
export async function findExportById(q: Queryable, id: string): Promise<ExportRow | undefined> {
  return normalize(await one<ExportRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE e.id = $1`, [id]));
}

/** Moves a job to processing as a worker takes it (again, after a crash); undefined when it is finished or gone. */
export async function startExport(q: Queryable, id: string, attempt: number): Promise<ExportRow | undefined> {
  return normalize(
    await one<ExportRow>(
      q,
      withSlug(
        `UPDATE exports SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = GREATEST(attempts, $2)
         WHERE id = $1 AND status IN ('pending', 'processing') RETURNING *`,
      ),
      [id, attempt],
    ),
  );
}

export async function completeExport(
  q: Queryable,
  id: string,
  a: { key: string; bytes: number; pageCount: number | null; retentionSeconds: number; warnings?: string[] },
): Promise<ExportRow | undefined> {
  return normalize(
    await one<ExportRow>(
      q,
      withSlug(
        `UPDATE exports SET status = 'complete', completed_at = now(), expires_at = now() + make_interval(secs => $5),
           artifact_key = $2, artifact_bytes = $3, page_count = $4, error = NULL, warnings = $6::jsonb
         WHERE id = $1 AND status = 'processing' RETURNING *`,
      ),
      [id, a.key, a.bytes, a.pageCount, a.retentionSeconds, JSON.stringify(a.warnings ?? [])],
    ),
  );
}

/** False when the job had finished already (or is gone). */
export async function failExport(q: Queryable, id: string, error: string): Promise<boolean> {
  const rows = await q.query(`UPDATE exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status IN ('pending', 'processing') RETURNING id`, [id, error]);
  return rows.length > 0;
}

export async function markArtifactRemoved(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE exports SET artifact_removed_at = now() WHERE id = $1 AND status = 'complete' AND artifact_removed_at IS NULL`, [id]);
}

/** The files of a stored artifact: a shop PDF's cover wrap lies beside it. */
export const artifactFiles = (r: Pick<ExportRow, 'export_format' | 'intent'>, key: string): string[] => (hasCoverWrap(r) ? [key, coverKeyBeside(key)] : [key]);

// ---------------------------------------------------------------- book exports

/** One export of one book; another book's id (or an account export's) is simply not found. */
export async function findBookExport(q: Queryable, bookId: string, id: string): Promise<BookExportRow | undefined> {
  return normalize<BookExportRow>(await one<ExportRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE e.book_id = $1 AND e.id = $2`, [bookId, id]));
}

/** A job still waiting to start that asked for exactly this: an identical request answers it instead of rendering twice. */
export async function findPendingTwin(q: Queryable, bookId: string, o: { theme: string; intent: string; format: string }): Promise<BookExportRow | undefined> {
  return normalize<BookExportRow>(
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
 * The unfinished (pending or processing) book exports of a book and of a user,
 * counted after locking the user's row: two requests of one user on two
 * books then count one after the other (the book's row is locked already).
 */
export async function countUnfinished(q: Queryable, bookId: string, userId: string): Promise<{ book: number; user: number }> {
  await q.query(`SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, [userId]);
  const row = await one<{ of_book: number; of_user: number }>(
    q,
    `SELECT (SELECT count(*)::int FROM exports WHERE book_id = $1 AND status IN ('pending', 'processing')) AS of_book,
            (SELECT count(*)::int FROM exports WHERE requested_by = $2 AND kind = 'book' AND status IN ('pending', 'processing')) AS of_user`,
    [bookId, userId],
  );
  return { book: Number(row?.of_book ?? 0), user: Number(row?.of_user ?? 0) };
}

export async function insertBookExport(
  q: Queryable,
  e: { id: string; bookId: string; requestedBy: string; theme: string; intent: string; format: string; bleedMm: number; gutterMm: number },
): Promise<BookExportRow> {
  const row = await one<ExportRow>(
    q,
    withSlug(
      `INSERT INTO exports (id, kind, book_id, requested_by, theme, intent, export_format, bleed_mm, gutter_mm)
       VALUES ($1, 'book', $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    ),
    [e.id, e.bookId, e.requestedBy, e.theme, e.intent, e.format, e.bleedMm, e.gutterMm],
  );
  return normalize<BookExportRow>(row)!;
}

/** One page of a book's exports (see paginate for where/params/orderBy). */
export async function selectExportsOfBook(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }): Promise<BookExportRow[]> {
  const params = [...o.params, o.limit];
  const rows = await q.query<ExportRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${params.length}`, params);
  return rows.map((r) => normalize<BookExportRow>(r)!);
}

/** The stored artifacts of a book (a purge removes them with the rest of its files). */
export async function artifactKeysOfBook(q: Queryable, bookId: string): Promise<string[]> {
  const rows = await q.query<{ key: string; intent: ExportRow['intent']; export_format: ExportRow['export_format'] }>(
    `SELECT artifact_key AS key, intent, export_format FROM exports WHERE book_id = $1 AND artifact_key IS NOT NULL AND artifact_removed_at IS NULL`,
    [bookId],
  );
  return rows.flatMap((r) => artifactFiles(r, r.key));
}

// ---------------------------------------------------------------- account exports

/**
 * Serialises a user's account export requests (held to the end of the
 * transaction): two requests with different keys cannot both pass the daily limit.
 */
export async function lockAccountExports(q: Queryable, userId: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`account_export:${userId}`]);
}

/** Seconds until the user may ask for an account export again, or null when they may now (a failed export does not count). */
export async function secondsUntilNextAccountExport(q: Queryable, userId: string, windowSeconds: number): Promise<number | null> {
  const row = await one<{ wait: number | null }>(
    q,
    `SELECT EXTRACT(EPOCH FROM (max(created_at) + make_interval(secs => $2) - now()))::double precision AS wait
     FROM exports WHERE kind = 'account' AND account_id = $1 AND status <> 'failed' AND created_at > now() - make_interval(secs => $2)`,
    [userId, windowSeconds],
  );
  return row?.wait === null || row?.wait === undefined ? null : Math.max(1, Math.ceil(Number(row.wait)));
}

export async function insertAccountExport(q: Queryable, id: string, userId: string): Promise<AccountExportRow> {
  return normalize<AccountExportRow>(
    await one<ExportRow>(q, withSlug(`INSERT INTO exports (id, kind, account_id, requested_by) VALUES ($1, 'account', $2, $2) RETURNING *`), [id, userId]),
  )!;
}

/** The user's own account export; anyone else's id (or a book export's) is simply not found. */
export async function findAccountExport(q: Queryable, userId: string, id: string): Promise<AccountExportRow | undefined> {
  return normalize<AccountExportRow>(await one<ExportRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE e.kind = 'account' AND e.account_id = $1 AND e.id = $2`, [userId, id]));
}

/**
 * Removes every account export row of the user and answers their files' keys.
 * A DELETE … RETURNING waits for a run completing at the same moment and
 * sees its key; a run that completes afterwards finds no row and removes its
 * own file.
 */
export async function deleteAccountExportsOf(q: Queryable, userId: string): Promise<string[]> {
  const rows = await q.query<{ artifact_key: string | null; artifact_removed_at: string | null }>(
    `DELETE FROM exports WHERE kind = 'account' AND account_id = $1 RETURNING artifact_key, artifact_removed_at`,
    [userId],
  );
  return rows.filter((r) => r.artifact_key && !r.artifact_removed_at).map((r) => r.artifact_key!);
}
