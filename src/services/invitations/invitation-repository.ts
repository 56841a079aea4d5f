import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { UserRow } from '../users/user-types.js';
import { INVITATION_TTL_DAYS, type IdentifierType, type InvitationRole, type InvitationRow } from './invitation-types.js';

/**
 * A pending invitation past its expires_at is expired, whether or not the
 * sweep (expireStaleInvitations) has written that yet: reads and the status
 * filter use this, so the answer never depends on when the sweep last ran.
 */
export const EFFECTIVE_STATUS = `(CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status END)`;

const COLUMNS = `i.id, i.book_id, i.identifier_type, i.identifier, i.role, ${EFFECTIVE_STATUS} AS status, i.invited_by, i.accepted_user_id,
  i.deep_link, i.created_at, i.updated_at, i.expires_at, i.accepted_at, i.revoked_at`;

/** One page of a book's invitations (see paginate for where/params/orderBy). */
export function selectInvitationsOfBook(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  const params = [...o.params, o.limit];
  return q.query<InvitationRow>(`SELECT ${COLUMNS} FROM invitations i WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${params.length}`, params);
}

export function findInvitation(q: Queryable, bookId: string, id: string, o: { forUpdate?: boolean } = {}) {
  return one<InvitationRow>(q, `SELECT ${COLUMNS} FROM invitations i WHERE i.book_id = $1 AND i.id = $2${o.forUpdate ? ' FOR UPDATE' : ''}`, [bookId, id]);
}

/** The live pending invitation of this identifier in this book, if any. */
export function findPendingInvitation(q: Queryable, bookId: string, type: IdentifierType, identifier: string) {
  return one<InvitationRow>(
    q,
    `SELECT ${COLUMNS} FROM invitations i
     WHERE i.book_id = $1 AND i.identifier_type = $2 AND i.identifier = $3 AND i.status = 'pending' AND i.expires_at > now()`,
    [bookId, type, identifier],
  );
}

/**
 * Writes `expired` on pending rows past their expires_at: all of them, or
 * one identifier's in one book (before a new invitation takes its place in
 * the one-pending index). Returns how many moved.
 */
export async function expireStaleInvitations(q: Queryable, only?: { bookId: string; type: IdentifierType; identifier: string }): Promise<number> {
  const rows = only
    ? await q.query(
        `UPDATE invitations SET status = 'expired'
         WHERE book_id = $1 AND identifier_type = $2 AND identifier = $3 AND status = 'pending' AND expires_at <= now() RETURNING id`,
        [only.bookId, only.type, only.identifier],
      )
    : await q.query(`UPDATE invitations SET status = 'expired' WHERE status = 'pending' AND expires_at <= now() RETURNING id`);
  return rows.length;
}

export async function insertInvitation(
  q: Queryable,
  i: {
    id: string;
    bookId: string;
    type: IdentifierType;
    identifier: string;
    role: InvitationRole;
    invitedBy: string;
    tokenHash: Buffer;
    deepLink: string | null;
    /** Set when the invitee already has an account: the invitation is accepted at once. */
    acceptedUserId: string | null;
  },
): Promise<InvitationRow> {
  const row = await one<InvitationRow>(
    q,
    `WITH i AS (
       INSERT INTO invitations (id, book_id, identifier_type, identifier, role, status, invited_by, accepted_user_id, token_hash, deep_link, expires_at, accepted_at)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $8::uuid IS NULL THEN 'pending' ELSE 'accepted' END, $6, $8, $7, $9,
               now() + interval '${INVITATION_TTL_DAYS} days', CASE WHEN $8::uuid IS NULL THEN NULL ELSE now() END)
       RETURNING *)
     SELECT ${COLUMNS} FROM i`,
    [i.id, i.bookId, i.type, i.identifier, i.role, i.invitedBy, i.tokenHash, i.acceptedUserId, i.deepLink],
  );
  return row!;
}

export async function revokeInvitation(q: Queryable, bookId: string, id: string): Promise<InvitationRow> {
  const row = await one<InvitationRow>(
    q,
    `WITH i AS (UPDATE invitations SET status = 'revoked', revoked_at = now() WHERE book_id = $1 AND id = $2 RETURNING *) SELECT ${COLUMNS} FROM i`,
    [bookId, id],
  );
  return row!;
}

