import type { Db, Queryable } from '../../db/client.js';
import { createdDesc, paginate, updatedAsc, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { MailMessage } from '../../mail/mailer.js';
import type { Actor, BookAccess } from '../books/book-access.js';
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
  selectSubmissionsOfBook,
  touchBookActivity,
  updateSubmission,
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

/** The submission a route names, of this book; another book's id is simply not found. */
function submissionTarget(id: string, forUpdate: boolean) {
  return async (ctx: BookContext, q: Queryable) => {
    mustBeId(id);
    const row = await findSubmission(q, ctx.book.id, id, { forUpdate });
    if (!row) throw errors.notFound('submission');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

/**
 * Submissions of a book. Every write locks the book row first (requireBookAccess
 * with lock 'update'), so writes in one book run one after another: the approve
 * cap counts under it, and the lock order (book, then submission) is the same
 * everywhere, so two writers never deadlock.
 */
export function createSubmissionService(deps: { db: Db; cursors: CursorCodec; access: BookAccess; enqueueMail?: EnqueueMail }) {
  const { db, cursors, access } = deps;

  return {
    /** Who wrote a submission of this book: a user id, null for one sent without an account, undefined when there is none. */
    async authorOf(bookId: string, id: string): Promise<string | null | undefined> {
      if (!isUuid(id)) return undefined;
      return (await findSubmission(db, bookId, id))?.contributor_user_id;
    },

    /**
     * A new pending memory by the actor: contributor_email is always the
     * actor's own (it cannot be supplied), the source is `api`.
     */
    async createSubmission(actor: Actor, slug: string, input: SubmissionInput & { text_content: string }) {
      return db.transaction(async (tx) => {
        const { ctx } = await access.requireBookAccess(actor, slug, 'create_submission', { lock: 'update' });
        assertText(input); // the route's own rules come after the gates
        const row = await insertSubmission(tx, {
          id: uuidv7(),
          bookId: ctx.book.id,
          contributorUserId: actor.id,
          contributorName: input.contributor_name ?? null,
          contributorEmail: actor.email,
          textContent: input.text_content,
          isPrivate: input.is_private ?? false,
          source: 'api',
        });
        await touchBookActivity(tx, ctx.book.id);
        return toSubmission(row, ctx.book.slug);
      });
    },

    /** Owners and admins read every row of the book, private ones included. */
    async listSubmissions(actor: Actor, slug: string, query: ListQuery) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'list_submissions');
      const { page, watermark } = await paginate<SubmissionRow & Record<string, unknown>>(db, cursors, query, {
        list: `submissions:${ctx.book.id}`,
        ordering: { name: 'created', keys: SUBMISSION_ORDERINGS.created },
        sync: SUBMISSION_ORDERINGS.sync,
        where: [`s.book_id = $1`],
        params: [ctx.book.id],
        select: (o) => selectSubmissionsOfBook(db, o) as Promise<(SubmissionRow & Record<string, unknown>)[]>,
      });
      return { page: { ...page, items: page.items.map((s) => toSubmission(s, ctx.book.slug)) }, watermark };
    },

    async getSubmission(actor: Actor, slug: string, id: string) {
      const { ctx, target } = await access.requireBookAccess(actor, slug, 'list_submissions', { target: submissionTarget(id, false) });
      return toSubmission(target, ctx.book.slug);
    },

    /**
     * Partial edit under an optional If-Match. Owners and admins edit any row;
     * a contributor only a row they wrote: the book is visible to them, so
     * another's row is 403 insufficient_role (before If-Match is looked at).
     * A contributor's edit of an approved row sends it back to pending
     * (unpinned, share card cleared). Fields sent with their current value
     * are not a change: nothing is written.
     */
    async updateSubmission(actor: Actor, slug: string, id: string, patch: SubmissionInput, ifMatch: string | undefined) {
      return db.transaction(async (tx) => {
        const { ctx, target: current } = await access.requireBookAccess(actor, slug, 'edit_own_submission', {
          lock: 'update',
          ifMatch,
          target: async (c, q) => {
            const found = await submissionTarget(id, true)(c, q);
            if (c.role === 'contributor' && found.value.contributor_user_id !== actor.id) throw errors.insufficientRole('owner or admin');
            return found;
          },
        });
        assertText(patch);
        const changes: SubmissionInput = {};
        for (const k of ['text_content', 'contributor_name', 'is_private'] as const) {
          if (patch[k] !== undefined && patch[k] !== current[k]) (changes as Record<string, unknown>)[k] = patch[k];
        }
        if (!Object.keys(changes).length) return toSubmission(current, ctx.book.slug);
        const move = ctx.role === 'contributor' ? nextModerationState(stateOf(current), 'author_edit') : null;
        const row = await updateSubmission(tx, ctx.book.id, id, changes, move);
        await touchBookActivity(tx, ctx.book.id);
        return toSubmission(row, ctx.book.slug);
      });
    },

    /** Permanent. */
    async deleteSubmission(actor: Actor, slug: string, id: string) {
      await db.transaction(async (tx) => {
        const { ctx } = await access.requireBookAccess(actor, slug, 'delete_submission', { lock: 'update', target: submissionTarget(id, true) });
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
    async moderate(actor: Actor, slug: string, id: string, action: ModerationAction, reason: string | null = null) {
      const why = reason?.trim() || null;
      const bookAction = action === 'approve' ? 'approve_submission' : 'moderate_submissions';
      return db.transaction(async (tx) => {
        const { ctx, target: current } = await access.requireBookAccess(actor, slug, bookAction, { lock: 'update', target: submissionTarget(id, true) });
        const move = nextModerationState(stateOf(current), action);
        if (!move.changed) return { action, changed: false, submission: toSubmission(current, ctx.book.slug) };
        if (action === 'approve') {
          await assertMediaReady(tx, id);
          await assertApprovalCap(tx, ctx);
        }
        // Reject records its reason, approve clears an earlier one; pin and unpin leave it.
        const rejectionReason = action === 'reject' ? why : action === 'approve' ? null : undefined;
        const row = await applyModerationMove(tx, ctx.book.id, id, move, rejectionReason);
        await touchBookActivity(tx, ctx.book.id);
        if (action === 'reject' && row.contributor_email && deps.enqueueMail) {
          await deps.enqueueMail(rejectionMessage({ ...row, contributor_email: row.contributor_email }, ctx.book, why), tx);
        }
        // TODO(media, exports): on approve, enqueue the share card render here (share_card_url stays null until then).
        return { action, changed: true, submission: toSubmission(row, ctx.book.slug) };
      });
    },
  };
}
export type SubmissionService = ReturnType<typeof createSubmissionService>;
