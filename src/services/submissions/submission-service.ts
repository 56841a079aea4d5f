import type { Db, Queryable } from '../../db/client.js';
import { errors } from '../../errors.js';
import { assertIfMatch } from '../../http/etag.js';
import { createdDesc, toPage, updatedAsc, type CursorCodec } from '../../http/lists.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { MailMessage } from '../../mail/mailer.js';
import type { BookContext } from '../books/book-types.js';
import { assertApprovalCap, assertMediaReady } from './approval-checks.js';
import { nextModerationState, type ModerationAction } from './moderation.js';
import { rejectionMessage } from './notifications.js';
import { toSubmission } from './submission-mapper.js';
import {
  applyModerationMove,
  deleteSubmission,
  findSubmission,
  insertSubmission,
  listSubmissionsOfBook,
  lockBook,
  touchBookActivity,
  updateSubmission,
  type BookLock,
} from './submission-repository.js';
import type { SubmissionInput, SubmissionRow } from './submission-types.js';

/** Puts a message on the mail queue inside the caller's transaction, so it is sent only if the change commits. */
export type EnqueueMail = (message: MailMessage, tx: Queryable) => Promise<void>;

/** GET …/submissions/ orderings: newest first, or oldest change first when syncing with updated_since. */
export const SUBMISSION_ORDERINGS = { created: createdDesc('s'), sync: updatedAsc('s') };

/** Path ids are opaque; one not shaped like ours names nothing. */
function mustBeId(id: string): void {
  if (!isUuid(id)) throw errors.notFound('submission');
}

function assertText(input: SubmissionInput): void {
  if (input.text_content !== undefined && input.text_content.trim() === '') {
    throw errors.validation('text_content cannot be blank.', { field: 'text_content' });
  }
}

const stateOf = (s: SubmissionRow) => ({ status: s.status, isPinned: s.is_pinned });

