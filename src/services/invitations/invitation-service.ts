import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { createdDesc, paginate, updatedAsc, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { AppError, errors } from '../../errors.js';
import { etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import { findBookContext } from '../books/book-repository.js';
import type { BookContext } from '../books/book-types.js';
import { recordInvitationEvent } from '../events/event-objects.js';
import { joinBook } from '../members/member-service.js';
import { findUserById } from '../users/user-repository.js';
import { normaliseIdentifier } from './identifiers.js';
import type { InvitationDispatch } from './invitation-dispatch.js';
import { toInvitation } from './invitation-mapper.js';
import {
  EFFECTIVE_STATUS,
  expireStaleInvitations,
  findInvitation,
  findInvitationByToken,
  markInvitationAccepted,
  findPendingInvitation,
  findUserByIdentifier,
  insertInvitation,
  revokeInvitation,
  selectInvitationsOfBook,
  type InvitationByToken,
} from './invitation-repository.js';
import type { InvitationInput, InvitationRole, InvitationRow, InvitationStatus } from './invitation-types.js';

/** GET …/invitations/ orderings: newest first, or oldest change first when syncing with updated_since. */
export const INVITATION_ORDERINGS = { created: createdDesc('i'), sync: updatedAsc('i') };

/** The invitation a route names, of this book; another book's id, or a malformed one, is simply not found. */
function invitationTarget(id: string) {
  return async (ctx: BookContext, q: Queryable) => {
    if (!isUuid(id)) throw errors.notFound('invitation');
    const row = await findInvitation(q, ctx.book.id, id, { forUpdate: true });
    if (!row) throw errors.notFound('invitation');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

/** Acceptance tokens as the service makes them (randomToken(32), base64url); anything else names no invitation. */
const TOKEN_RE = /^[A-Za-z0-9_-]{20,128}$/;

/** What an acceptance link shows its visitor (the invitation page). */
export interface InvitationLinkView {
  /** pending, or accepted/expired/revoked; expired as soon as expires_at passes, whatever the sweep did. */
  status: InvitationStatus;
  /** Accepted by the visitor themselves (then the page welcomes them rather than refusing). */
  acceptedByYou: boolean;
  role: InvitationRole;
  book: { slug: string; title: string; subtitle: string; theme: string; language: string | null };
  inviterName: string | null;
  expiresAt: string;
  /** The visitor's role in the book now, if signed in and a member. */
  yourRole: string | null;
  /** For an email invitation, the address it is for (only an account with that address may accept it); null for other kinds. */
  invitedEmail: string | null;
  /** Signed in as an account that may not accept this invitation (an email invitation for another address). */
  forAnotherAccount: boolean;
}

/**
 * An email invitation belongs to its address: only the account with that
 * email (compared case-insensitively; both are stored lower-cased) may
 * accept it, as the link could have been forwarded or leaked. Phone and
 * Telegram invitations keep their rule (whoever holds the link).
 */
function acceptableBy(row: Pick<InvitationRow, 'identifier_type' | 'identifier'>, email: string | null | undefined): boolean {
  if (row.identifier_type !== 'email') return true;
  return typeof email === 'string' && email.trim().toLowerCase() === row.identifier;
}

function wrongAccountError(row: Pick<InvitationRow, 'identifier'>): AppError {
  return errors.forbidden(`This invitation is for ${row.identifier}: sign in with that address to accept it.`, { reason: 'invitation_for_another_address' });
}

function inviterNameOf(row: InvitationByToken): string | null {
  return [row.inviter_first_name, row.inviter_last_name].filter(Boolean).join(' ').trim() || row.inviter_email || null;
}

/**
 * Why an invitation link can no longer be used, as a 410 (404 for a token
 * that names nothing is the caller's): expired, revoked, or accepted by
 * someone else.
 */
function goneError(row: InvitationByToken): AppError {
  if (row.status === 'expired') {
    return errors.invitationExpired('This invitation has expired. Ask the person who invited you to send a new one.', { expired_at: row.expires_at });
  }
  if (row.status === 'revoked') return errors.invitationRevoked('This invitation was withdrawn by the book\'s owner or an admin.', null);
  return errors.invitationAccepted('This invitation has already been accepted by someone else.', null);
}

/**
 * Invitations to a book. Creating one normalises the identifier, then either
 * makes an existing account a member at once (status accepted, under the
 * member cap) or leaves a pending invitation for 14 days; either way it is
 * dispatched over its channel through the job queue. Writes lock the book
 * row, so two invitations of one identifier cannot both be pending.
 */
export function createInvitationService(deps: { db: Db; config: Config; cursors: CursorCodec; access: BookAccess; dispatch: InvitationDispatch }) {
  const { db, config, cursors, access, dispatch } = deps;

  return {
    async listInvitations(actor: Actor, slug: string, query: ListQuery & { status?: InvitationStatus }) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'list_invitations');
      const where = [`i.book_id = $1`];
      const params: unknown[] = [ctx.book.id];
      if (query.status) {
        params.push(query.status);
        where.push(`${EFFECTIVE_STATUS} = $2`);
      }
      const { page, watermark } = await paginate<InvitationRow & Record<string, unknown>>(db, cursors, query, {
        // A cursor belongs to one filter as well as one book.
        list: `invitations:${ctx.book.id}:${query.status ?? 'all'}`,
        ordering: { name: 'created', keys: INVITATION_ORDERINGS.created },
        sync: INVITATION_ORDERINGS.sync,
        where,
        params,
        select: (o) => selectInvitationsOfBook(db, o) as Promise<(InvitationRow & Record<string, unknown>)[]>,
      });
      return { page: { ...page, items: page.items.map(toInvitation) }, watermark };
    },

    /**
     * 400 validation_failed for an identifier that is not one; 409
     * invitation_pending while one for the same identifier waits (revoked,
     * expired and accepted ones never block); for an existing account, 409
     * already_a_member or 402 member_limit_exceeded as adding a member would.
     */
    async createInvitation(tx: Tx, actor: Actor, slug: string, input: InvitationInput) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'manage_invitations', { tx, lock: 'update' });
      const type = input.identifier_type;
      const identifier = normaliseIdentifier(type, input.identifier, config.messaging.phoneRegion);
      const role = input.role ?? 'contributor';
      // A pending row past its expiry is expired now; written so it leaves the one-pending index.
      await expireStaleInvitations(tx, { bookId: ctx.book.id, type, identifier });
      const pending = await findPendingInvitation(tx, ctx.book.id, type, identifier);
      if (pending) {
        throw errors.invitationPending('A pending invitation for this identifier already exists; revoke it to send a new one.', {
          invitation_id: pending.id,
        });
      }
      const user = await findUserByIdentifier(tx, type, identifier);
      if (user) await joinBook(tx, ctx, user.id, role);
      // The token is only ever sent to the invitee (link, SMS, deep link); the row keeps its hash.
      const token = randomToken(32);
      const bot = config.messaging.telegram?.botUsername;
      const row = await insertInvitation(tx, {
        id: uuidv7(),
        bookId: ctx.book.id,
        type,
        identifier,
        role,
        invitedBy: actor.id,
        tokenHash: sha256(token),
        deepLink: !user && type === 'telegram' && bot ? `https://t.me/${bot}?start=${token}` : null,
        acceptedUserId: user?.id ?? null,
      });
      if (user) await recordInvitationEvent(tx, 'invitation.accepted', ctx.book.id, row.id);
      const inviter = await findUserById(tx, actor.id);
      const inviterName = [inviter?.first_name, inviter?.last_name].filter(Boolean).join(' ').trim() || actor.email;
      await dispatch(tx, {
        type,
        identifier,
        user: user ?? null,
        facts: {
          bookTitle: ctx.book.title,
          inviterName,
          role,
          acceptUrl: user ? null : `${config.http.publicUrl}/invitations/${token}/`,
          expiresAt: row.expires_at,
          homeUrl: `${config.http.publicUrl}/`,
          language: typeof ctx.book.settings?.language === 'string' ? ctx.book.settings.language : undefined,
        },
      });
      return toInvitation(row);
    },

    /**
     * Revokes a pending invitation; the row stays. A repeat answers the
     * revoked row with already_revoked true. An accepted or expired one
     * cannot be revoked: 409 invalid_state.
     */
    async revokeInvitation(tx: Tx, actor: Actor, slug: string, id: string) {
      const { ctx, target } = await access.requireBookAccess(actor, slug, 'manage_invitations', { tx, lock: 'update', target: invitationTarget(id) });
      if (target.status === 'revoked') return { ...toInvitation(target), already_revoked: true };
      if (target.status !== 'pending') {
        throw errors.invalidState(`An ${target.status} invitation cannot be revoked.`, { status: target.status });
      }
      return { ...toInvitation(await revokeInvitation(tx, ctx.book.id, id)), already_revoked: false };
    },

    /**
     * The invitation an acceptance link names, as its visitor sees it
     * (`userId` null when signed out). 404 not_found for a token that names
     * no invitation of a live book; every other state is answered, for the
     * page to explain.
     */
    async viewInvitationLink(token: string, user: { id: string; email: string } | null): Promise<InvitationLinkView> {
      if (!TOKEN_RE.test(token)) throw errors.notFound('invitation');
      const row = await findInvitationByToken(db, sha256(token));
      if (!row) throw errors.notFound('invitation');
      const userId = user?.id ?? null;
      const ctx = userId ? await findBookContext(db, row.book_slug, userId) : undefined;
      return {
        status: row.status,
        acceptedByYou: row.status === 'accepted' && userId !== null && row.accepted_user_id === userId,
        role: row.role,
        book: { slug: row.book_slug, title: row.book_title, subtitle: row.book_subtitle, theme: row.book_theme, language: row.book_language ?? null },
        inviterName: inviterNameOf(row),
        expiresAt: row.expires_at,
        yourRole: ctx?.role ?? null,
        invitedEmail: row.identifier_type === 'email' ? row.identifier : null,
        forAnotherAccount: user !== null && !acceptableBy(row, user.email),
      };
    },

    /** The address of the pending email invitation this link token names, or null (anything else, or nothing). */
    async invitedEmail(token: string): Promise<string | null> {
      if (!TOKEN_RE.test(token)) return null;
      const row = await findInvitationByToken(db, sha256(token));
      return row && row.identifier_type === 'email' && row.status === 'pending' ? row.identifier : null;
    },

    /**
     * Accepts the invitation an acceptance link names, for the signed-in
     * actor, once: an email invitation only for the account with the invited
     * address (403 forbidden otherwise, nothing changes), a phone one for
     * whoever holds the link. The actor joins with
     * the invitation's role (a member already keeps their role) under the
     * book's row lock and the member cap: 402 member_limit_exceeded, and
     * the invitation stays pending. 404 for an unknown token; 410
     * invitation_expired, invitation_revoked, or invitation_accepted when
     * someone else used it; accepting one's own accepted invitation again
     * answers as before. 403 book_grace_period while the book's changes are
     * paused.
     */
    async acceptInvitationLink(actor: Actor, token: string): Promise<{ book: { slug: string; title: string }; role: string; alreadyAccepted: boolean }> {
      if (!TOKEN_RE.test(token)) throw errors.notFound('invitation');
      const tokenHash = sha256(token);
      return db.transaction(async (tx) => {
        const first = await findInvitationByToken(tx, tokenHash);
        if (!first) throw errors.notFound('invitation');
        // The book's lock first, then the invitation's: the lock order of every write in a book.
        const ctx = await findBookContext(tx, first.book_slug, actor.id, 'update');
        const row = ctx && (await findInvitationByToken(tx, tokenHash, { forUpdate: true }));
        if (!ctx || !row) throw errors.notFound('invitation');
        const book = { slug: ctx.book.slug, title: ctx.book.title };
        if (row.status === 'accepted' && row.accepted_user_id === actor.id) return { book, role: ctx.role ?? row.role, alreadyAccepted: true };
        if (row.status !== 'pending') throw goneError(row);
        if (!acceptableBy(row, actor.email)) throw wrongAccountError(row);
        if (ctx.inGracePeriod) {
          throw errors.bookGracePeriod('This book is paused for billing at the moment, so no one can join it. Try the link again later.');
        }
        const role = ctx.role ?? (await joinBook(tx, ctx, actor.id, row.role)).role;
        await markInvitationAccepted(tx, row.id, actor.id);
        await recordInvitationEvent(tx, 'invitation.accepted', ctx.book.id, row.id);
        return { book, role, alreadyAccepted: false };
      });
    },

    /** Housekeeping: writes `expired` on every pending invitation past its expires_at. */
    async expireStale(): Promise<number> {
      return expireStaleInvitations(db);
    },
  };
}
export type InvitationService = ReturnType<typeof createInvitationService>;
