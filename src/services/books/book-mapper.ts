import { etag, given, jsonShape, raw, timestamp, value } from '../../db/json-shape.js';
import type { BookRow, Role } from './book-types.js';

/**
 * The Book response, in the Book schema's order: toBook makes it from a row,
 * bookJsonSql in the database for pages of GET /books/
 * (test/http/books/books.json.test.ts holds the two to the same bytes).
 */
const BOOK = jsonShape<BookRow, [role: Role | null]>()({
  slug: value('slug'),
  title: value('title'),
  subtitle: value('subtitle'),
  theme: value('theme'),
  settings: raw('settings'),
  use_case_slug: value('use_case_slug'),
  is_public: value('is_public'),
  status: value('status'),
  plan: value('plan_slug'),
  role: given(0),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
  archived_at: timestamp('archived_at'),
  etag: etag('updated_at'),
});

export const toBook = BOOK.toObject;
export type Book = ReturnType<typeof toBook>;

/** The SQL of one Book's JSON text, from the books row `b` and the role expression given (made once per pair). */
export function bookJsonSql(b: string, role: string): string {
  return BOOK.sql({ row: b }, [role])[0]!;
}