export function createSubmissionService(deps: { db: Db; cursors: CursorCodec; enqueueMail?: EnqueueMail }) {
  const { db, cursors } = deps;

  /** Runs fn with the book row locked (see lockBook); a book deleted meanwhile is not found. */
  function inBook<T>(ctx: BookContext, fn: (tx: Queryable, book: BookLock) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      const book = await lockBook(tx, ctx.book.id);
      if (!book) throw errors.notFound('book');
      return fn(tx, book);
    });
  }

  return {
    /**
     * A new pending memory by the caller: contributor_email is always the
     * caller's own (it cannot be supplied), the source is `api`.
     */
    async createSubmission(author: { id: string; email: string }, ctx: BookContext, input: SubmissionInput & { text_content: string }) {
      assertText(input);
      return inBook(ctx, async (tx) => {
        const row = await insertSubmission(tx, {
          id: uuidv7(),
          bookId: ctx.book.id,
          contributorUserId: author.id,
          contributorName: input.contributor_name ?? null,
          contributorEmail: author.email,
          textContent: input.text_content,
          isPrivate: input.is_private ?? false,
          source: 'api',
        });
        await touchBookActivity(tx, ctx.book.id);
        return toSubmission(row, ctx.book.slug);
      });
    },

    /** Owners and admins read every row of the book, private ones included. */
    async listSubmissions(ctx: BookContext, q: { limit: number; cursor?: string; updatedSince: string | null }) {
      const ordering = q.updatedSince ? 'submissions:sync' : 'submissions:created';
      const keys = q.updatedSince ? SUBMISSION_ORDERINGS.sync : SUBMISSION_ORDERINGS.created;
      const after = q.cursor ? cursors.decode(ordering, q.cursor) : null;
      const rows = await listSubmissionsOfBook(db, ctx.book.id, { updatedSince: q.updatedSince, keys, after, limit: q.limit });
      const page = toPage(rows as unknown as (SubmissionRow & Record<string, unknown>)[], q.limit, keys, cursors, ordering);
      return { ...page, items: page.items.map((s) => toSubmission(s, ctx.book.slug)) };
    },

    async getSubmission(ctx: BookContext, id: string) {
      mustBeId(id);
      const row = await findSubmission(db, ctx.book.id, id);
      if (!row) throw errors.notFound('submission');
      return toSubmission(row, ctx.book.slug);
    },

    /**
     * Partial edit under an optional If-Match. A contributor may edit only a
     * row they wrote; any other is not found for them (they cannot see it),
     * before the If-Match is looked at. A contributor's edit of an approved
     * row sends it back to pending (unpinned, share card cleared). Fields
     * sent with their current value are not a change: nothing is written.
     */
    async updateSubmission(actor: { id: string }, ctx: BookContext, id: string, patch: SubmissionInput, ifMatch: string | undefined) {
      mustBeId(id);
      assertText(patch);
      return inBook(ctx, async (tx) => {
        const authorOnly = ctx.role === 'contributor';
        const current = await findSubmission(tx, ctx.book.id, id, { forUpdate: true, ...(authorOnly ? { authorId: actor.id } : {}) });
        if (!current) throw errors.notFound('submission');
        assertIfMatch(ifMatch, `"${current.updated_at}"`);
        const changes: SubmissionInput = {};
        for (const k of ['text_content', 'contributor_name', 'is_private'] as const) {
          if (patch[k] !== undefined && patch[k] !== current[k]) (changes as Record<string, unknown>)[k] = patch[k];
        }
        if (!Object.keys(changes).length) return toSubmission(current, ctx.book.slug);
        const move = authorOnly ? nextModerationState(stateOf(current), 'author_edit') : null;
        const row = await updateSubmission(tx, ctx.book.id, id, changes, move);
        await touchBookActivity(tx, ctx.book.id);
        return toSubmission(row, ctx.book.slug);
      });
    },

    /** Permanent. */
    async deleteSubmission(ctx: BookContext, id: string) {
      mustBeId(id);
      await inBook(ctx, async (tx) => {
        // TODO(media): queue cleanup of this submission's media files,
        // derived assets and the book's storage counter here, in this transaction.
        if (!(await deleteSubmission(tx, ctx.book.id, id))) throw errors.notFound('submission');
        await touchBookActivity(tx, ctx.book.id);
      });
    },

    /**
     * approve, reject, pin or unpin, through the moderation state machine. A
     * move to the state already held answers `changed: false` and writes
     * nothing. Approve also checks media (400) and the plan's cap (402);
     * reject records the reason and notifies the contributor by email.
     */
    async moderate(ctx: BookContext, id: string, action: ModerationAction, reason: string | null = null) {
      mustBeId(id);
      const why = reason?.trim() || null;
      return inBook(ctx, async (tx, book) => {
        const current = await findSubmission(tx, ctx.book.id, id, { forUpdate: true });
        if (!current) throw errors.notFound('submission');
        const move = nextModerationState(stateOf(current), action);
        if (!move.changed) return { action, changed: false, submission: toSubmission(current, ctx.book.slug) };
        if (action === 'approve') {
          await assertMediaReady(tx, id);
          await assertApprovalCap(tx, book);
        }
        // Reject records its reason, approve clears an earlier one; pin and unpin leave it.
        const rejectionReason = action === 'reject' ? why : action === 'approve' ? null : undefined;
        const row = await applyModerationMove(tx, ctx.book.id, id, move, rejectionReason);
        await touchBookActivity(tx, ctx.book.id);
        if (action === 'reject' && row.contributor_email && deps.enqueueMail) {
          await deps.enqueueMail(rejectionMessage({ ...row, contributor_email: row.contributor_email }, book, why), tx);
        }
        // TODO(media, exports): on approve, enqueue the share card render here (share_card_url stays null until then).
        return { action, changed: true, submission: toSubmission(row, ctx.book.slug) };
      });
    },
  };
}
export type SubmissionService = ReturnType<typeof createSubmissionService>;
