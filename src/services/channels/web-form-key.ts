import type { Queryable } from '../../db/client.js';
import { randomToken, safeEqual } from '../../lib/secrets.js';
import { setFormKey } from './channel-repository.js';

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

export { findFormKey } from './channel-repository.js';

/** A new key: every link with the old one stops opening the form. */
export async function rotateFormKey(q: Queryable, bookId: string): Promise<string> {
  const key = randomToken(18);
  await setFormKey(q, bookId, key);
  return key;
}
