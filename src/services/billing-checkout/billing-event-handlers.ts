import type { Tx } from '../../db/client.js';
import type { AuditService } from '../audit/audit-service.js';
import { findPlan } from '../plans/plan-service.js';
import { boughtSlot, lockSubscription, moveSlot, saveSubscriptionState, type SubscriptionRow } from './billing-checkout-repository.js';
import type { BillingLedger, Clock } from './billing-ledger.js';
import type { CheckoutSessionView, StripeGateway, VerifiedEvent } from './stripe-gateway.js';
import {
  at,
  billingStatusOf,
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

/** The events that change anything; others are acknowledged and ignored. */
export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'invoice.payment_failed',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;
export type HandledEvent = (typeof HANDLED_EVENTS)[number];

/** One verified event, in `tx`; false when it changed nothing (stale, unknown, or already so). */
export type BillingEventHandler = (tx: Tx, event: VerifiedEvent, requestId: string | null) => Promise<boolean>;

/**
 * One handler per Stripe event type billing takes. Every event is taken once
 * (by id, before its handler runs) and stale ones change nothing: an invoice
 * for a period already paid through, an update older than the newest taken,
 * anything after the subscription ended. The gateway names the plan of a
 * price (a plan change in the portal); the clock starts grace periods.
 */
export function createBillingEventHandlers(deps: {
  ledger: BillingLedger;
  audit: AuditService;
  gateway: Pick<StripeGateway, 'planOfPrice'> | null;
  clock: Clock;
  graceDays: number;
}): Record<HandledEvent, BillingEventHandler> {
  const { ledger, audit } = deps;
  const graceEndsFromNow = () => new Date(deps.clock().getTime() + deps.graceDays * 86_400_000).toISOString();

  /** The subscription an event names, locked, with what memorybook knows of its buyer; undefined when it ended already. */
  async function liveSubscription(tx: Tx, id: string, o: Record<string, unknown>, metadata: unknown) {
    const sub = await lockSubscription(tx, id, { customerId: customerOf(o), ...(await ledger.knownBuyer(tx, metadata)) });
    // Nothing revives a subscription that ended.
    return sub.status === 'canceled' || sub.released_at ? undefined : sub;
  }

  /** A checkout finished; a delayed payment method (a bank debit) completes it unpaid, its success comes later. */
  const checkoutFinished: BillingEventHandler = async (tx, event, requestId) => {
    const o = event.object;
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
    return ledger.fulfil(tx, s, requestId);
  };

  /** An invoice of a period not yet paid through, with its subscription; undefined when stale. */
  async function freshInvoice(tx: Tx, event: VerifiedEvent) {
    const { id, metadata } = invoiceSubscription(event.object);
    const period = invoicePeriod(event.object);
    if (!id || !period) return undefined;
    const sub = await liveSubscription(tx, id, event.object, metadata);
    if (!sub) return undefined;
    const paidThrough = sub.period_end ? Date.parse(sub.period_end) / 1000 : 0;
    return period.end <= paidThrough ? undefined : { sub, period };
  }

  const invoicePaid: BillingEventHandler = async (tx, event) => {
    const fresh = await freshInvoice(tx, event);
    if (!fresh) return false;
    const next = await saveSubscriptionState(tx, fresh.sub.id, {
      status: 'active',
      period_start: isoOf(fresh.period.start),
      period_end: isoOf(fresh.period.end),
      grace_period_ends_at: null,
      canceled_at: null,
      status_at: isoOf(event.created),
    });
    await ledger.syncBook(tx, next);
    return true;
  };

  const invoicePaymentFailed: BillingEventHandler = async (tx, event) => {
    const fresh = await freshInvoice(tx, event);
    if (!fresh) return false;
    const { sub } = fresh;
    // Stripe retries a failed invoice with new events; the grace period runs from the first failure.
    if (sub.status === 'grace_period') return false;
    // A newer status (the subscription paid again, as its update said) makes an older failure stale.
    if (sub.status_at && Date.parse(sub.status_at) > event.created * 1000) return false;
    const next = await saveSubscriptionState(tx, sub.id, { ...sub, status: 'grace_period', grace_period_ends_at: graceEndsFromNow(), status_at: isoOf(event.created) });
    await ledger.syncBook(tx, next);
    return true;
  };

  /**
   * A plan change in the portal: the price names the new plan; its slot (and
   * book) move with it. Only a slot this subscription bought moves (a
   * checkout of it was fulfilled), and only one that is there.
   */
  async function planAfterUpdate(tx: Tx, sub: SubscriptionRow, o: Record<string, unknown>, requestId: string | null) {
    const price = subscriptionPrice(o);
    const named = price && deps.gateway ? deps.gateway.planOfPrice(price) : undefined;
    const newPlan = named && named !== sub.plan_slug && sub.user_id && sub.plan_slug ? await findPlan(tx, named) : undefined;
    const planSlug = newPlan && !newPlan.is_default ? newPlan.slug : sub.plan_slug;
    if (planSlug !== sub.plan_slug && sub.user_id && sub.plan_slug && (await boughtSlot(tx, sub.id)) && (await moveSlot(tx, sub.user_id, sub.plan_slug, planSlug!, sub.book_id !== null))) {
      await audit.record('billing_plan_changed', { userId: sub.user_id, requestId, data: { subscription: sub.id, from: sub.plan_slug, to: planSlug } }, tx);
    }
    return planSlug;
  }

  const subscriptionUpdated: BillingEventHandler = async (tx, event, requestId) => {
    const o = event.object;
    const id = idOf(o.id);
    if (!id) return false;
    const sub = await liveSubscription(tx, id, o, o.metadata);
    if (!sub) return false;
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
      graceEnds = wanted === 'grace_period' ? graceEndsFromNow() : null;
    }
    const planSlug = await planAfterUpdate(tx, sub, o, requestId);
    const next = await saveSubscriptionState(tx, sub.id, {
      ...sub,
      status,
      grace_period_ends_at: status === 'grace_period' ? graceEnds : null,
      cancel_at_period_end: endsLater(o),
      plan_slug: planSlug,
      snapshot_at: when,
      ...(status !== sub.status ? { status_at: when } : {}),
    });
    await ledger.syncBook(tx, next, { fromPlan: sub.plan_slug });
    return true;
  };

  const subscriptionDeleted: BillingEventHandler = async (tx, event) => {
    const o = event.object;
    const id = idOf(o.id);
    if (!id) return false;
    const sub = await liveSubscription(tx, id, o, o.metadata);
    if (!sub) return false;
    const ended = endedAt(o) ?? event.created;
    // The period paid through, from the invoices seen; when none came, the subscription's own.
    const ownEnd = subscriptionPeriodEnd(o);
    const end = sub.period_end ?? (ownEnd !== null ? isoOf(ownEnd) : null);
    const next = await saveSubscriptionState(tx, sub.id, {
      ...sub,
      status: 'canceled',
      period_end: end,
      grace_period_ends_at: null,
      canceled_at: isoOf(ended),
      cancel_at_period_end: false,
      status_at: isoOf(event.created),
    });
    await ledger.syncBook(tx, next);
    await ledger.release(tx, sub.id);
    return true;
  };

  return {
    'checkout.session.completed': checkoutFinished,
    'checkout.session.async_payment_succeeded': checkoutFinished,
    'invoice.paid': invoicePaid,
    'invoice.payment_failed': invoicePaymentFailed,
    'customer.subscription.updated': subscriptionUpdated,
    'customer.subscription.deleted': subscriptionDeleted,
  };
}

/** Whether Stripe's event type is one billing has a handler for. */
export function isHandledEvent(type: string): type is HandledEvent {
  return (HANDLED_EVENTS as readonly string[]).includes(type);
}