/** An invitation as its acceptance link shows it: with its book and who sent it. */
export interface InvitationByToken extends InvitationRow {
  book_slug: string;
  book_title: string;
  book_subtitle: string;
  book_theme: string;
  /** The book's settings.language, when its owner set one. */
  book_language: string | null;
  inviter_first_name: string | null;
  inviter_last_name: string | null;
  inviter_email: string | null;
}

/**
 * The invitation whose acceptance link carries this token (looked up by its
 * SHA-256; the token itself is never stored), in a live book. A book whose
 * deletion was asked for is gone to the invitee.
 */
export function findInvitationByToken(q: Queryable, tokenHash: Buffer, o: { forUpdate?: boolean } = {}) {
  return one<InvitationByToken>(
    q,
    `SELECT ${COLUMNS}, b.slug AS book_slug, b.title AS book_title, b.subtitle AS book_subtitle, b.theme AS book_theme, b.settings->>'language' AS book_language,
            u.first_name AS inviter_first_name, u.last_name AS inviter_last_name, u.email AS inviter_email
     FROM invitations i
     JOIN books b ON b.id = i.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
     LEFT JOIN users u ON u.id = i.invited_by AND u.deleted_at IS NULL
     WHERE i.token_hash = $1${o.forUpdate ? ' FOR UPDATE OF i' : ''}`,
    [tokenHash],
  );
}

export async function markInvitationAccepted(q: Queryable, id: string, userId: string): Promise<void> {
  await q.query(`UPDATE invitations SET status = 'accepted', accepted_user_id = $2, accepted_at = now() WHERE id = $1`, [id, userId]);
}

/** The account an identifier already belongs to, if any (Telegram usernames compared without @ and case). */
export function findUserByIdentifier(q: Queryable, type: IdentifierType, identifier: string) {
  const where =
    type === 'email' ? `email = $1` : type === 'phone' ? `phone_number = $1` : `lower(ltrim(telegram_username, '@')) = $1`;
  return one<Pick<UserRow, 'id' | 'email' | 'first_name' | 'last_name' | 'phone_number' | 'telegram_chat_id'>>(
    q,
    `SELECT id, email, first_name, last_name, phone_number, telegram_chat_id FROM users WHERE ${where} AND deleted_at IS NULL
     ORDER BY date_joined LIMIT 1`,
    [identifier],
  );
}

export interface PendingInvitation {
  id: string;
  book_id: string;
  slug: string;
  role: InvitationRole;
  created_at: string;
}

const LIVE_PENDING = `i.status = 'pending' AND i.expires_at > now()`;
// A book whose deletion was asked for is gone to the invitee (as on the acceptance page).
const PENDING_FROM = `invitations i JOIN books b ON b.id = i.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL`;

/** Live pending invitations of one identifier, in every book (book id order: the order their books are locked in). */
export function selectPendingInvitations(q: Queryable, type: IdentifierType, identifier: string) {
  return q.query<PendingInvitation>(
    `SELECT i.id, i.book_id, b.slug, i.role, i.created_at FROM ${PENDING_FROM}
     WHERE i.identifier_type = $1 AND i.identifier = $2 AND ${LIVE_PENDING} ORDER BY i.book_id, i.id`,
    [type, identifier],
  );
}

/**
 * The live pending invitation whose link carries this token (by its SHA-256),
 * if any. Never an email invitation: that one is accepted only by the account
 * with its address, on the web.
 */
export function findPendingInvitationByToken(q: Queryable, tokenHash: Buffer) {
  return one<PendingInvitation>(
    q,
    `SELECT i.id, i.book_id, b.slug, i.role, i.created_at FROM ${PENDING_FROM} WHERE i.token_hash = $1 AND i.identifier_type <> 'email' AND ${LIVE_PENDING}`,
    [tokenHash],
  );
}

/** Re-reads an invitation under its row lock (after its book's): still pending? */
export async function lockPendingInvitation(q: Queryable, id: string): Promise<boolean> {
  return (await one(q, `SELECT i.id FROM invitations i WHERE i.id = $1 AND ${LIVE_PENDING} FOR UPDATE`, [id])) !== undefined;
}

export async function countMembersOfBook(q: Queryable, bookId: string): Promise<number> {
  const [{ n }] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM book_members WHERE book_id = $1`, [bookId]);
  return n;
}
