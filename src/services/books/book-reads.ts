import type { Queryable } from '../../db/client.js';
import * as books from './book-repository.js';
import type { BookContext, BookRow } from './book-types.js';

/**
 * The books domain's reads for the other domains (channels, submissions,
 * events, invitations…): they reach a book through these, never through
 * book-repository.ts (the domain-walls rule of .dependency-cruiser.cjs).
 */

/** The live book by slug with the caller's role and its plan (see book-repository's findBookContext); `lock` takes its row lock in `q`'s transaction. */
export function findBookContext(q: Queryable, slug: string, userId: string | null, lock: 'update' | 'share' | null = null): Promise<BookContext | undefined> {
  return books.findBookContext(q, slug, userId, lock);
}

/** The live book's row by id, locked FOR NO KEY UPDATE in `q`'s transaction. */
export function findBookForUpdate(q: Queryable, id: string): Promise<BookRow | undefined> {
  return books.findBookForUpdate(q, id);
}
