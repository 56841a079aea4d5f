import type { Queryable } from '../../db/client.js';
import type { Role } from '../books/book-access.js';

/** Adds or changes a membership (never the owner's; ownership does not move). */
export async function upsertMember(q: Queryable, bookId: string, userId: string, role: Exclude<Role, 'owner'>) {
  const [row] = await q.query<{ role: Role; joined_at: string; updated_at: string }>(
    `INSERT INTO book_members (book_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (book_id, user_id) DO UPDATE SET role = EXCLUDED.role WHERE book_members.role <> 'owner'
     RETURNING role, joined_at, updated_at`,
    [bookId, userId, role],
  );
  return row;
}

export async function countMembers(q: Queryable, bookId: string): Promise<number> {
  const [{ n }] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM book_members WHERE book_id = $1`, [bookId]);
  return n;
}
