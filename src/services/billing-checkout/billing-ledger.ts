import type { Queryable, Tx } from '../../db/client.js';
import { isUuid } from '../../lib/ids.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { AuditService } from '../audit/audit-service.js';
import { recordBookUpdated } from '../events/event-objects.js';
import { findDefaultPlan, findPlan } from '../plans/plan-service.js';
import { isLiveUser, isUnpurgedUser } from '../users/user-service.js';
import {
  addSlots,
  bindToBook,
  boughtSlot,
  claimCheckout,
  lockBook,
  lockSubscription,
  markReleased,
  rememberCustomer,
  removeUnusedSlot,
  setBookBilling,
  type SubscriptionRow,
} from './billing-checkout-repository.js';
import type { CheckoutSessionView } from './stripe-gateway.js';
import { buyerOf } from './stripe-objects.js';

/** The time now; the service and its event handlers are given one (tests a fake). */
export type Clock = () => Date;

/**
 * Where a checkout stands for its buyer: `paid` (its slot is added), `processing`
 * (complete but unpaid: a delayed method such as a bank debit, whose slot comes
 * with checkout.session.async_payment_succeeded), or `open` (not finished).
 */
export type CheckoutState = 'paid' | 'processing' | 'open';

export function checkoutState(s: Pick<CheckoutSessionView, 'status' | 'payment_status'>): CheckoutState {
  if (s.status !== 'complete') return 'open';
  return s.payment_status === 'paid' || s.payment_status === 'no_payment_required' ? 'paid' : 'processing';
}

/**
 * The steps billing's ways in share (the checkout pages, Stripe's events,
 * housekeeping): adding slots, fulfilling a checkout, copying a
 * subscription's state to its book, and releasing a canceled one. Each runs
 * in the caller's transaction.
 */
export function createBillingLedger(deps: { audit: AuditService; store: ObjectStore; clock: Clock }) {
  const { audit } = deps;

  /** Adds slots and audits who added them, in `q`. */
  async function grant(q: Queryable, userId: string, planSlug: string, count: number, how: { event: string; requestId?: string | null; data?: Record<string, unknown> }) {
    const row = await addSlots(q, userId, planSlug, count);
    await audit.record(how.event, { userId, requestId: how.requestId ?? null, data: { plan: planSlug, count, ...how.data } }, q);
    return { plan: planSlug, purchased: row.purchased, used: row.used, available: row.purchased - row.used };
  }

  /** A completed checkout's slot, once (the event and the success page may both bring it). */
  async function fulfil(tx: Tx, s: CheckoutSessionView, requestId: string | null) {
    if (checkoutState(s) !== 'paid') return false;
    const buyer = buyerOf(s.metadata);
    const userId = s.client_reference_id ?? buyer.userId;
    const planSlug = buyer.planSlug;
    if (!userId || !planSlug || !isUuid(userId)) return false;
    const plan = await findPlan(tx, planSlug);
    const user = await isUnpurgedUser(tx, userId);
    if (!plan || plan.is_default || !user) return false;
    if (s.customer) await rememberCustomer(tx, userId, s.customer);
    if (s.subscription) await lockSubscription(tx, s.subscription, { customerId: s.customer, userId, planSlug });
    if (!(await claimCheckout(tx, { id: s.id, userId, planSlug, subscriptionId: s.subscription }))) return false;
    await grant(tx, userId, planSlug, 1, { event: 'billing_slot_purchased', requestId, data: { checkout_session: s.id, subscription: s.subscription } });
    return true;
  }

  /**
   * Copies the subscription's state to its book, tying it to the book first
   * when it has none yet. A book the operator moved to another plan is the
   * operator's: it is left alone.
   */
  async function syncBook(tx: Tx, sub: SubscriptionRow, o: { fromPlan?: string | null } = {}) {
    if (sub.released_at || !sub.plan_slug) return;
    const bookId = sub.book_id ?? (await bindToBook(tx, sub));
    if (!bookId) return;
    const book = await lockBook(tx, bookId);
    // A plan change in the portal moves the book from the subscription's old plan to its new one.
    if (!book || book.plan_slug !== (o.fromPlan ?? sub.plan_slug)) return;
    const { bookChanged } = await setBookBilling(tx, book.id, {
      planSlug: sub.plan_slug,
      status: sub.status,
      periodStart: sub.period_start,
      periodEnd: sub.period_end,
      graceEndsAt: sub.status === 'grace_period' ? sub.grace_period_ends_at : null,
      cancelAtPeriodEnd: sub.cancel_at_period_end,
    });
    // A plan change in the portal is a change of the book an integrator hears of.
    if (bookChanged) await recordBookUpdated(tx, deps.store, book.id);
  }

  /** After a canceled subscription's paid period: its book goes to the default plan (data kept), or its unused slot is taken back. */
  async function release(tx: Tx, subId: string) {
    const sub = await lockSubscription(tx, subId, {});
    if (sub.status !== 'canceled' || sub.released_at) return false;
    if (sub.period_end && Date.parse(sub.period_end) > deps.clock().getTime()) return false;
    const bookId = sub.book_id ?? (await bindToBook(tx, sub));
    const fallback = await findDefaultPlan(tx);
    let book: Awaited<ReturnType<typeof lockBook>>;
    if (bookId && (book = await lockBook(tx, bookId)) && book.plan_slug === sub.plan_slug) {
      const { bookChanged } = await setBookBilling(tx, book.id, { planSlug: fallback.slug, status: 'active', periodStart: null, periodEnd: null, graceEndsAt: null });
      if (bookChanged) await recordBookUpdated(tx, deps.store, book.id);
      await audit.record('billing_book_moved_to_default_plan', { userId: sub.user_id, requestId: null, data: { book: book.slug, from: sub.plan_slug, to: fallback.slug, subscription: sub.id } }, tx);
    } else if (!bookId && sub.user_id && sub.plan_slug && (await boughtSlot(tx, sub.id)) && (await removeUnusedSlot(tx, sub.user_id, sub.plan_slug))) {
      await audit.record('billing_unused_slot_ended', { userId: sub.user_id, requestId: null, data: { plan: sub.plan_slug, subscription: sub.id } }, tx);
    }
    await markReleased(tx, sub.id);
    return true;
  }

  /**
   * The buyer and plan named in metadata, each kept only when memorybook
   * knows it: the Stripe account may carry other products' subscriptions.
   */
  async function knownBuyer(q: Queryable, metadata: unknown) {
    const { userId, planSlug } = buyerOf(metadata);
    // A deleted account's events name it no more (its rows were cut loose when it was purged).
    const user = userId && isUuid(userId) ? await isLiveUser(q, userId) : false;
    const plan = planSlug ? await findPlan(q, planSlug) : undefined;
    return { userId: user ? userId : null, planSlug: plan && !plan.is_default ? plan.slug : null };
  }

  return { grant, fulfil, syncBook, release, knownBuyer };
}
export type BillingLedger = ReturnType<typeof createBillingLedger>;
