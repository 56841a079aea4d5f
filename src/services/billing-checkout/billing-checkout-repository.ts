import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';

export type BillingStatus = 'active' | 'grace_period' | 'canceled';

export interface SubscriptionRow {
  id: string;
  customer_id: string | null;
  user_id: string | null;
  plan_slug: string | null;
  book_id: string | null;
  status: BillingStatus;
  period_start: string | null;
  period_end: string | null;
  grace_period_ends_at: string | null;
  canceled_at: string | null;
  cancel_at_period_end: boolean;
  status_at: string | null;
  snapshot_at: string | null;
  released_at: string | null;
}

const SUB_COLUMNS = `id, customer_id, user_id, plan_slug, book_id, status, period_start, period_end, grace_period_ends_at, canceled_at, cancel_at_period_end, status_at, snapshot_at, released_at`;

/** Records an event id; false when it was taken before (a redelivery). */
export async function claimEvent(q: Queryable, id: string, type: string): Promise<boolean> {
  const rows = await q.query(`INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING 1`, [id, type]);
  return rows.length > 0;
}

/** Records a checkout as fulfilled; false when it was before. */
export async function claimCheckout(q: Queryable, c: { id: string; userId: string; planSlug: string; subscriptionId: string | null }): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO stripe_checkouts (id, user_id, plan_slug, subscription_id) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING 1`,
    [c.id, c.userId, c.planSlug, c.subscriptionId],
  );
  return rows.length > 0;
}

export async function findCustomerOf(q: Queryable, userId: string): Promise<string | undefined> {
  return (await one<{ customer_id: string }>(q, `SELECT customer_id FROM stripe_customers WHERE user_id = $1`, [userId]))?.customer_id;
}

/** The user's customer, once: a customer already tied to someone else stays theirs. */
export async function rememberCustomer(q: Queryable, userId: string, customerId: string): Promise<void> {
  await q.query(`INSERT INTO stripe_customers (user_id, customer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [userId, customerId]);
}

export async function addSlots(q: Queryable, userId: string, planSlug: string, count: number) {
  return (await one<{ purchased: number; used: number }>(
    q,
    `INSERT INTO book_slots (user_id, plan_slug, purchased) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, plan_slug) DO UPDATE SET purchased = book_slots.purchased + EXCLUDED.purchased
     RETURNING purchased, used`,
    [userId, planSlug, count],
  ))!;
}

/** Takes back one unused slot (a subscription that ended before its book was made); false when every slot is used. */
export async function removeUnusedSlot(q: Queryable, userId: string, planSlug: string): Promise<boolean> {
  const rows = await q.query(`UPDATE book_slots SET purchased = purchased - 1 WHERE user_id = $1 AND plan_slug = $2 AND purchased > used RETURNING 1`, [userId, planSlug]);
  return rows.length > 0;
}

export async function slotsOf(q: Queryable, userId: string, planSlug: string) {
  return (await one<{ purchased: number; used: number }>(q, `SELECT purchased, used FROM book_slots WHERE user_id = $1 AND plan_slug = $2`, [userId, planSlug])) ?? { purchased: 0, used: 0 };
}

