import type { ObjectStore } from '../../storage/object-store.js';
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { one } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { isUuid } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import { recordBookUpdated } from '../events/event-objects.js';
import { toPlan } from '../plans/plan-mapper.js';
import { findDefaultPlan, findPlan } from '../plans/plan-repository.js';
import {
  addSlots,
  bindToBook,
  claimCheckout,
  claimEvent,
  dueForRelease,
  endSubscriptionsOfBook,
  endSubscriptionsOfUser,
  findUnboundFor,
  forgetBuyer,
  boughtSlot,
  moveSlot,
  setSubscriptionBook,
  findCustomerOf,
  lockBook,
  lockSubscription,
  markReleased,
  pruneEvents,
  rememberCustomer,
  removeUnusedSlot,
  saveSubscriptionState,
  setBookBilling,
  slotsOf,
  unboundWithBook,
  type SubscriptionRow,
} from './billing-checkout-repository.js';
import { createStripeGateway, type CheckoutSessionView, type VerifiedEvent } from './stripe-gateway.js';
import {
  at,
  billingStatusOf,
  buyerOf,
  customerOf,
  endedAt,
  endsLater,
  idOf,
  invoicePeriod,
  invoiceSubscription,
  isoOf,
  str,
  subscriptionPeriodEnd,
  subscriptionPrice,
} from './stripe-objects.js';

export const CHECKOUT_PATH = '/billing/checkout/';
export const CHECKOUT_SUCCESS_PATH = '/billing/checkout/success/';

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
export const PORTAL_PATH = '/billing/portal/';

/** The events that change anything; others are acknowledged and ignored. */
export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'invoice.payment_failed',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;

/**
 * Selling book slots and keeping paid books' billing in step with Stripe.
 *
 * The checkout sells one slot of a plan as a Stripe subscription; its
 * completion (event or success page, whichever first) adds the slot. The
 * slot makes a book through POST /books/ as any slot does, and the
 * subscription is tied to that book in the same transaction. Its invoices
 * move the book's period, start and end its grace period; its updates (from
 * the customer portal) set cancel-at-period-end, change its plan, or mark it
 * past due; its deletion cancels the book's billing and, once the paid period
 * is over, moves the book to the default plan with its data kept. Deleting
 * the book (or its owner's account) cancels the subscription at Stripe
 * through the queue. Every event is taken once (by id) and stale ones change
 * nothing: an invoice for a period already paid through, an update older
 * than the newest taken, anything after the subscription ended.
 */
