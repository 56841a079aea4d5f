import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { SortKey } from '../../db/pagination.js';
import type { Role } from '../books/book-access.js';

/** A member as listed: the membership and the user's public identity. */
export interface MemberRow {
  user_id: string;
  /** null for a contributor who joined by SMS or Telegram. */
  email: string | null;
  first_name: string;
  last_name: string;
  role: Role;
  joined_at: string;
  /** The later of the membership's and the user's own change: a renamed member shows up in a sync. */
  updated_at: string;
}

const COLUMNS = `m.user_id, u.email, u.first_name, u.last_name, m.role, m.joined_at, GREATEST(m.updated_at, u.updated_at) AS updated_at`;
const FROM = `book_members m JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL`;

/** GET …/members/ orderings: newest first, or oldest change first when syncing with updated_since. */
export const MEMBER_ORDERINGS: { joined: SortKey[]; sync: SortKey[] } = {
  joined: [
    { sql: 'm.joined_at', dir: 'desc', field: 'joined_at', cast: 'timestamptz' },
    { sql: 'm.user_id', dir: 'desc', field: 'user_id', cast: 'uuid' },
  ],
  sync: [
    { sql: 'GREATEST(m.updated_at, u.updated_at)', dir: 'asc', field: 'updated_at', cast: 'timestamptz' },
    { sql: 'm.user_id', dir: 'asc', field: 'user_id', cast: 'uuid' },
  ],
};

/** One page of a book's members (see paginate for where/params/orderBy). */
export function selectMembersOfBook(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  const params = [...o.params, o.limit];
  return q.query<MemberRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${params.length}`, params);
}

export function findMember(q: Queryable, bookId: string, userId: string) {
  return one<MemberRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE m.book_id = $1 AND m.user_id = $2`, [bookId, userId]);
}

/** Adds a membership; undefined when the user already is a member (in any role, the owner included). */
export async function insertMember(q: Queryable, bookId: string, userId: string, role: Exclude<Role, 'owner'>) {
  const [row] = await q.query<{ role: Role; joined_at: string; updated_at: string }>(
    `INSERT INTO book_members (book_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (book_id, user_id) DO NOTHING
     RETURNING role, joined_at, updated_at`,
    [bookId, userId, role],
  );
  return row;
}

/**
 * Ends a membership other than the owner's; false when there was none to end, or when its account is
 * deleted (it left the book's member list, with its member.removed, when the account was deleted; its row
 * only waits for the account's purge).
 */
export async function deleteMember(q: Queryable, bookId: string, userId: string): Promise<boolean> {
  const rows = await q.query<{ active: boolean }>(
    `DELETE FROM book_members m WHERE m.book_id = $1 AND m.user_id = $2 AND m.role <> 'owner'
     RETURNING EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id AND u.deleted_at IS NULL) AS active`,
    [bookId, userId],
  );
  return rows.some((r) => r.active);
}

export async function countMembers(q: Queryable, bookId: string): Promise<number> {
  const [{ n }] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM book_members WHERE book_id = $1`, [bookId]);
  return n;
}

/** The owner of a live book, as the actor the operator CLI acts for. */
export async function findBookOwner(q: Queryable, slug: string) {
  const [row] = await q.query<{ id: string; email: string }>(
    `SELECT u.id, u.email FROM books b JOIN users u ON u.id = b.owner_id WHERE b.slug = $1 AND b.deleted_at IS NULL`,
    [slug],
  );
  return row;
}
