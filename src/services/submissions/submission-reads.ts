import type { Queryable } from '../../db/client.js';
import type { ModerationMove } from './moderation.js';
import * as submissions from './submission-repository.js';
import type { SubmissionRow } from './submission-types.js';

/**
 * What the submissions domain offers the other domains (media, events): a
 * memory read, and the two writes a change of one of its files makes on it
 * in the change's transaction. Never submission-repository.ts itself (the
 * domain-walls rule of .dependency-cruiser.cjs).
 */

/** A memory of the book (undefined: not there); `authorId` limits it to its author's, `forUpdate` locks it. */
export function findSubmission(q: Queryable, bookId: string, id: string, o: { authorId?: string; forUpdate?: boolean } = {}) {
  return submissions.findSubmission(q, bookId, id, o);
}

/** A file of the memory added or removed: its moderation move (an approved memory back to pending), or just updated_at. */
export function applyMediaChange(q: Queryable, bookId: string, id: string, move: ModerationMove): Promise<SubmissionRow> {
  return submissions.applyMediaChange(q, bookId, id, move);
}

/** Moves the book's last activity to now (a memory's change is the book's activity). */
export function touchBookActivity(q: Queryable, bookId: string): Promise<void> {
  return submissions.touchBookActivity(q, bookId);
}
