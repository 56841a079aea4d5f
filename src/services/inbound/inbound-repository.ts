import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';

export type InboundProvider = 'twilio' | 'telegram' | 'whatsapp';

/**
 * Records a delivery by the provider's own id; false when it was recorded
 * before (a replay). A concurrent twin waits on this row's lock until the
 * first commits, then sees it: exactly one of them goes on.
 */
export async function claimInboundMessage(q: Queryable, provider: InboundProvider, externalId: string): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO inbound_messages (provider, external_id, outcome) VALUES ($1, $2, 'received') ON CONFLICT DO NOTHING RETURNING external_id`,
    [provider, externalId],
  );
  return rows.length > 0;
}

export async function setInboundOutcome(q: Queryable, provider: InboundProvider, externalId: string, outcome: string, submissionId: string | null) {
  await q.query(`UPDATE inbound_messages SET outcome = $3, submission_id = $4 WHERE provider = $1 AND external_id = $2`, [provider, externalId, outcome, submissionId]);
}

/**
 * Messages from one sender are handled one at a time (a transaction-scoped
 * advisory lock on the sender), so two first messages arriving together
 * cannot both create the sender's account.
 */
export async function lockSender(q: Queryable, sender: string): Promise<void> {
  const key = createHash('sha256').update(`inbound\0${sender}`).digest().readBigInt64BE(0).toString();
  await q.query(`SELECT pg_advisory_xact_lock($1::bigint)`, [key]);
}

export interface MessagingUser {
  id: string;
  email: string | null;
  telegram_chat_id: string | null;
  telegram_username: string | null;
}

const USER_COLUMNS = `id, email, telegram_chat_id, telegram_username`;

/** The live account with this phone number (E.164), the oldest if several. */
export function findUserByPhone(q: Queryable, phone: string) {
  return one<MessagingUser>(q, `SELECT ${USER_COLUMNS} FROM users WHERE phone_number = $1 AND deleted_at IS NULL ORDER BY date_joined LIMIT 1`, [phone]);
}

export function findUserByTelegramChat(q: Queryable, chatId: string) {
  return one<MessagingUser>(q, `SELECT ${USER_COLUMNS} FROM users WHERE telegram_chat_id = $1 AND deleted_at IS NULL ORDER BY date_joined LIMIT 1`, [chatId]);
}

/**
 * The live account with this Telegram username that has no chat with the
 * bot yet. One already bound to another chat is not this sender: Telegram
 * usernames change hands, and a new holder must not take over the account.
 */
export function findUnboundUserByTelegramUsername(q: Queryable, username: string) {
  return one<MessagingUser>(
    q,
    `SELECT ${USER_COLUMNS} FROM users
     WHERE lower(ltrim(telegram_username, '@')) = $1 AND telegram_chat_id IS NULL AND deleted_at IS NULL
     ORDER BY date_joined LIMIT 1`,
    [username],
  );
}

/** A contributor known only by a phone number or a Telegram account: no email, no password. */
export async function insertMessagingUser(
  q: Queryable,
  u: { id: string; phoneNumber?: string; telegramUsername?: string | null; telegramChatId?: string; firstName?: string; lastName?: string },
): Promise<MessagingUser> {
  const row = await one<MessagingUser>(
    q,
    `INSERT INTO users (id, email, password_hash, first_name, last_name, phone_number, telegram_username, telegram_chat_id)
     VALUES ($1, NULL, NULL, $2, $3, $4, $5, $6) RETURNING ${USER_COLUMNS}`,
    [u.id, u.firstName ?? '', u.lastName ?? '', u.phoneNumber ?? null, u.telegramUsername ?? null, u.telegramChatId ?? null],
  );
  return row!;
}

/** Remembers the sender's chat (the bot can write to them from now on) and fills in a missing username. */
export async function bindTelegramChat(q: Queryable, userId: string, chatId: string, username: string | null) {
  await q.query(
    `UPDATE users SET telegram_chat_id = $2, telegram_username = COALESCE(telegram_username, $3)
     WHERE id = $1 AND (telegram_chat_id IS DISTINCT FROM $2 OR (telegram_username IS NULL AND $3::text IS NOT NULL))`,
    [userId, chatId, username],
  );
}

/**
 * Where a member's later messages go: the book of the invitation they
 * accepted last (by any channel; of several accepted at once, the newest
 * invitation) while they are still its member, else the book they joined
 * last. Books being deleted are skipped.
 */
export async function latestBookOf(q: Queryable, userId: string): Promise<string | undefined> {
  const row = await one<{ slug: string }>(
    q,
    `SELECT slug FROM (
       SELECT b.slug, 0 AS pref, i.accepted_at AS at, i.created_at AS tie
       FROM invitations i
       JOIN book_members m ON m.book_id = i.book_id AND m.user_id = $1
       JOIN books b ON b.id = i.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
       WHERE i.accepted_user_id = $1 AND i.status = 'accepted'
       UNION ALL
       SELECT b.slug, 1 AS pref, m.joined_at AS at, m.joined_at AS tie
       FROM book_members m JOIN books b ON b.id = m.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
       WHERE m.user_id = $1
     ) x ORDER BY pref, at DESC, tie DESC LIMIT 1`,
    [userId],
  );
  return row?.slug;
}

/** A file of an inbound message, recorded with its memory; the fetch job takes it from here. */
export interface InboundMediaRow {
  provider: InboundProvider;
  external_id: string;
  position: number;
  submission_id: string;
  ref: string;
  declared_type: string | null;
  filename: string | null;
  reply_to: string | null;
  status: 'pending' | 'attached' | 'refused' | 'failed';
  /** Of the memory's book and author, read with the row. */
  slug: string;
  title: string;
  contributor_user_id: string | null;
}

export async function insertInboundMedia(
  q: Queryable,
  r: { provider: InboundProvider; externalId: string; position: number; submissionId: string; ref: string; declaredType: string | null; filename: string | null; replyTo: string },
) {
  await q.query(
    `INSERT INTO inbound_media (provider, external_id, position, submission_id, ref, declared_type, filename, reply_to) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [r.provider, r.externalId, r.position, r.submissionId, r.ref, r.declaredType, r.filename, r.replyTo],
  );
}

/** The file with its memory's book; `lock` takes the row's lock (the job settles a file only under it). */
export function findInboundMedia(q: Queryable, key: { provider: InboundProvider; externalId: string; position: number }, lock = false) {
  return one<InboundMediaRow>(
    q,
    `SELECT m.provider, m.external_id, m.position, m.submission_id, m.ref, m.declared_type, m.filename, m.reply_to, m.status,
            b.slug, b.title, s.contributor_user_id
     FROM inbound_media m JOIN submissions s ON s.id = m.submission_id JOIN books b ON b.id = s.book_id
     WHERE m.provider = $1 AND m.external_id = $2 AND m.position = $3 ${lock ? 'FOR UPDATE OF m' : ''}`,
    [key.provider, key.externalId, key.position],
  );
}

/** Settles a file: attached (with its media) or refused/failed (with why); the reply address is no longer kept. */
export async function settleInboundMedia(
  q: Queryable,
  key: { provider: InboundProvider; externalId: string; position: number },
  status: 'attached' | 'refused' | 'failed',
  detail: { mediaId?: string; reason?: string },
) {
  await q.query(
    `UPDATE inbound_media SET status = $4, media_id = $5, reason = $6, reply_to = NULL WHERE provider = $1 AND external_id = $2 AND position = $3`,
    [key.provider, key.externalId, key.position, status, detail.mediaId ?? null, detail.reason?.slice(0, 500) ?? null],
  );
}
