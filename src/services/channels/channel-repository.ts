import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';

/** The book's contributor-form key ('' when the book is gone). */
export async function findFormKey(q: Queryable, bookId: string): Promise<string> {
  const row = await one<{ form_key: string }>(q, `SELECT form_key FROM books WHERE id = $1`, [bookId]);
  return row?.form_key ?? '';
}

/** Stores a new form key for the book. */
export async function setFormKey(q: Queryable, bookId: string, key: string): Promise<void> {
  await q.query(`UPDATE books SET form_key = $2 WHERE id = $1`, [bookId, key]);
}
