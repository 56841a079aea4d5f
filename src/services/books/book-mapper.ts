import { etag, given, jsonShape, raw, slot, timestamp, value } from '../../db/json-shape.js';
import type { BookRow, Role } from './book-types.js';

/** The book's chosen cover as the Book shows it (see cover-views.ts); null until one is chosen. */
export interface CoverView {
  media_id: string;
  url: string | null;
  width: number | null;
  height: number | null;
  focal_point: { x: number; y: number };
}

/**
 * The Book response, in the Book schema's order: toBook makes it from a row,
 * bookJsonSql in the database for pages of GET /books/, around the cover the
 * service signs per request (test/http/books/books.json.test.ts holds the two
 * to the same bytes).
 */
const BOOK = jsonShape<BookRow, [role: Role | null, cover: CoverView | null]>()({
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
  cover: slot(1),
  etag: etag('updated_at'),
});

/** `cover` comes signed from the cover views (coverOf). */
export const toBook = BOOK.toObject;
export type Book = ReturnType<typeof toBook>;

/** The SQL of one Book's JSON text around the cover: `head` to just before it (from `{`), `tail` after it (to `}`). */
export function bookJsonSql(b: string, role: string): { head: string; tail: string } {
  const [head, tail] = BOOK.sql({ row: b }, [role]);
  return { head: head!, tail: tail! };
}

/** One Book's JSON text from its database-made parts and its signed cover. */
export function bookJson(parts: { json_head: string; json_tail: string }, cover: CoverView | null): string {
  // CoverView holds plain values in the Cover schema's order: JSON.stringify writes them as the serializer does.
  return BOOK.joinJson(parts.json_head, JSON.stringify(cover), parts.json_tail);
}