/** The subscription's row, made when first heard of, locked for the rest of the transaction. */
export async function lockSubscription(q: Queryable, id: string, known: { customerId?: string | null; userId?: string | null; planSlug?: string | null }): Promise<SubscriptionRow> {
  await q.query(`INSERT INTO stripe_subscriptions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, [id]);
  // Who bought it and for which plan are filled in by whichever event knows first, and never changed after;
  // nor once it ended here (a purged buyer's stays cut loose).
  return (await one<SubscriptionRow>(
    q,
    `UPDATE stripe_subscriptions SET customer_id = COALESCE(customer_id, CASE WHEN released_at IS NULL THEN $2 END),
       user_id = COALESCE(user_id, CASE WHEN released_at IS NULL THEN $3::uuid END), plan_slug = COALESCE(plan_slug, CASE WHEN released_at IS NULL THEN $4 END)
     WHERE id = $1 RETURNING ${SUB_COLUMNS}`,
    [id, known.customerId ?? null, known.userId ?? null, known.planSlug ?? null],
  ))!;
}

export async function saveSubscriptionState(
  q: Queryable,
  id: string,
  s: Pick<SubscriptionRow, 'status' | 'period_start' | 'period_end' | 'grace_period_ends_at' | 'canceled_at'> &
    Partial<Pick<SubscriptionRow, 'cancel_at_period_end' | 'status_at' | 'snapshot_at' | 'plan_slug'>>,
): Promise<SubscriptionRow> {
  return (await one<SubscriptionRow>(
    q,
    `UPDATE stripe_subscriptions SET status = $2, period_start = $3, period_end = $4, grace_period_ends_at = $5, canceled_at = $6,
       cancel_at_period_end = COALESCE($7, cancel_at_period_end),
       status_at = GREATEST(status_at, $8::timestamptz), snapshot_at = GREATEST(snapshot_at, $9::timestamptz), plan_slug = COALESCE($10, plan_slug)
     WHERE id = $1 RETURNING ${SUB_COLUMNS}`,
    [id, s.status, s.period_start, s.period_end, s.grace_period_ends_at, s.canceled_at, s.cancel_at_period_end ?? null, s.status_at ?? null, s.snapshot_at ?? null, s.plan_slug ?? null],
  ))!;
}

/**
 * The live subscription a book just made with a slot of the plan is paid
 * by: the buyer's oldest one bought through a checkout and tied to no book
 * yet, locked; none: undefined (the slot was an operator's). One an event is
 * changing right now is skipped rather than waited for (the book's creation
 * never waits on a webhook; housekeeping ties it later).
 */
export async function findUnboundFor(q: Queryable, userId: string, planSlug: string): Promise<string | undefined> {
  const row = await one<{ id: string }>(
    q,
    `SELECT s.id FROM stripe_subscriptions s JOIN stripe_checkouts c ON c.subscription_id = s.id
     WHERE s.user_id = $1 AND s.plan_slug = $2 AND s.book_id IS NULL AND s.released_at IS NULL
     ORDER BY c.fulfilled_at, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED`,
    [userId, planSlug],
  );
  return row?.id;
}

export async function setSubscriptionBook(q: Queryable, id: string, bookId: string): Promise<void> {
  await q.query(`UPDATE stripe_subscriptions SET book_id = $2 WHERE id = $1`, [id, bookId]);
}

/**
 * Ends, here, the live subscriptions matching `where` (a deleted book's, a
 * purged buyer's): canceled and released, so no later event touches them.
 * Answers those Stripe still bills (not canceled there yet), to cancel there.
 */
async function endHere(q: Queryable, where: string, param: string): Promise<string[]> {
  const rows = await q.query<{ id: string; was: BillingStatus }>(
    `WITH live AS (SELECT id, status FROM stripe_subscriptions WHERE ${where} AND released_at IS NULL FOR UPDATE)
     UPDATE stripe_subscriptions s SET status = 'canceled', canceled_at = COALESCE(s.canceled_at, now()), grace_period_ends_at = NULL, released_at = now()
     FROM live WHERE s.id = live.id RETURNING s.id, live.status AS was`,
    [param],
  );
  return rows.filter((r) => r.was !== 'canceled').map((r) => r.id);
}

export const endSubscriptionsOfBook = (q: Queryable, bookId: string) => endHere(q, 'book_id = $1', bookId);
export const endSubscriptionsOfUser = (q: Queryable, userId: string) => endHere(q, 'user_id = $1', userId);

/** A purged buyer's Stripe rows: their customer and checkouts removed, their subscriptions kept (so late events stay ignored) with no link to them. */
export async function forgetBuyer(q: Queryable, userId: string): Promise<void> {
  await q.query(`DELETE FROM stripe_customers WHERE user_id = $1`, [userId]);
  await q.query(`DELETE FROM stripe_checkouts WHERE user_id = $1`, [userId]);
  await q.query(`UPDATE stripe_subscriptions SET user_id = NULL, customer_id = NULL WHERE user_id = $1`, [userId]);
}

/** Moves one slot of a subscription from its old plan to its new one (a plan change in the portal); `used` when its book holds it. */
export async function moveSlot(q: Queryable, userId: string, from: string, to: string, used: boolean): Promise<boolean> {
  // Only a slot that is there moves: when none of the old plan is left to take, none of the new plan is made.
  const taken = await q.query(
    `UPDATE book_slots SET purchased = purchased - 1, used = used - $3::int
     WHERE user_id = $1 AND plan_slug = $2 AND (CASE WHEN $3::int = 1 THEN used >= 1 ELSE purchased > used END)
     RETURNING user_id`,
    [userId, from, used ? 1 : 0],
  );
  if (!taken.length) return false;
  await q.query(
    `INSERT INTO book_slots (user_id, plan_slug, purchased, used) VALUES ($1, $2, 1, $3)
     ON CONFLICT (user_id, plan_slug) DO UPDATE SET purchased = book_slots.purchased + 1, used = book_slots.used + EXCLUDED.used`,
    [userId, to, used ? 1 : 0],
  );
  return true;
}

/** Whether a checkout of this subscription granted its slot: only then may its events move or end one. */
export async function boughtSlot(q: Queryable, subscriptionId: string): Promise<boolean> {
  return Boolean(await one(q, `SELECT 1 FROM stripe_checkouts WHERE subscription_id = $1 AND fulfilled_at IS NOT NULL LIMIT 1`, [subscriptionId]));
}

/**
 * Ties the subscription to the oldest of its buyer's live books on its plan
 * made since its checkout that no subscription pays for yet (the book its
 * slot made); none yet: undefined.
 */
export async function bindToBook(q: Queryable, sub: SubscriptionRow): Promise<string | undefined> {
  if (!sub.user_id || !sub.plan_slug) return undefined;
  // Only a book made after the checkout that bought the slot: not one an operator's slot made before.
  const book = await one<{ id: string }>(
    q,
    `SELECT b.id FROM books b
     WHERE b.owner_id = $1 AND b.plan_slug = $2 AND b.deleted_at IS NULL
       AND b.created_at >= (SELECT c.fulfilled_at FROM stripe_checkouts c WHERE c.subscription_id = $3 ORDER BY c.fulfilled_at LIMIT 1)
       AND NOT EXISTS (SELECT 1 FROM stripe_subscriptions s WHERE s.book_id = b.id)
     ORDER BY b.created_at, b.id LIMIT 1 FOR UPDATE OF b`,
    [sub.user_id, sub.plan_slug, sub.id],
  );
  if (!book) return undefined;
  await q.query(`UPDATE stripe_subscriptions SET book_id = $2 WHERE id = $1`, [sub.id, book.id]);
  return book.id;
}

export async function lockBook(q: Queryable, bookId: string) {
  return one<{ id: string; slug: string; owner_id: string; plan_slug: string }>(
    q,
    `SELECT id, slug, owner_id, plan_slug FROM books WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`,
    [bookId],
  );
}

/** The book's billing state (what the access guard reads) and a new billing record (what GET …/billing/ answers). */
export async function setBookBilling(
  q: Queryable,
  bookId: string,
  b: { planSlug: string; status: BillingStatus; periodStart: string | null; periodEnd: string | null; graceEndsAt: string | null; cancelAtPeriodEnd?: boolean },
): Promise<{ bookChanged: boolean }> {
  // Only a real change touches the book, so its updated_at (and ETag) never move without a book.updated event.
  const changed = await q.query(
    `UPDATE books SET plan_slug = $2, billing_status = $3, grace_period_ends_at = $4
     WHERE id = $1 AND (plan_slug, billing_status, grace_period_ends_at) IS DISTINCT FROM ($2, $3, $4::timestamptz) RETURNING id`,
    [bookId, b.planSlug, b.status, b.graceEndsAt],
  );
  await q.query(
    `INSERT INTO billing_records (id, book_id, plan_slug, status, period_start, period_end, grace_period_ends_at, cancel_at_period_end)
     VALUES ($1, $2, $3, $4, COALESCE($5::timestamptz, now()), $6, $7, $8)`,
    [uuidv7(), bookId, b.planSlug, b.status, b.periodStart, b.periodEnd, b.graceEndsAt, b.cancelAtPeriodEnd ?? false],
  );
  return { bookChanged: changed.length > 0 };
}

/** Subscriptions a book has been made for since their last event, so far unbound. */
export async function unboundWithBook(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT s.id FROM stripe_subscriptions s
     WHERE s.book_id IS NULL AND s.released_at IS NULL AND s.user_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM books b JOIN stripe_checkouts c ON c.subscription_id = s.id
                   WHERE b.owner_id = s.user_id AND b.plan_slug = s.plan_slug AND b.deleted_at IS NULL AND b.created_at >= c.fulfilled_at
                     AND NOT EXISTS (SELECT 1 FROM stripe_subscriptions o WHERE o.book_id = b.id))
     ORDER BY s.created_at LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.id);
}

/** Canceled subscriptions whose paid period is over and whose book has not moved yet. */
export async function dueForRelease(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM stripe_subscriptions
     WHERE status = 'canceled' AND released_at IS NULL AND (period_end IS NULL OR period_end <= now())
     ORDER BY period_end NULLS FIRST, id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.id);
}

export async function markReleased(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE stripe_subscriptions SET released_at = now() WHERE id = $1`, [id]);
}

export async function pruneEvents(q: Queryable, olderThanDays: number): Promise<void> {
  await q.query(`DELETE FROM stripe_events WHERE received_at < now() - make_interval(days => $1)`, [olderThanDays]);
}
