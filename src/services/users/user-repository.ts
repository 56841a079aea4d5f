import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { UserRow } from './user-types.js';

const COLUMNS = `id, email, password_hash, first_name, last_name, books_sort, phone_number, telegram_chat_id,
  telegram_username, imessage_identifier, is_staff, is_active, date_joined, updated_at`;

export function findUserById(q: Queryable, id: string) {
  return one<UserRow>(q, `SELECT ${COLUMNS} FROM users WHERE id = $1 AND deleted_at IS NULL`, [id]);
}

export function findUserByEmail(q: Queryable, email: string) {
  return one<UserRow>(q, `SELECT ${COLUMNS} FROM users WHERE email = $1 AND deleted_at IS NULL`, [email.trim().toLowerCase()]);
}

/** Every account row, deleted ones included. */
export async function countUsers(q: Queryable): Promise<number> {
  const [row] = await q.query<{ n: string | number }>(`SELECT count(*) AS n FROM users`);
  return Number(row.n);
}

/** Takes the account row's lock (a per-user count and insert made one step). */
export async function lockUserRow(q: Queryable, id: string): Promise<void> {
  await q.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [id]);
}

/** Whether the account exists and is not deleted. */
export async function isLiveUser(q: Queryable, id: string): Promise<boolean> {
  return Boolean(await one(q, `SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL`, [id]));
}

/** Whether the account's row is still whole: not purged (a deleted account awaiting its purge still counts). */
export async function isUnpurgedUser(q: Queryable, id: string): Promise<boolean> {
  return Boolean(await one(q, `SELECT 1 FROM users WHERE id = $1 AND purged_at IS NULL`, [id]));
}

/** Locks the row for a read-check-write (If-Match). */
export function findUserForUpdate(q: Queryable, id: string) {
  return one<UserRow>(q, `SELECT ${COLUMNS} FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [id]);
}

export function insertUser(
  q: Queryable,
  u: { id: string; email: string; passwordHash: string | null; firstName: string; lastName: string; isStaff: boolean },
) {
  return one<UserRow>(
    q,
    `INSERT INTO users (id, email, password_hash, first_name, last_name, is_staff)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [u.id, u.email, u.passwordHash, u.firstName, u.lastName, u.isStaff],
  ) as Promise<UserRow>;
}

export function updateUserProfile(
  q: Queryable,
  id: string,
  patch: { first_name?: string; last_name?: string; books_sort?: string },
) {
  return one<UserRow>(
    q,
    `UPDATE users SET
       first_name = COALESCE($2, first_name),
       last_name = COALESCE($3, last_name),
       books_sort = COALESCE($4, books_sort)
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, patch.first_name ?? null, patch.last_name ?? null, patch.books_sort ?? null],
  ) as Promise<UserRow>;
}

/**
 * Replaces a password hash with a stronger one of the same password, only if
 * the row still holds `previousHash`: a password changed meanwhile is kept.
 */
export async function updatePasswordHash(q: Queryable, userId: string, hash: string, previousHash: string): Promise<boolean> {
  const row = await one<{ id: string }>(q, `UPDATE users SET password_hash = $2 WHERE id = $1 AND password_hash = $3 RETURNING id`, [userId, hash, previousHash]);
  return row !== undefined;
}

/** A sign-up waiting for its address to be confirmed. */
export interface SignupRequestRow {
  id: string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  next_path: string | null;
}

export async function insertSignupRequest(
  q: Queryable,
  r: { id: string; email: string; passwordHash: string; firstName: string; lastName: string; nextPath: string | null; tokenHash: Buffer; ttlSeconds: number },
): Promise<void> {
  await q.query(
    `INSERT INTO signup_requests (id, email, password_hash, first_name, last_name, next_path, token_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [r.id, r.email, r.passwordHash, r.firstName, r.lastName, r.nextPath, r.tokenHash, r.ttlSeconds],
  );
}

/** The live sign-up a confirmation link names (by the token's hash). */
export function findSignupRequest(q: Queryable, tokenHash: Buffer, o: { forUpdate?: boolean } = {}) {
  return one<SignupRequestRow>(
    q,
    `SELECT id, email, password_hash, first_name, last_name, next_path FROM signup_requests
     WHERE token_hash = $1 AND expires_at > now()${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenHash],
  );
}

/** Once an address has its account, its other waiting sign-ups are void; expired ones go too. */
export async function deleteSignupRequests(q: Queryable, email: string | null): Promise<number> {
  const rows = email === null
    ? await q.query(`DELETE FROM signup_requests WHERE expires_at <= now() RETURNING id`)
    : await q.query(`DELETE FROM signup_requests WHERE email = $1 OR expires_at <= now() RETURNING id`, [email]);
  return rows.length;
}
