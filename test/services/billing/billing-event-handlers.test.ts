/**
 * Billing's event table: one handler per Stripe event type, with the Stripe
 * gateway and the clock handed in. A billing service is built here over the
 * test app's real database and job queue, with a clock the test sets and a
 * gateway that records what it is asked (and answers as the configured
 * prices say), so the grace period, the release after a paid period and the
 * plan change can be pinned to the clock and the gateway exactly.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { VerifiedEvent } from '../../../src/services/billing-checkout/stripe-gateway.js';
import { createBillingCheckoutService, HANDLED_EVENTS, type BillingCheckoutService } from '../../../src/services/billing-checkout/billing-checkout-service.js';
import type { CheckoutSessionView, StripeGateway } from '../../../src/services/billing-checkout/stripe-gateway.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { STRIPE_PRICES } from '../../helpers/stripe-server.js';

const DAY = 86_400;
const GRACE_DAYS = 10;
const id = (prefix: string) => `${prefix}_test_${randomBytes(10).toString('hex')}`;

/** A Stripe gateway that records each call and answers from the test prices; nothing leaves the process. */
class RecordingGateway implements StripeGateway {
  readonly calls: { method: string; args: unknown[] }[] = [];
  private record(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
  }
  called(method: string) {
    return this.calls.filter((c) => c.method === method);
  }
  priceOf(planSlug: string) {
    this.record('priceOf', planSlug);
    return (STRIPE_PRICES as Record<string, string>)[planSlug];
  }
  planOfPrice(price: string) {
    this.record('planOfPrice', price);
    return Object.entries(STRIPE_PRICES).find(([, p]) => p === price)?.[0];
  }
  async cancelSubscription(subscriptionId: string) {
    this.record('cancelSubscription', subscriptionId);
    return 'canceled' as const;
  }
  async createCheckoutSession(o: Parameters<StripeGateway['createCheckoutSession']>[0]): Promise<CheckoutSessionView> {
    this.record('createCheckoutSession', o);
    throw new Error('not used by the event handlers');
  }
  async retrieveCheckoutSession(sessionId: string): Promise<CheckoutSessionView> {
    this.record('retrieveCheckoutSession', sessionId);
    throw new Error('not used by the event handlers');
  }
  async createPortalSession(customerId: string, returnUrl: string) {
    this.record('createPortalSession', customerId, returnUrl);
    return `https://portal.invalid/${customerId}`;
  }
  async verifyEvent(): Promise<VerifiedEvent> {
    this.record('verifyEvent');
    throw new Error('events are handed to takeEvent already verified here');
  }
}

let t: TestApp;
let now: Date;
let gateway: RecordingGateway;
let billing: BillingCheckoutService;
beforeAll(async () => {
  t = await buildTestApp({ env: { BILLING_GRACE_DAYS: String(GRACE_DAYS) } });
  gateway = new RecordingGateway();
  now = new Date('2031-03-01T12:00:00.000Z');
  billing = createBillingCheckoutService({
    db: t.db,
    config: t.config,
    audit: t.services.audit,
    queue: t.queue,
    store: t.services.store,
    gateway,
    clock: () => new Date(now),
  });
});

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
let created = 0;
/** A verified event as the webhook hands it on, each one created a second after the last. */
const event = (type: string, object: Record<string, unknown>): VerifiedEvent => ({ id: id('evt'), type, created: seconds(now) + ++created, object });
const subRow = async (sub: string) => (await t.db.query<any>(`SELECT * FROM stripe_subscriptions WHERE id = $1`, [sub]))[0];
const slots = async (u: TestUser) => t.db.query<any>(`SELECT plan_slug, purchased, used FROM book_slots WHERE user_id = $1 ORDER BY plan_slug`, [u.user.id]);

/** A paid checkout of the plan, through the checkout handler; answers the subscription's ids. */
async function bought(u: TestUser, plan = 'premium') {
  const ref = { subscription: id('sub'), customer: id('cus') };
  const metadata = { user_id: u.user.id, plan };
  const checkout = { id: id('cs'), object: 'checkout.session', status: 'complete', payment_status: 'paid', mode: 'subscription', client_reference_id: u.user.id, metadata, ...ref };
  expect(await billing.takeEvent(event('checkout.session.completed', checkout), null)).toEqual({ applied: true });
  return { ...ref, metadata };
}

