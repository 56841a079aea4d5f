import type { Tx } from '../../db/client.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { coverOf } from '../books/cover-views.js';
import { toBook } from '../books/book-mapper.js';
import { findBookForUpdate } from '../books/book-reads.js';
import { toExportJob } from '../exports/export-mapper.js';
import { findExportById } from '../exports/export-reads.js';
import { isBookExport } from '../exports/export-types.js';
import { toInvitation } from '../invitations/invitation-mapper.js';
import { findInvitation } from '../invitations/invitation-reads.js';
import { findMedia, findMediaParents } from '../media/media-reads.js';
import { createMediaViews } from '../media/media-views.js';
import { toSubmission } from '../submissions/submission-mapper.js';
import { findSubmission } from '../submissions/submission-reads.js';
import type { EventType } from './event-types.js';
import { recordEvent } from './record-event.js';

/**
 * Events whose object is read back in the transaction of the change, so the
 * service that makes the change calls one line: each object is the one the
 * resource's GET (or list) route shows, from the same mapper.
 */

/** export.completed / export.failed: the ExportJob as GET …/exports/{id}/ answers it. */
export async function recordExportEvent(tx: Tx, type: 'export.completed' | 'export.failed', exportId: string): Promise<void> {
  const row = await findExportById(tx, exportId);
  if (row && isBookExport(row)) await recordEvent(tx, type, row.book_id, toExportJob(row));
}

/** media.processed (complete, failed or infected): the Media as GET …/media/{id}/ answers it, URLs signed now. */
export async function recordMediaProcessed(tx: Tx, store: ObjectStore, mediaId: string): Promise<void> {
  const ids = await findMediaParents(tx, mediaId);
  const m = ids && (await findMedia(tx, ids.book_id, ids.submission_id, mediaId));
  if (ids && m) await recordEvent(tx, 'media.processed', ids.book_id, await createMediaViews({ store }).toMedia(m));
}

/**
 * submission.updated for a change of a memory other than an edit: a file
 * added or removed (an approved one goes back to pending), its share card
 * ready. The Submission as GET answers it, URLs signed now.
 */
export async function recordSubmissionUpdated(tx: Tx, store: ObjectStore, book: { id: string; slug: string }, submissionId: string): Promise<void> {
  const row = await findSubmission(tx, book.id, submissionId);
  if (!row) return;
  const views = createMediaViews({ store });
  const media = await views.summariesFor(tx, [row.id]);
  await recordEvent(tx, 'submission.updated', book.id, toSubmission(row, book.slug, media.get(row.id) ?? [], await views.shareCardUrl(row.share_card_key)));
}

/** invitation.accepted: the Invitation as the book's invitation list shows it. */
export async function recordInvitationEvent(tx: Tx, type: Extract<EventType, 'invitation.accepted'>, bookId: string, invitationId: string): Promise<void> {
  const row = await findInvitation(tx, bookId, invitationId);
  if (row) await recordEvent(tx, type, bookId, toInvitation(row));
}

/**
 * book.updated for a change made outside PATCH …/books/{slug}/: its plan or
 * billing state moved by a Stripe event, the end of a paid period or the
 * operator. The Book as its owner reads it.
 */
export async function recordBookUpdated(tx: Tx, store: ObjectStore, bookId: string): Promise<void> {
  const book = await findBookForUpdate(tx, bookId);
  if (book) await recordEvent(tx, 'book.updated', bookId, toBook(book, 'owner', await coverOf(tx, store, book)));
}
