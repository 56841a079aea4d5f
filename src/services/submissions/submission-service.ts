import type { Db, Queryable, Tx } from '../../db/client.js';
import { oneLine } from '../../lib/names.js';
import type { EmailTrimmed } from './submission-types.js';
import { createdDesc, paginate, updatedAsc, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { MailMessage } from '../../mail/mailer.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import type { BookContext } from '../books/book-types.js';
import type { MediaService, StagedUpload } from '../media/media-service.js';
import type { MediaViews } from '../media/media-views.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { assertApprovalCap, assertMediaReady } from './approval-checks.js';
import { nextModerationState, type ModerationAction } from './moderation.js';
import { rejectionMessage } from './notifications.js';
import { submissionJson, toSubmission } from './submission-mapper.js';
import {
  applyModerationMove,
  findAuthorEmail,
  listAuthoredInOthersBooks,
  lockBookRow,
  deleteSubmission,
  findSubmission,
  insertSubmission,
  selectSubmissionPageJson,
  type SubmissionPageRow,
  touchBookActivity,
  updateSubmission,
} from './submission-repository.js';
import { MAX_CONTRIBUTOR_NAME_LENGTH, MAX_TEXT_LENGTH, type SubmissionInput, type SubmissionRow } from './submission-types.js';
import { findBookContext } from '../books/book-reads.js';
import { findPlanChannels } from '../plans/plan-service.js';
import { findOpenChannelBook, isSwitchedOff } from '../channels/channel-service.js';
import type { UploadField, WebUploadService } from '../web-uploads/web-upload-service.js';
import { recordEvent } from '../events/record-event.js';

/** Puts a message on the mail queue inside the caller's transaction, so it is sent only if the change commits. */
export type EnqueueMail = (message: MailMessage, tx: Tx) => Promise<void>;

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

const MODERATION_EVENTS = { approve: 'submission.approved', reject: 'submission.rejected', pin: 'submission.pinned', unpin: 'submission.unpinned' } as const;

/** What a person types into the public web form, before it is checked. */
export interface WebSubmissionInput {
  text: string;
  name: string;
}

/**
 * The web form's fields as they will be stored, or 400 validation_failed
 * naming the field, with a message meant for the person at the form. Line
 * breaks are normalised (browsers send CRLF) and the ends trimmed; NUL, which
 * no text column can hold, is dropped. Exported so the page can check the
 * fields before it takes in a photo.
 */
export function checkWebSubmission(input: WebSubmissionInput): WebSubmissionInput {
  const clean = (v: string) => v.replace(/\u0000/g, '').replace(/\r\n?/g, '\n').trim();
  const name = clean(input.name).replace(/\s+/g, ' ');
  const text = clean(input.text);
  if (!name) throw errors.validation('Please tell us your name.', { field: 'name' });
  if (name.length > MAX_CONTRIBUTOR_NAME_LENGTH) throw errors.validation(`Your name can be at most ${MAX_CONTRIBUTOR_NAME_LENGTH} characters.`, { field: 'name', reason: 'too_long', max: MAX_CONTRIBUTOR_NAME_LENGTH });
  if (!text) throw errors.validation('Please write your memory.', { field: 'text' });
  if (text.length > MAX_TEXT_LENGTH) {
    throw errors.validation(`Your memory can be at most ${MAX_TEXT_LENGTH.toLocaleString('en')} characters; this one has ${text.length.toLocaleString('en')}.`, { field: 'text', reason: 'too_long', max: MAX_TEXT_LENGTH, length: text.length });
  }
  return { text, name };
}

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
export function createSubmissionService(deps: {
  db: Db;
  cursors: CursorCodec;
  access: BookAccess;
  views: MediaViews;
  media: Pick<MediaService, 'releaseSubmissionFiles' | 'attachStaged'>;
  queue: JobSender;
  enqueueMail: EnqueueMail;
  /** Queues the new-memory notifications of a submission just written, in its transaction (NotificationService.announce). */
  announce?: (tx: Tx, submission: { id: string; book_id: string }) => Promise<void>;
  /** Tickets for the files a web memory will send resumably (WebUploadService.issueTickets). */
  webUploads?: Pick<WebUploadService, 'issueTickets'>;
}) {
  const { db, cursors, access, views } = deps;

  /** Submissions as the API shows them: each with its media and share card, URLs signed afresh. */
  async function present(q: Queryable, rows: SubmissionRow[], bookSlug: string) {
    const { media, cards } = await signedParts(q, rows.map((r) => ({ id: r.id, shareCardKey: r.share_card_key })));
    return rows.map((r) => toSubmission(r, bookSlug, media.get(r.id) ?? [], cards.get(r.id) ?? null));
  }
  /** What a submission shows signed afresh on every read: its media and its share card's URL, by submission id. */
  async function signedParts(q: Queryable, rows: { id: string; shareCardKey: string | null }[]) {
    const media = await views.summariesFor(
      q,
      rows.map((r) => r.id),
    );
    // Only rows with a share card sign a URL: a page of 50 then costs no promise per row.
    const withCard = rows.filter((r) => r.shareCardKey);
    const cards = new Map(withCard.length ? await Promise.all(withCard.map(async (r) => [r.id, await views.shareCardUrl(r.shareCardKey)] as const)) : []);
    return { media, cards };
  }
  /** A card cleared from the row (it left approved): its file goes once the change commits. */
  async function dropShareCard(q: Tx, before: SubmissionRow) {
    if (before.share_card_key) await deps.queue.send('storage.delete-objects', { keys: [before.share_card_key] }, { tx: q });
  }
  const presentOne = async (q: Queryable, row: SubmissionRow, bookSlug: string) => (await present(q, [row], bookSlug))[0];

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
    async createSubmission(tx: Tx, actor: Actor, slug: string, input: SubmissionInput & { text_content: string }) {
      // The book's lock comes last (with the activity bump): concurrent memories to one book overlap until then.
      return access.writeThenLock(tx, actor, slug, 'create_submission', async (ctx) => {
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
        await deps.announce?.(tx, row);
        // A new memory has no media and no share card yet: nothing to look up.
        const created = toSubmission(row, ctx.book.slug, [], null);
        await recordEvent(tx, 'submission.created', ctx.book.id, created);
        return created;
      });
    },

    /**
     * A memory that came in over a messaging channel (an SMS, a Telegram
     * message) from a member of the book: a pending submission with that
     * `source`, written as the member. The book must take memories over the
     * channel now: live and active (not archived, not being deleted, not in
     * its grace period), its plan allowing the channel and the owner not
     * having switched it off. Otherwise nothing is written and the reason
     * comes back (the sender's message is dropped, not bounced).
     */
    async receiveInbound(
      tx: Tx,
      input: { slug: string; userId: string; text: string; source: 'sms' | 'telegram' | 'whatsapp'; contributorName: string | null },
    ): Promise<{ submission: SubmissionRow } | { refused: string }> {
      const ctx = await findBookContext(tx, input.slug, input.userId, 'update');
      if (!ctx || ctx.book.deletion_requested_at) return { refused: 'book_gone' };
      if (ctx.role === null) return { refused: 'not_a_member' };
      if (ctx.book.status !== 'active') return { refused: 'book_archived' };
      if (ctx.inGracePeriod) return { refused: 'book_grace_period' };
      const plan = await findPlanChannels(tx, ctx.book.plan_slug);
      if (!plan?.channels.includes(input.source) || isSwitchedOff(ctx.book.settings, input.source)) return { refused: 'channel_not_enabled' };
      // The same bounds as the API's text_content (1 to 20,000 characters); a provider never sends more than a few thousand.
      const text = input.text.trim().slice(0, 20_000);
      if (!text) return { refused: 'empty' };
      const author = await findAuthorEmail(tx, input.userId);
      const row = await insertSubmission(tx, {
        id: uuidv7(),
        bookId: ctx.book.id,
        contributorUserId: input.userId,
        contributorName: input.contributorName,
        contributorEmail: author?.email ?? null,
        textContent: text,
        isPrivate: false,
        source: input.source,
      });
      await touchBookActivity(tx, ctx.book.id);
      await deps.announce?.(tx, row);
      await recordEvent(tx, 'submission.created', ctx.book.id, await presentOne(tx, row, ctx.book.slug));
      return { submission: row };
    },

    /**
     * A memory sent through the book's public web form (the `web` channel)
     * by anyone with the link: a pending submission with source `web`, no
     * user and no email, the name as typed. The book must take memories
     * over the web now (else 404, like a book that does not exist), judged
     * again under its row lock. A photo, already streamed in by
     * MediaService.stageWebPhoto, is attached in the same transaction; the
     * caller discards it if this throws. Files still to come resumably
     * (`uploads`) get a ticket each in the same transaction: the words are
     * saved before a byte of them is sent.
     */
    async createWebSubmission(slug: string, input: WebSubmissionInput, photo?: StagedUpload, uploads: readonly UploadField[] = []) {
      return db.transaction(async (tx) => {
        const ctx = await findOpenChannelBook(tx, slug, 'web', 'update');
        if (!ctx) throw errors.notFound('book');
        const { text, name } = checkWebSubmission(input);
        const row = await insertSubmission(tx, {
          id: uuidv7(),
          bookId: ctx.book.id,
          contributorUserId: null,
          contributorName: name,
          contributorEmail: null,
          textContent: text,
          isPrivate: false,
          source: 'web',
        });
        if (photo) await deps.media.attachStaged(tx, ctx, row, photo, null);
        if (uploads.length && !deps.webUploads) throw new Error('resumable uploads need the web upload service');
        const tickets = uploads.length ? await deps.webUploads!.issueTickets(tx, ctx.book.id, row.id, uploads) : [];
        await touchBookActivity(tx, ctx.book.id);
        await deps.announce?.(tx, row);
        await recordEvent(tx, 'submission.created', ctx.book.id, await presentOne(tx, row, ctx.book.slug));
        return { id: row.id, book: { slug: ctx.book.slug, title: ctx.book.title }, tickets };
      });
    },

    /**
     * A memory mailed to the book's address: a pending submission with
     * source `email`, in the caller's transaction, which holds the book's row
     * lock (`ctx` read under it, the book taking mail now). The sender's name
     * and address as the mail gave them; `userId` when the sender is a member
     * of the book (their address proved). Files already streamed in
     * (MediaService.stageChannelFile) are attached; the caller discards them
     * if this throws.
     */
    async receiveEmail(
      tx: Tx,
      ctx: BookContext,
      input: { userId: string | null; name: string | null; email: string | null; text: string; trimmed?: EmailTrimmed | null },
      files: StagedUpload[],
    ): Promise<SubmissionRow> {
      const row = await insertSubmission(tx, {
        id: uuidv7(),
        bookId: ctx.book.id,
        contributorUserId: input.userId,
        // A mail's display name may carry encoded control characters: one line, like every stored name.
        contributorName: input.name ? oneLine(input.name).slice(0, MAX_CONTRIBUTOR_NAME_LENGTH) || null : null,
        contributorEmail: input.email,
        textContent: input.text.slice(0, MAX_TEXT_LENGTH),
        isPrivate: false,
        source: 'email',
        emailTrimmed: input.trimmed ?? null,
      });
      for (const file of files) await deps.media.attachStaged(tx, ctx, row, file, input.userId);
      await touchBookActivity(tx, ctx.book.id);
      await deps.announce?.(tx, row);
      await recordEvent(tx, 'submission.created', ctx.book.id, await presentOne(tx, row, ctx.book.slug));
      return row;
    },

    /**
     * Owners and admins read every row of the book, private ones included.
     * Items are each submission's JSON text: made by the database around the
     * URLs signed here (see submissionJsonSql).
     */
    async listSubmissions(actor: Actor, slug: string, query: ListQuery) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'list_submissions');
      const { page, watermark } = await paginate<SubmissionPageRow>(db, cursors, query, {
        list: `submissions:${ctx.book.id}`,
        ordering: { name: 'created', keys: SUBMISSION_ORDERINGS.created },
        sync: SUBMISSION_ORDERINGS.sync,
        where: [`s.book_id = $1`],
        params: [ctx.book.id],
        select: (o) => selectSubmissionPageJson(db, o, ctx.book.slug),
      });
      const { media, cards } = await signedParts(db, page.items.map((r) => ({ id: r.row_id, shareCardKey: r.share_card_key })));
      const items = page.items.map((r) => submissionJson(r, cards.get(r.row_id) ?? null, media.get(r.row_id) ?? []));
      return { page: { ...page, items }, watermark };
    },

    async getSubmission(actor: Actor, slug: string, id: string) {
      const { ctx, target } = await access.requireBookAccess(actor, slug, 'list_submissions', { target: submissionTarget(id, false) });
      return presentOne(db, target, ctx.book.slug);
    },

    /**
     * Partial edit under an optional If-Match. Owners and admins edit any row;
     * a contributor only a row they wrote: the book is visible to them, so
     * another's row is 403 insufficient_role (before If-Match is looked at).
     * A contributor's edit of an approved row sends it back to pending
     * (unpinned, share card cleared). Fields sent with their current value
     * are not a change: nothing is written.
     */
    async updateSubmission(tx: Tx, actor: Actor, slug: string, id: string, patch: SubmissionInput, ifMatch: string | undefined) {
      const { ctx, target: current } = await access.requireBookAccess(actor, slug, 'edit_own_submission', {
        tx,
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
      if (!Object.keys(changes).length) return presentOne(tx, current, ctx.book.slug);
      const move = ctx.role === 'contributor' ? nextModerationState(stateOf(current), 'author_edit') : null;
      const row = await updateSubmission(tx, ctx.book.id, id, changes, move);
      if (move?.clearShareCard) await dropShareCard(tx, current);
      await touchBookActivity(tx, ctx.book.id);
      const updated = await presentOne(tx, row, ctx.book.slug);
      await recordEvent(tx, 'submission.updated', ctx.book.id, updated);
      return updated;
    },

    /** Permanent. */
    async deleteSubmission(tx: Tx, actor: Actor, slug: string, id: string) {
      const { ctx, target } = await access.requireBookAccess(actor, slug, 'delete_submission', { tx, lock: 'update', target: submissionTarget(id, true) });
      // Its files go in the background once this commits; the storage they held is given back now.
      await deps.media.releaseSubmissionFiles(tx, ctx.book.id, target);
      if (!(await deleteSubmission(tx, ctx.book.id, id))) throw errors.notFound('submission');
      await touchBookActivity(tx, ctx.book.id);
      await recordEvent(tx, 'submission.deleted', ctx.book.id, { id });
    },

    /**
     * Account deletion (on the queue): every memory the user wrote in other
     * people's books goes, with its files, the way deleteSubmission removes
     * one, whatever their role there now. (Their own books go whole.) One
     * transaction per row, book locked first as everywhere; safe to run again.
     */
    async eraseAuthoredBy(userId: string): Promise<number> {
      const rows = await listAuthoredInOthersBooks(db, userId);
      let erased = 0;
      for (const r of rows) {
        await db.transaction(async (tx) => {
          await lockBookRow(tx, r.book_id);
          const target = await findSubmission(tx, r.book_id, r.id, { authorId: userId, forUpdate: true });
          if (!target) return;
          await deps.media.releaseSubmissionFiles(tx, r.book_id, target);
          if (!(await deleteSubmission(tx, r.book_id, r.id))) return;
          erased++;
          await recordEvent(tx, 'submission.deleted', r.book_id, { id: r.id });
          await touchBookActivity(tx, r.book_id);
        });
      }
      return erased;
    },

    /**
     * approve, reject, pin or unpin, through the moderation state machine. A
     * move to the state already held answers `changed: false` and writes
     * nothing. Approve also checks media (400) and the plan's cap (402);
     * reject records the reason and notifies the contributor by email.
     */
    async moderate(tx: Tx, actor: Actor, slug: string, id: string, action: ModerationAction, reason: string | null = null) {
      const why = reason?.trim() || null;
      const bookAction = action === 'approve' ? 'approve_submission' : 'moderate_submissions';
      const { ctx, target: current } = await access.requireBookAccess(actor, slug, bookAction, { tx, lock: 'update', target: submissionTarget(id, true) });
      const move = nextModerationState(stateOf(current), action);
      if (!move.changed) return { action, changed: false, submission: await presentOne(tx, current, ctx.book.slug) };
      if (action === 'approve') {
        await assertMediaReady(tx, id);
        await assertApprovalCap(tx, ctx);
      }
      // Reject records its reason, approve clears an earlier one; pin and unpin leave it.
      const rejectionReason = action === 'reject' ? why : action === 'approve' ? null : undefined;
      const row = await applyModerationMove(tx, ctx.book.id, id, move, rejectionReason);
      await touchBookActivity(tx, ctx.book.id);
      if (action === 'reject' && row.contributor_email) {
        await deps.enqueueMail(rejectionMessage({ ...row, contributor_email: row.contributor_email }, ctx.book, why), tx);
      }
      if (move.clearShareCard) await dropShareCard(tx, current);
      // Approval renders the share card in the background; share_card_url stays null until it is there.
      if (action === 'approve' && row.share_card_token) {
        await deps.queue.send('share-card.render', { submissionId: row.id, token: row.share_card_token }, { tx });
      }
      const submission = await presentOne(tx, row, ctx.book.slug);
      await recordEvent(tx, MODERATION_EVENTS[action], ctx.book.id, submission);
      return { action, changed: true, submission };
    },
  };
}
export type SubmissionService = ReturnType<typeof createSubmissionService>;

/**
 * A memory of the book, for another domain acting on it in its transaction
 * (a file that came by message, attached later); `forUpdate` takes its row
 * lock, after the book's.
 */
export function findSubmissionInBook(q: Queryable, bookId: string, id: string, o: { forUpdate?: boolean } = {}) {
  return findSubmission(q, bookId, id, o);
}