const invoice = (s: Awaited<ReturnType<typeof bought>>, period: { start: number; end: number }) => ({
  id: id('in'),
  object: 'invoice',
  customer: s.customer,
  parent: { subscription_details: { subscription: s.subscription, metadata: s.metadata } },
  lines: { data: [{ period }] },
});

const subscription = (s: Awaited<ReturnType<typeof bought>>, o: { status: string; price: string; periodEnd: number }) => ({
  id: s.subscription,
  object: 'subscription',
  customer: s.customer,
  status: o.status,
  metadata: s.metadata,
  items: { data: [{ current_period_end: o.periodEnd, price: { id: o.price } }] },
});

describe('the billing event table', () => {
  it('takes every handled type and acknowledges any other once, changing nothing', async () => {
    expect([...HANDLED_EVENTS].sort()).toEqual(
      ['checkout.session.async_payment_succeeded', 'checkout.session.completed', 'customer.subscription.deleted', 'customer.subscription.updated', 'invoice.paid', 'invoice.payment_failed'].sort(),
    );
    const other = event('customer.created', { id: id('cus') });
    expect(await billing.takeEvent(other, null)).toEqual({ applied: false });
    // Taken once: a redelivery of it is not looked at again.
    expect(await billing.takeEvent(other, null)).toEqual({ applied: false });
    expect(await t.db.query(`SELECT type FROM stripe_events WHERE id = $1`, [other.id])).toEqual([{ type: 'customer.created' }]);
  });

  it('a paid checkout adds its slot once; a delayed payment adds it when it succeeds', async () => {
    const u = await newUser(t);
    const s = await bought(u);
    expect(await slots(u)).toEqual([{ plan_slug: 'premium', purchased: 1, used: 0 }]);
    const delayed = { id: id('cs'), status: 'complete', payment_status: 'unpaid', mode: 'subscription', client_reference_id: u.user.id, metadata: s.metadata, customer: s.customer, subscription: id('sub') };
    expect(await billing.takeEvent(event('checkout.session.completed', delayed), null)).toEqual({ applied: false });
    expect(await billing.takeEvent(event('checkout.session.async_payment_succeeded', { ...delayed, payment_status: 'paid' }), null)).toEqual({ applied: true });
    expect(await slots(u)).toEqual([{ plan_slug: 'premium', purchased: 2, used: 0 }]);
    // No call to Stripe: the event carries what the slot needs.
    expect(gateway.calls.filter((c) => c.method !== 'priceOf' && c.method !== 'planOfPrice')).toEqual([]);
  });

  it('a failed invoice starts a grace period of BILLING_GRACE_DAYS from the injected clock; a retry of it does not move it', async () => {
    const u = await newUser(t);
    const s = await bought(u);
    const start = seconds(now);
    expect(await billing.takeEvent(event('invoice.paid', invoice(s, { start, end: start + 30 * DAY })), null)).toEqual({ applied: true });
    expect(await subRow(s.subscription)).toMatchObject({ status: 'active', grace_period_ends_at: null });

    now = new Date(now.getTime() + 31 * DAY * 1000);
    const failedAt = now.getTime();
    const next = { start: start + 30 * DAY, end: start + 60 * DAY };
    expect(await billing.takeEvent(event('invoice.payment_failed', invoice(s, next)), null)).toEqual({ applied: true });
    const row = await subRow(s.subscription);
    expect(row.status).toBe('grace_period');
    expect(new Date(row.grace_period_ends_at).getTime()).toBe(failedAt + GRACE_DAYS * DAY * 1000);

    now = new Date(now.getTime() + DAY * 1000);
    expect(await billing.takeEvent(event('invoice.payment_failed', invoice(s, next)), null)).toEqual({ applied: false });
    expect(new Date((await subRow(s.subscription)).grace_period_ends_at).getTime()).toBe(failedAt + GRACE_DAYS * DAY * 1000);

    // The invoice paid at last ends the grace period; an older invoice after it is stale.
    expect(await billing.takeEvent(event('invoice.paid', invoice(s, next)), null)).toEqual({ applied: true });
    expect(await subRow(s.subscription)).toMatchObject({ status: 'active', grace_period_ends_at: null });
    expect(await billing.takeEvent(event('invoice.paid', invoice(s, { start, end: start + 30 * DAY })), null)).toEqual({ applied: false });
  });

  it('an update names its plan through the gateway (the slot moves with it) and a past-due status starts the grace period by the clock', async () => {
    const u = await newUser(t);
    const s = await bought(u, 'plus');
    const before = gateway.called('planOfPrice').length;
    const periodEnd = seconds(now) + 30 * DAY;
    expect(await billing.takeEvent(event('customer.subscription.updated', subscription(s, { status: 'past_due', price: STRIPE_PRICES.premium, periodEnd })), 'req-1')).toEqual({ applied: true });
    expect(gateway.called('planOfPrice').slice(before)).toEqual([{ method: 'planOfPrice', args: [STRIPE_PRICES.premium] }]);
    const row = await subRow(s.subscription);
    expect(row).toMatchObject({ plan_slug: 'premium', status: 'grace_period' });
    expect(new Date(row.grace_period_ends_at).getTime()).toBe(now.getTime() + GRACE_DAYS * DAY * 1000);
    expect(await slots(u)).toEqual([
      { plan_slug: 'plus', purchased: 0, used: 0 },
      { plan_slug: 'premium', purchased: 1, used: 0 },
    ]);
    const audit = await t.db.query<any>(`SELECT request_id, data FROM audit_events WHERE event = 'billing_plan_changed' AND user_id = $1`, [u.user.id]);
    expect(audit).toEqual([{ request_id: 'req-1', data: { subscription: s.subscription, from: 'plus', to: 'premium' } }]);
    // A price the configuration does not sell changes no plan.
    expect(await billing.takeEvent(event('customer.subscription.updated', subscription(s, { status: 'active', price: 'price_unknown', periodEnd })), null)).toEqual({ applied: true });
    expect(await subRow(s.subscription)).toMatchObject({ plan_slug: 'premium', status: 'active', grace_period_ends_at: null });
  });

  it('a deletion releases the unused slot only once the paid period is over by the clock (then housekeeping does)', async () => {
    const u = await newUser(t);
    const s = await bought(u);
    const start = seconds(now);
    await billing.takeEvent(event('invoice.paid', invoice(s, { start, end: start + 30 * DAY })), null);
    expect(await billing.takeEvent(event('customer.subscription.deleted', subscription(s, { status: 'canceled', price: STRIPE_PRICES.premium, periodEnd: start + 30 * DAY })), null)).toEqual({
      applied: true,
    });
    expect(await subRow(s.subscription)).toMatchObject({ status: 'canceled', released_at: null });
    expect(await slots(u)).toEqual([{ plan_slug: 'premium', purchased: 1, used: 0 }]);
    // Nothing revives it.
    expect(await billing.takeEvent(event('invoice.paid', invoice(s, { start: start + 30 * DAY, end: start + 60 * DAY })), null)).toEqual({ applied: false });

    // The database's clock finds it due (its period ended in the database's past); the injected clock says not yet.
    await t.db.query(`UPDATE stripe_subscriptions SET period_end = now() - interval '1 day' WHERE id = $1`, [s.subscription]);
    const periodEnd = Date.parse((await subRow(s.subscription)).period_end);
    now = new Date(periodEnd - 1000);
    await billing.settle();
    expect((await subRow(s.subscription)).released_at).toBeNull();
    now = new Date(periodEnd + 1000);
    expect((await billing.settle()).released).toBeGreaterThanOrEqual(1);
    expect((await subRow(s.subscription)).released_at).not.toBeNull();
    expect(await slots(u)).toEqual([{ plan_slug: 'premium', purchased: 0, used: 0 }]);
  });

  it('deleting the account queues the cancellation, and the cancel job goes through the gateway', async () => {
    const u = await newUser(t);
    const s = await bought(u);
    await t.db.transaction((tx) => billing.forgetUser(tx, u.user.id));
    const jobs = await t.db.query<any>(`SELECT data FROM ${t.queue.schema}.job WHERE name = 'billing.cancel-subscription' AND data->>'subscriptionId' = $1`, [s.subscription]);
    expect(jobs.map((j) => j.data)).toEqual([{ subscriptionId: s.subscription, reason: 'account_purged' }]);
    expect(await billing.cancelAtStripe(s.subscription)).toBe('canceled');
    expect(gateway.called('cancelSubscription').at(-1)).toEqual({ method: 'cancelSubscription', args: [s.subscription] });
  });
});
