import type { Queryable } from '../../db/client.js';
import type { Role } from '../books/book-access.js';

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