export function createBillingCheckoutService(deps: { db: Db; config: Config; audit: AuditService; queue?: JobSender; store: ObjectStore }) {
  const { db, config, audit } = deps;
  const stripe = config.billing.stripe ? createStripeGateway(config.billing.stripe) : null;
  const url = (path: string) => `${config.http.publicUrl}${path}`;

  /** Adds slots and audits who added them, in `q`. */
  async function grant(q: Queryable, userId: string, planSlug: string, count: number, how: { event: string; requestId?: string | null; data?: Record<string, unknown> }) {
    const row = await addSlots(q, userId, planSlug, count);
    await audit.record(how.event, { userId, requestId: how.requestId ?? null, data: { plan: planSlug, count, ...how.data } }, q);
    return { plan: planSlug, purchased: row.purchased, used: row.used, available: row.purchased - row.used };
  }

  /** A plan that can be bought: in the catalog and not the default. */
  async function paidPlan(q: Queryable, slug: string) {
    const plan = await findPlan(q, slug);
    if (!plan) throw errors.notFound('plan');
    if (plan.is_default) throw errors.validation(`The default plan "${slug}" needs no slot.`);
    return plan;
  }

  /** A completed checkout's slot, once (the event and the success page may both bring it). */
  async function fulfil(tx: Tx, s: CheckoutSessionView, requestId: string | null) {
    if (checkoutState(s) !== 'paid') return false;
    const buyer = buyerOf(s.metadata);
    const userId = s.client_reference_id ?? buyer.userId;
    const planSlug = buyer.planSlug;
    if (!userId || !planSlug || !isUuid(userId)) return false;
    const plan = await findPlan(tx, planSlug);
    const user = await one(tx, `SELECT 1 FROM users WHERE id = $1 AND purged_at IS NULL`, [userId]);
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

  /** Queues the cancellation at Stripe of subscriptions ended here, in `tx` (it runs once the change commits). */
  async function cancelAtStripeLater(tx: Tx, ids: string[], why: string) {
    if (!ids.length) return;
    if (!deps.queue) throw new Error('canceling a Stripe subscription needs the job queue');
    for (const subscriptionId of ids) await deps.queue.send('billing.cancel-subscription', { subscriptionId, reason: why }, { tx });
  }

  /** After a canceled subscription's paid period: its book goes to the default plan (data kept), or its unused slot is taken back. */
  async function release(tx: Tx, subId: string) {
    const sub = await lockSubscription(tx, subId, {});
    if (sub.status !== 'canceled' || sub.released_at) return false;
    if (sub.period_end && Date.parse(sub.period_end) > Date.now()) return false;
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
    const user = userId && isUuid(userId) ? await one(q, `SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL`, [userId]) : undefined;
    const plan = planSlug ? await findPlan(q, planSlug) : undefined;
    return { userId: user ? userId : null, planSlug: plan && !plan.is_default ? plan.slug : null };
  }

  /** One verified event, in `tx`; false when it changed nothing. */
  async function apply(tx: Tx, event: VerifiedEvent, requestId: string | null): Promise<boolean> {
    const o = event.object;
    switch (event.type) {
      // A delayed payment method (a bank debit) completes the checkout unpaid; its success comes later.
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const id = str(o.id);
        if (!id) return false;
        const s: CheckoutSessionView = {
          id,
          url: null,
          status: str(o.status),
          payment_status: str(o.payment_status) ?? '',
          mode: str(o.mode) ?? '',
          client_reference_id: str(o.client_reference_id),
          metadata: (at(o, 'metadata') as Record<string, string> | undefined) ?? null,
          customer: customerOf(o),
          subscription: idOf(o.subscription),
        };
        return fulfil(tx, s, requestId);
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const { id, metadata } = invoiceSubscription(o);
        const period = invoicePeriod(o);
        if (!id || !period) return false;
        const sub = await lockSubscription(tx, id, { customerId: customerOf(o), ...(await knownBuyer(tx, metadata)) });
        // Nothing revives a subscription that ended; an invoice for a period already paid through is stale.
        if (sub.status === 'canceled' || sub.released_at) return false;
        const paidThrough = sub.period_end ? Date.parse(sub.period_end) / 1000 : 0;
        if (period.end <= paidThrough) return false;
        let next: SubscriptionRow;
        if (event.type === 'invoice.paid') {
          next = await saveSubscriptionState(tx, sub.id, {
            status: 'active',
            period_start: isoOf(period.start),
            period_end: isoOf(period.end),
            grace_period_ends_at: null,
            canceled_at: null,
            status_at: isoOf(event.created),
          });
        } else {
          // Stripe retries a failed invoice with new events; the grace period runs from the first failure.
          if (sub.status === 'grace_period') return false;
          // A newer status (the subscription paid again, as its update said) makes an older failure stale.
          if (sub.status_at && Date.parse(sub.status_at) > event.created * 1000) return false;
          next = await saveSubscriptionState(tx, sub.id, {
            ...sub,
            status: 'grace_period',
            grace_period_ends_at: new Date(Date.now() + config.billing.graceDays * 86_400_000).toISOString(),
            status_at: isoOf(event.created),
          });
        }
        await syncBook(tx, next);
        return true;
      }
      case 'customer.subscription.updated': {
        const id = idOf(o.id);
        if (!id) return false;
        const sub = await lockSubscription(tx, id, { customerId: customerOf(o), ...(await knownBuyer(tx, o.metadata)) });
        if (sub.status === 'canceled' || sub.released_at) return false;
        // Each update carries the whole subscription: one older than the newest taken is stale.
        if (sub.snapshot_at && Date.parse(sub.snapshot_at) > event.created * 1000) return false;
        const when = isoOf(event.created);
        // The status, unless an invoice event since said otherwise. The period stays the invoices':
        // at renewal the subscription moves to its new period before that period is paid.
        const wanted = billingStatusOf(o);
        const fresh = !sub.status_at || Date.parse(sub.status_at) <= event.created * 1000;
        let status = sub.status;
        let graceEnds = sub.grace_period_ends_at;
        if (wanted && fresh && wanted !== sub.status) {
          status = wanted;
          graceEnds = wanted === 'grace_period' ? new Date(Date.now() + config.billing.graceDays * 86_400_000).toISOString() : null;
        }
        // A plan change in the portal: the price names the new plan; its slot (and book) move with it.
        const price = subscriptionPrice(o);
        const named = price && stripe ? stripe.planOfPrice(price) : undefined;
        const newPlan = named && named !== sub.plan_slug && sub.user_id && sub.plan_slug ? await findPlan(tx, named) : undefined;
        const planSlug = newPlan && !newPlan.is_default ? newPlan.slug : sub.plan_slug;
        // Only a slot this subscription bought moves (a checkout of it was fulfilled), and only one that is there.
        if (planSlug !== sub.plan_slug && sub.user_id && sub.plan_slug && (await boughtSlot(tx, sub.id)) && (await moveSlot(tx, sub.user_id, sub.plan_slug, planSlug!, sub.book_id !== null))) {
          await audit.record('billing_plan_changed', { userId: sub.user_id, requestId, data: { subscription: sub.id, from: sub.plan_slug, to: planSlug } }, tx);
        }
        const next = await saveSubscriptionState(tx, sub.id, {
          ...sub,
          status,
          grace_period_ends_at: status === 'grace_period' ? graceEnds : null,
          cancel_at_period_end: endsLater(o),
          plan_slug: planSlug,
          snapshot_at: when,
          ...(status !== sub.status ? { status_at: when } : {}),
        });
        await syncBook(tx, next, { fromPlan: sub.plan_slug });
        return true;
      }
      case 'customer.subscription.deleted': {
        const id = idOf(o.id);
        if (!id) return false;
        const sub = await lockSubscription(tx, id, { customerId: customerOf(o), ...(await knownBuyer(tx, o.metadata)) });
        if (sub.status === 'canceled' || sub.released_at) return false;
        const ended = endedAt(o) ?? event.created;
        // The period paid through, from the invoices seen; when none came, the subscription's own.
        const end = sub.period_end ?? (subscriptionPeriodEnd(o) !== null ? isoOf(subscriptionPeriodEnd(o)!) : null);
        const next = await saveSubscriptionState(tx, sub.id, {
          ...sub,
          status: 'canceled',
          period_end: end,
          grace_period_ends_at: null,
          canceled_at: isoOf(ended),
          cancel_at_period_end: false,
          status_at: isoOf(event.created),
        });
        await syncBook(tx, next);
        await release(tx, sub.id);
        return true;
      }
      default:
        return false;
    }
  }

  return {
    stripeEnabled: stripe !== null,
    /**
     * Where Stripe's checkout pages are served from, which the checkout form
     * may lead to (the page's CSP form-action also covers the redirect):
     * Stripe's own, or a stand-in's at STRIPE_API_BASE.
     */
    checkoutOrigin: !config.billing.stripe
      ? null
      : config.billing.stripe.api.host === 'api.stripe.com'
        ? 'https://checkout.stripe.com'
        : `${config.billing.stripe.api.protocol}://${config.billing.stripe.api.host}:${config.billing.stripe.api.port}`,
    testSlotsOffered: config.env !== 'production',
    graceDays: config.billing.graceDays,

    /** What the checkout page shows: the plan, whether it is sold online here, the viewer's slots of it. */
    async describeCheckout(planSlug: string, userId: string | null) {
      const plan = await findPlan(db, planSlug);
      if (!plan) return { plan: null } as const;
      const slots = userId && !plan.is_default ? await slotsOf(db, userId, plan.slug) : null;
      return {
        plan: toPlan(plan),
        sold: !plan.is_default && stripe !== null && stripe.priceOf(plan.slug) !== undefined,
        available: slots ? slots.purchased - slots.used : null,
      };
    },

    /** Starts a Stripe Checkout for one book of the plan; answers the URL to send the buyer to. */
    async startCheckout(user: { id: string; email: string | null }, planSlug: string): Promise<string> {
      const plan = await paidPlan(db, planSlug);
      const price = stripe?.priceOf(plan.slug);
      if (!stripe || !price) throw errors.invalidState(`The ${plan.name} plan is not sold online here; the operator grants its slots.`);
      const session = await stripe.createCheckoutSession({
        price,
        userId: user.id,
        planSlug: plan.slug,
        customerId: (await findCustomerOf(db, user.id)) ?? null,
        email: user.email,
        successUrl: `${url(CHECKOUT_SUCCESS_PATH)}?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${url(CHECKOUT_PATH)}?plan=${encodeURIComponent(plan.slug)}`,
        idempotencyKey: randomUUID(),
      });
      if (!session.url) throw errors.serviceUnavailable('Stripe did not answer a checkout page; try again in a moment.');
      return session.url;
    },

    /**
     * The success page's view of a checkout: reads it back from Stripe and,
     * when paid, adds its slot unless the event did already.
     */
    async confirmCheckout(userId: string, sessionId: string, requestId: string | null) {
      if (!stripe) throw errors.notFound('checkout');
      if (!/^cs_[A-Za-z0-9_]{1,250}$/.test(sessionId)) throw errors.notFound('checkout');
      const session = await stripe.retrieveCheckoutSession(sessionId);
      // Another person's checkout is not found, not forbidden.
      if ((session.client_reference_id ?? buyerOf(session.metadata).userId) !== userId) throw errors.notFound('checkout');
      const planSlug = buyerOf(session.metadata).planSlug;
      await db.transaction((tx) => fulfil(tx, session, requestId));
      const plan = planSlug ? await findPlan(db, planSlug) : undefined;
      const slots = plan ? await slotsOf(db, userId, plan.slug) : { purchased: 0, used: 0 };
      return { state: checkoutState(session), plan: plan ? toPlan(plan) : null, available: slots.purchased - slots.used };
    },

    /** Outside production only: one slot of the plan for the signed-in user, so the checkout link is never a dead end in development. */
    async grantTestSlot(userId: string, planSlug: string, requestId: string | null) {
      if (config.env === 'production') throw errors.forbidden('Test slots are not offered in production.');
      return db.transaction(async (tx) => grant(tx, userId, (await paidPlan(tx, planSlug)).slug, 1, { event: 'billing_test_slot_granted', requestId }));
    },

    /** The operator's `memorybook slots grant`, audited. */
    async grantSlotsAsOperator(userId: string, planSlug: string, count: number) {
      const plan = await findPlan(db, planSlug);
      if (!plan) throw errors.validation(`Unknown plan "${planSlug}".`);
      if (plan.is_default) throw errors.validation(`The default plan "${planSlug}" needs no slots.`);
      return db.transaction((tx) => grant(tx, userId, plan.slug, count, { event: 'operator_slots_granted' }));
    },

    /** A Stripe customer portal session for the user; undefined when they never bought through Stripe. */
    async portalUrl(userId: string): Promise<string | undefined> {
      if (!stripe) return undefined;
      const customer = await findCustomerOf(db, userId);
      return customer ? stripe.createPortalSession(customer, url('/settings/tokens/')) : undefined;
    },

    /** Stripe-Signature over the raw body; anything that does not verify is 403 and nothing is read from it. */
    async verifyEvent(rawBody: Buffer, signature: string | undefined): Promise<VerifiedEvent> {
      if (!stripe) throw errors.forbidden('Stripe is not configured.');
      if (!signature) throw errors.forbidden('The request is refused: no Stripe-Signature.');
      try {
        return await stripe.verifyEvent(rawBody, signature);
      } catch {
        throw errors.forbidden('The request is refused: the Stripe-Signature does not match or is too old.');
      }
    },

    /** Takes one verified event, once; a redelivery or a stale event changes nothing. */
    async takeEvent(event: VerifiedEvent, requestId: string | null): Promise<{ applied: boolean }> {
      return db.transaction(async (tx) => {
        if (!(await claimEvent(tx, event.id, event.type))) return { applied: false };
        return { applied: await apply(tx, event, requestId) };
      });
    },

    /**
     * POST /books/ made a book with a slot of a paid plan, in its `tx`: when
     * the buyer holds a subscription bought through Stripe and tied to no
     * book yet, the book is the one it pays for, and its billing record takes
     * the subscription's status and period at once.
     */
    async bindNewBook(tx: Tx, book: { id: string; ownerId: string; planSlug: string }): Promise<boolean> {
      const id = await findUnboundFor(tx, book.ownerId, book.planSlug);
      if (!id) return false;
      const sub = await lockSubscription(tx, id, {});
      await setSubscriptionBook(tx, sub.id, book.id);
      await syncBook(tx, { ...sub, book_id: book.id });
      return true;
    },

    /**
     * A paid book was deleted, in the deletion's `tx`: its subscription ends
     * here (no later event binds it to another book) and its cancellation at
     * Stripe is queued, unless Stripe ended it already.
     */
    async endForDeletedBook(tx: Tx, bookId: string): Promise<void> {
      await cancelAtStripeLater(tx, await endSubscriptionsOfBook(tx, bookId), 'book_deleted');
    },

    /**
     * An account's purge, in its `tx`: every subscription still billing the
     * buyer is canceled at Stripe (through the queue), and their Stripe rows
     * are removed (customer, checkouts) or cut loose from them (subscriptions,
     * kept so late events stay ignored).
     */
    async forgetUser(tx: Tx, userId: string): Promise<void> {
      await cancelAtStripeLater(tx, await endSubscriptionsOfUser(tx, userId), 'account_purged');
      await forgetBuyer(tx, userId);
    },

    /** The cancel job: cancels the subscription at Stripe; done already there is success, so a retry is safe. */
    async cancelAtStripe(subscriptionId: string): Promise<'canceled' | 'already'> {
      if (!stripe) throw new Error('Stripe is not configured (STRIPE_SECRET_KEY): the subscription cannot be canceled there');
      return stripe.cancelSubscription(subscriptionId);
    },

    /**
     * Housekeeping: ties any subscription still unbound to the book its slot
     * made (POST /books/ normally did at once), and moves the books of canceled subscriptions whose
     * paid period is over to the default plan.
     */
    async settle(): Promise<{ bound: number; released: number }> {
      let bound = 0;
      let released = 0;
      for (const id of await unboundWithBook(db, 100)) {
        await db.transaction(async (tx) => {
          const sub = await lockSubscription(tx, id, {});
          if (sub.book_id || sub.released_at) return;
          const bookId = await bindToBook(tx, sub);
          if (bookId) {
            bound++;
            await syncBook(tx, { ...sub, book_id: bookId });
          }
        });
      }
      for (const id of await dueForRelease(db, 100)) {
        if (await db.transaction((tx) => release(tx, id))) released++;
      }
      // Stripe stops redelivering an event after three days; its id is kept well past that.
      await pruneEvents(db, 30);
      return { bound, released };
    },
  };
}
export type BillingCheckoutService = ReturnType<typeof createBillingCheckoutService>;
