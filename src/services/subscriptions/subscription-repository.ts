import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { SubscriptionChannel, SubscriptionKind, SubscriptionRow } from './subscription-types.js';

/** Every query names `n` (notification_subscriptions). */
const COLUMNS = `n.id, n.user_id, n.book_id, n.channel, n.kind, n.is_active, n.created_at, n.updated_at`;

/** One page of a book's subscriptions, active and inactive (see paginate for where/params/orderBy). */
export function selectSubscriptionsOfBook(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  const params = [...o.params, o.limit];
  return q.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM notification_subscriptions n WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${params.length}`,
    params,
  );
}

export function findSubscription(q: Queryable, bookId: string, id: string, o: { forUpdate?: boolean } = {}) {
  return one<SubscriptionRow>(
    q,
    `SELECT ${COLUMNS} FROM notification_subscriptions n WHERE n.book_id = $1 AND n.id = $2${o.forUpdate ? ' FOR UPDATE' : ''}`,
    [bookId, id],
  );
}

export function findActiveSubscription(q: Queryable, s: { bookId: string; userId: string; channel: SubscriptionChannel; kind: SubscriptionKind }) {
  return one<SubscriptionRow>(
    q,
    `SELECT ${COLUMNS} FROM notification_subscriptions n
     WHERE n.book_id = $1 AND n.user_id = $2 AND n.channel = $3 AND n.kind = $4 AND n.is_active`,
    [s.bookId, s.userId, s.channel, s.kind],
  );
}

/** Inserts an active subscription unless an equal one is active already: then undefined (nothing written). */
export function insertSubscription(q: Queryable, s: { id: string; bookId: string; userId: string; channel: SubscriptionChannel; kind: SubscriptionKind }) {
  return one<SubscriptionRow>(
    q,
    `WITH n AS (
       INSERT INTO notification_subscriptions (id, book_id, user_id, channel, kind) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (book_id, user_id, channel, kind) WHERE is_active DO NOTHING
       RETURNING *)
     SELECT ${COLUMNS} FROM n`,
    [s.id, s.bookId, s.userId, s.channel, s.kind],
  );
}

export async function deactivateSubscription(q: Queryable, bookId: string, id: string): Promise<SubscriptionRow> {
  const row = await one<SubscriptionRow>(
    q,
    `WITH n AS (UPDATE notification_subscriptions SET is_active = false WHERE book_id = $1 AND id = $2 RETURNING *) SELECT ${COLUMNS} FROM n`,
    [bookId, id],
  );
  return row!;
}

/**
 * Claims one notification of one subscription (`submission:<id>`,
 * `digest:<day>`); false when it was claimed before. The caller queues the
 * message in the same transaction, so a claim stands for a queued message.
 */
export async function claimDelivery(q: Queryable, subscriptionId: string, event: string): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO notification_deliveries (subscription_id, event) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event`,
    [subscriptionId, event],
  );
  return rows.length > 0;
}

/** A subscriber who may be told about a book now, with where to reach them. */
export interface Recipient {
  subscription_id: string;
  user_id: string;
  channel: SubscriptionChannel;
  email: string | null;
  first_name: string;
  phone_number: string | null;
  telegram_chat_id: string | null;
}

/**
 * The active subscriptions of one kind in a book whose subscriber may hear
 * about it now: a live, active account that is still a member of the book
 * (someone removed from a book hears nothing more of it).
 */
export function selectRecipients(q: Queryable, bookId: string, kind: SubscriptionKind) {
  return q.query<Recipient>(
    `SELECT n.id AS subscription_id, n.user_id, n.channel, u.email, u.first_name, u.phone_number, u.telegram_chat_id
     FROM notification_subscriptions n
     JOIN users u ON u.id = n.user_id AND u.deleted_at IS NULL AND u.is_active
     JOIN book_members m ON m.book_id = n.book_id AND m.user_id = n.user_id
     WHERE n.book_id = $1 AND n.kind = $2 AND n.is_active
     ORDER BY n.created_at, n.id`,
    [bookId, kind],
  );
}

/** Whether the book has any active new_submission subscription. */
export async function hasNewSubmissionSubscribers(q: Queryable, bookId: string): Promise<boolean> {
  const [any] = await q.query(`SELECT 1 FROM notification_subscriptions WHERE book_id = $1 AND kind = 'new_submission' AND is_active LIMIT 1`, [bookId]);
  return any !== undefined;
}

/** A memory as its notification tells of it, with its author's name and its book (undefined: gone, or its book is going). */
export function findMemoryToAnnounce(q: Queryable, submissionId: string) {
  return one<{ id: string; book_id: string; contributor_user_id: string | null; contributor_name: string | null; text_content: string; source: string; first_name: string | null; last_name: string | null; title: string; slug: string }>(
    q,
    `SELECT s.id, s.book_id, s.contributor_user_id, s.contributor_name, s.text_content, s.source, u.first_name, u.last_name, b.title, b.slug
           FROM submissions s
           JOIN books b ON b.id = s.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
           LEFT JOIN users u ON u.id = s.contributor_user_id
           WHERE s.id = $1`,
    [submissionId],
  );
}

/** The live books with an active digest subscription and memories in [from, to): how many, and how many pending. */
export function listBooksToDigest(q: Queryable, from: string, to: string) {
  return q.query<{ book_id: string; slug: string; title: string; new_count: number; pending_count: number }>(
    `SELECT b.id AS book_id, b.slug, b.title, count(*)::int AS new_count, count(*) FILTER (WHERE s.status = 'pending')::int AS pending_count
         FROM submissions s
         JOIN books b ON b.id = s.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
         WHERE s.created_at >= $1 AND s.created_at < $2
           AND EXISTS (SELECT 1 FROM notification_subscriptions n WHERE n.book_id = b.id AND n.kind = 'digest' AND n.is_active)
         GROUP BY b.id, b.slug, b.title
         ORDER BY b.id`,
    [from, to],
  );
}

/** The newest `limit` memories of the book in [from, to), with their authors' names, for a digest to quote. */
export function listDigestExcerpts(q: Queryable, bookId: string, from: string, to: string, limit: number) {
  return q.query<{ contributor_name: string | null; first_name: string | null; last_name: string | null; text_content: string }>(
    `SELECT s.contributor_name, u.first_name, u.last_name, s.text_content
             FROM submissions s LEFT JOIN users u ON u.id = s.contributor_user_id
             WHERE s.book_id = $1 AND s.created_at >= $2 AND s.created_at < $3
             ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}`,
    [bookId, from, to],
  );
}
