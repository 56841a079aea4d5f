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
