import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { AuditService } from '../audit/audit-service.js';
import { toPlan } from '../plans/plan-mapper.js';
import { findPlan } from '../plans/plan-service.js';
import {
  bindToBook,
  claimEvent,
  dueForRelease,
  endSubscriptionsOfBook,
  endSubscriptionsOfUser,
  findUnboundFor,
  forgetBuyer,
  setSubscriptionBook,
  findCustomerOf,
  lockSubscription,
  pruneEvents,
  slotsOf,
  unboundWithBook,
} from './billing-checkout-repository.js';
import { createBillingEventHandlers, isHandledEvent } from './billing-event-handlers.js';
import { checkoutState, createBillingLedger, type Clock } from './billing-ledger.js';
import type { StripeGateway, VerifiedEvent } from './stripe-gateway.js';
import { buyerOf } from './stripe-objects.js';

export { checkoutState, type CheckoutState } from './billing-ledger.js';
export { HANDLED_EVENTS } from './billing-event-handlers.js';

export const CHECKOUT_PATH = '/billing/checkout/';
export const CHECKOUT_SUCCESS_PATH = '/billing/checkout/success/';

export const PORTAL_PATH = '/billing/portal/';

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
export function createBillingCheckoutService(deps: {
  db: Db;
  config: Config;
  audit: AuditService;
  queue: JobSender;
  store: ObjectStore;
  /** Stripe, or null when it is not configured (slots are then the operator's to grant). */
  gateway: StripeGateway | null;
  clock: Clock;
}) {
  const { db, config, audit } = deps;
  const stripe = deps.gateway;
  const url = (path: string) => `${config.http.publicUrl}${path}`;
  const ledger = createBillingLedger({ audit, store: deps.store, clock: deps.clock });
  const { grant, fulfil, syncBook, release } = ledger;
  const handlers = createBillingEventHandlers({ ledger, audit, gateway: stripe, clock: deps.clock, graceDays: config.billing.graceDays });

  /** A plan that can be bought: in the catalog and not the default. */
  async function paidPlan(q: Queryable, slug: string) {
    const plan = await findPlan(q, slug);
    if (!plan) throw errors.notFound('plan');
    if (plan.is_default) throw errors.validation(`The default plan "${slug}" needs no slot.`);
    return plan;
  }

  /** Queues the cancellation at Stripe of subscriptions ended here, in `tx` (it runs once the change commits). */
  async function cancelAtStripeLater(tx: Tx, ids: string[], why: string) {
    if (!ids.length) return;
    for (const subscriptionId of ids) await deps.queue.send('billing.cancel-subscription', { subscriptionId, reason: why }, { tx });
  }

  /** One verified event, in `tx`, by its type's handler; false when it changed nothing (or billing takes no such event). */
  async function apply(tx: Tx, event: VerifiedEvent, requestId: string | null): Promise<boolean> {
    return isHandledEvent(event.type) ? handlers[event.type](tx, event, requestId) : false;
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
