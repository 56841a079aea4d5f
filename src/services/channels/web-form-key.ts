import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { randomToken, safeEqual } from '../../lib/secrets.js';

/**
 * The contributor form of a book that is not public is reached only with the
 * book's form key: /b/{slug}/?key=<key>. Slugs are made from titles and easy
 * to guess; the key is not. A public book's form needs none.
 */
export interface WebFormBook {
  slug: string;
  is_public: boolean;
  form_key: string;
}

const KEY_RE = /^[A-Za-z0-9_-]{16,64}$/;

/** The form's path with its key when the book needs one (`/b/{slug}/`, `/b/{slug}/thanks/`). */
export function webFormPath(book: WebFormBook, suffix = ''): string {
  const path = `/b/${encodeURIComponent(book.slug)}/${suffix}`;
  return book.is_public ? path : `${path}?key=${encodeURIComponent(book.form_key)}`;
}

/** Whether `key` opens the form of `book` (compared in constant time; a public book needs none). */
export function formKeyOpens(book: Pick<WebFormBook, 'is_public' | 'form_key'>, key: unknown): boolean {
  if (book.is_public) return true;
  return typeof key === 'string' && KEY_RE.test(key) && safeEqual(key, book.form_key);
}

export async function findFormKey(q: Queryable, bookId: string): Promise<string> {
  const row = await one<{ form_key: string }>(q, `SELECT form_key FROM books WHERE id = $1`, [bookId]);
  return row?.form_key ?? '';
}

/** A new key: every link with the old one stops opening the form. */
export async function rotateFormKey(q: Queryable, bookId: string): Promise<string> {
  const key = randomToken(18);
  await q.query(`UPDATE books SET form_key = $2 WHERE id = $1`, [bookId, key]);
  return key;
}

/** How much of the form key a mail address carries: mail systems may lower-case a local part, and it should stay short (64 characters at most). */
const MAIL_KEY_LENGTH = 16;
const mailKeyOf = (formKey: string) => formKey.slice(0, MAIL_KEY_LENGTH).toLowerCase();

/**
 * The local part of the book's mail address: its slug, and for a book that is
 * not public the form key's mail form after a `+` (`<slug>+<key>`), so a
 * guessed slug reaches no private book and a rotated key ends the old address.
 */
export function mailLocalPart(book: WebFormBook): string {
  return book.is_public ? book.slug : `${book.slug}+${mailKeyOf(book.form_key)}`;
}

/** Whether the `+` part of an address (null when it has none) opens the book by mail; compared in constant time, regardless of case. */
export function mailKeyOpens(book: Pick<WebFormBook, 'is_public' | 'form_key'>, key: string | null): boolean {
  if (book.is_public) return true;
  return typeof key === 'string' && key.length === MAIL_KEY_LENGTH && book.form_key.length >= MAIL_KEY_LENGTH && safeEqual(key.toLowerCase(), mailKeyOf(book.form_key));
}
