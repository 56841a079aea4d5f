import type { Queryable } from '../../db/client.js';
import * as media from './media-repository.js';
import type { MediaRow } from './media-types.js';

/**
 * The media domain's reads for the other domains (events, transcriptions):
 * they reach a file through these, never through media-repository.ts (the
 * domain-walls rule of .dependency-cruiser.cjs).
 */

/** A file of a memory (undefined: not there); `forUpdate` locks its row in `q`'s transaction. */
export function findMedia(q: Queryable, bookId: string, submissionId: string, mediaId: string, o: { forUpdate?: boolean } = {}): Promise<MediaRow | undefined> {
  return media.findMedia(q, bookId, submissionId, mediaId, o);
}

/** The book and memory a file belongs to (undefined: no such file). */
export function findMediaParents(q: Queryable, mediaId: string) {
  return media.findMediaParents(q, mediaId);
}
