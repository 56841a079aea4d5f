import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { AccountExportRow } from './account-export-types.js';

const normalize = (r: AccountExportRow | undefined): AccountExportRow | undefined =>
  r && { ...r, size_bytes: r.size_bytes === null ? null : Number(r.size_bytes) };

/**
 * Serialises a user's export requests (held to the end of the transaction):
 * two requests with different keys cannot both pass the daily limit.
 */
export async function lockUserExports(q: Queryable, userId: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`account_export:${userId}`]);
}

/** Seconds until the user may ask again, or null when they may now (a failed export does not count). */
export async function secondsUntilNextExport(q: Queryable, userId: string, windowSeconds: number): Promise<number | null> {
  const row = await one<{ wait: number | null }>(
    q,
    `SELECT EXTRACT(EPOCH FROM (max(created_at) + make_interval(secs => $2) - now()))::double precision AS wait
     FROM account_exports WHERE user_id = $1 AND status <> 'failed' AND created_at > now() - make_interval(secs => $2)`,
    [userId, windowSeconds],
  );
  return row?.wait === null || row?.wait === undefined ? null : Math.max(1, Math.ceil(Number(row.wait)));
}

export async function insertAccountExport(q: Queryable, id: string, userId: string): Promise<AccountExportRow> {
  return normalize(await one<AccountExportRow>(q, `INSERT INTO account_exports (id, user_id) VALUES ($1, $2) RETURNING *`, [id, userId]))!;
}

/** The user's own export; anyone else's id is simply not found. */
export async function findAccountExport(q: Queryable, userId: string, id: string): Promise<AccountExportRow | undefined> {
  return normalize(await one<AccountExportRow>(q, `SELECT * FROM account_exports WHERE user_id = $1 AND id = $2`, [userId, id]));
}

export async function findAccountExportById(q: Queryable, id: string): Promise<AccountExportRow | undefined> {
  return normalize(await one<AccountExportRow>(q, `SELECT * FROM account_exports WHERE id = $1`, [id]));
}

/** Moves a job to processing as a worker takes it (again, after a crash); undefined when it is finished or gone. */
export async function startAccountExport(q: Queryable, id: string, attempt: number): Promise<AccountExportRow | undefined> {
  return normalize(
    await one<AccountExportRow>(
      q,
      `UPDATE account_exports SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = GREATEST(attempts, $2)
       WHERE id = $1 AND status IN ('pending', 'processing') RETURNING *`,
      [id, attempt],
    ),
  );
}

export async function completeAccountExport(
  q: Queryable,
  id: string,
  a: { key: string; bytes: number; retentionSeconds: number },
): Promise<AccountExportRow | undefined> {
  return normalize(
    await one<AccountExportRow>(
      q,
      `UPDATE account_exports SET status = 'complete', completed_at = now(), expires_at = now() + make_interval(secs => $4),
         object_key = $2, size_bytes = $3, error = NULL
       WHERE id = $1 AND status = 'processing' RETURNING *`,
      [id, a.key, a.bytes, a.retentionSeconds],
    ),
  );
}

export async function failAccountExport(q: Queryable, id: string, error: string): Promise<void> {
  await q.query(`UPDATE account_exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status IN ('pending', 'processing')`, [id, error]);
}

export async function markAccountExportExpired(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE account_exports SET status = 'expired', removed_at = now() WHERE id = $1 AND status = 'complete'`, [id]);
}

/**
 * Removes every export row of the user and answers their files' keys. A
 * DELETE … RETURNING waits for a render completing at the same moment and
 * sees its key; a render that completes afterwards finds no row and removes
 * its own file.
 */
export async function deleteAccountExportsOf(q: Queryable, userId: string): Promise<string[]> {
  const rows = await q.query<{ object_key: string | null; status: string }>(`DELETE FROM account_exports WHERE user_id = $1 RETURNING object_key, status`, [userId]);
  return rows.filter((r) => r.object_key && r.status !== 'expired').map((r) => r.object_key!);
}
