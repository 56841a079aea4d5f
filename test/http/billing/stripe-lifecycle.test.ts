/**
 * A paid book's life with Stripe beyond the checkout, over HTTP with the job
 * worker running: the book takes its subscription's period when it is made,
 * deleting it (or its owner's account) cancels the subscription at Stripe
 * once, the account export carries the Stripe rows and the purge removes
 * them, and portal changes (cancel at period end, plan change, past due)
 * reach the billing record, stale ones changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountExportChunks } from '../../../src/services/exports/account-export-content.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { invoiceObject, startStripeServer, stripeEnv, stripeEvent, subscriptionObject, STRIPE_PRICES, type StripeTestServer, type SubscriptionRef } from '../../helpers/stripe-server.js';
import { grantFor } from '../account/account-helpers.js';
import { billingState, postStripe, signedInClient } from './billing-helpers.js';

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

let t: TestApp;
let stripe: StripeTestServer;
beforeAll(async () => {
  stripe = await startStripeServer();
  t = await buildTestApp({ worker: true, env: { ...stripeEnv(stripe.url), BILLING_GRACE_DAYS: '10' } });
  stripe.deliver = async (event) => {
    const res = await postStripe(t, event);
    if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}: ${res.body}`);
  };
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

const createBook = (u: TestUser, plan = 'premium', title = `Paid ${crypto.randomUUID().slice(0, 6)}`) => t.post('/api/v1/books/', { title, plan }, { token: u.token });
const billingOf = (u: TestUser, slug: string) => t.get(`/api/v1/books/${slug}/billing/`, { token: u.token });
/** Cancel calls Stripe received for the subscription. */
const cancelCalls = (subscription: string) => stripe.requests.filter((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subscription}`).length;
const cancelJobs = (subscription: string) =>
  t.db.query<{ state: string }>(`SELECT state FROM ${t.queue.schema}.job WHERE name = 'billing.cancel-subscription' AND data->>'subscriptionId' = $1`, [subscription]);
const subRow = async (id: string) => (await t.db.query<any>(`SELECT * FROM stripe_subscriptions WHERE id = $1`, [id]))[0];

/** A paid checkout of the plan (events delivered); answers the subscription. */
async function buySlot(u: TestUser, plan = 'premium'): Promise<SubscriptionRef> {
  const client = await signedInClient(t, u);
  const started = await client.submit('/billing/checkout/', { plan });
  expect(started.status).toBe(303);
  return stripe.pay(new URL(started.headers.location as string).pathname.split('/').pop()!);
}

async function buyBook(u: TestUser, plan = 'premium') {
  const sub = await buySlot(u, plan);
  const book = await createBook(u, plan);
  expect(book.status).toBe(201);
  return { sub, slug: book.body.slug as string, book: book.body };
}

describe('a book made with a bought slot', () => {
  it('shows its subscription status and paid period at once, with no event or housekeeping run in between', async () => {
    const u = await newUser(t);
    const { sub, slug, book } = await buyBook(u);
    const [{ period_start, period_end }] = await t.db.query<any>(`SELECT period_start, period_end FROM stripe_subscriptions WHERE id = $1`, [sub.subscription]);
    const billing = await billingOf(u, slug);
    expect(billing.body).toMatchObject({ status: 'active', plan: { slug: 'premium' }, cancel_at_period_end: false, grace_period_ends_at: null });
    expect(billing.body.period_end).not.toBeNull();
    expect(Date.parse(billing.body.period_start)).toBe(Date.parse(period_start));
    expect(Date.parse(billing.body.period_end)).toBe(Date.parse(period_end));
    expect((await subRow(sub.subscription)).book_id).toBe((await t.db.query<any>(`SELECT id FROM books WHERE slug = $1`, [slug]))[0].id);
    // The answer is the book as stored (its etag holds for a conditional update).
    expect((await t.get(`/api/v1/books/${slug}/`, { token: u.token })).body.etag).toBe(book.etag);
    expect(await t.services.billingCheckout.settle()).toMatchObject({ bound: 0 });
  });

  it('a subscription in its grace period hands the book its grace period; an operator-granted slot ties to nothing', async () => {
    const u = await newUser(t);
    const sub = await buySlot(u);
    const paid = await subRow(sub.subscription);
    const p2 = { start: Math.floor(Date.parse(paid.period_end) / 1000), end: Math.floor(Date.parse(paid.period_end) / 1000) + 30 * DAY };
    expect((await postStripe(t, stripeEvent('invoice.payment_failed', invoiceObject(sub, p2, 'open')))).statusCode).toBe(200);
    const book = await createBook(u);
    expect(book.status).toBe(201);
    expect((await billingOf(u, book.body.slug)).body.status).toBe('grace_period');

    await t.services.billingCheckout.grantSlotsAsOperator(u.user.id, 'premium', 1);
    const granted = await createBook(u);
    expect(granted.status).toBe(201);
    expect((await billingOf(u, granted.body.slug)).body).toMatchObject({ status: 'active', period_end: null });
  });

  it('two books made at once from two bought slots take one subscription each', async () => {
    const u = await newUser(t);
    const a = await buySlot(u);
    const b = await buySlot(u);
    const made = await Promise.all([createBook(u), createBook(u)]);
    expect(made.map((r) => r.status)).toEqual([201, 201]);
    const rows = await t.db.query<any>(`SELECT book_id FROM stripe_subscriptions WHERE id = ANY($1::text[])`, [[a.subscription, b.subscription]]);
    expect(new Set(rows.map((r) => r.book_id)).size).toBe(2);
    expect(rows.every((r) => r.book_id !== null)).toBe(true);
  });
});

describe('deleting a paid book', () => {
  it('cancels its subscription at Stripe once, through the queue; a late deletion event and a rerun change nothing', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyBook(u);
    expect((await t.delete(`/api/v1/books/${slug}/`, { token: u.token })).status).toBe(204);
    await eventually(async () => (await cancelJobs(sub.subscription)).map((j) => j.state).join() === 'completed');
    expect(stripe.subscriptions.get(sub.subscription)!.status).toBe('canceled');
    expect(cancelCalls(sub.subscription)).toBe(1);
    expect(await subRow(sub.subscription)).toMatchObject({ status: 'canceled' });
    expect((await subRow(sub.subscription)).released_at).not.toBeNull();

    // Stripe's own event for the cancellation, and a retried job, do nothing more.
    const deleted = stripeEvent('customer.subscription.deleted', subscriptionObject(sub, { status: 'canceled', periodEnd: now() + 30 * DAY, endedAt: now() }));
    expect((await postStripe(t, deleted)).json()).toEqual({ received: true, applied: false });
    expect(await t.services.billingCheckout.cancelAtStripe(sub.subscription)).toBe('already');
    expect(cancelCalls(sub.subscription)).toBe(1);
    expect(await cancelJobs(sub.subscription)).toHaveLength(1);

    // Once the book is purged, a new book of the same buyer is not taken for the old subscription.
    await eventually(async () => (await t.db.query(`SELECT 1 FROM books WHERE slug = $1`, [slug])).length === 0);
    await t.services.billingCheckout.grantSlotsAsOperator(u.user.id, 'premium', 1);
    expect((await createBook(u)).status).toBe(201);
    await t.services.billingCheckout.settle();
    expect((await subRow(sub.subscription)).book_id).toBeNull();
  });

  it('a subscription Stripe already canceled is success with no cancel call; one canceled by its event queues no job', async () => {
    const u = await newUser(t);
    const first = await buyBook(u);
    stripe.subscriptions.get(first.sub.subscription)!.status = 'canceled';
    expect((await t.delete(`/api/v1/books/${first.slug}/`, { token: u.token })).status).toBe(204);
    await eventually(async () => (await cancelJobs(first.sub.subscription)).map((j) => j.state).join() === 'completed');
    expect(cancelCalls(first.sub.subscription)).toBe(0);

    const second = await buyBook(u);
    const ended = stripeEvent('customer.subscription.deleted', subscriptionObject(second.sub, { status: 'canceled', periodEnd: now() + 30 * DAY, endedAt: now() }));
    expect((await postStripe(t, ended)).statusCode).toBe(200);
    expect((await t.delete(`/api/v1/books/${second.slug}/`, { token: u.token })).status).toBe(204);
    expect(await cancelJobs(second.sub.subscription)).toEqual([]);
    expect((await subRow(second.sub.subscription)).released_at).not.toBeNull();
  });

  it('a book on an operator-granted slot queues no cancellation', async () => {
    const u = await newUser(t);
    await t.services.billingCheckout.grantSlotsAsOperator(u.user.id, 'plus', 1);
    const book = await createBook(u, 'plus');
    const before = await t.db.query(`SELECT 1 FROM ${t.queue.schema}.job WHERE name = 'billing.cancel-subscription'`);
    expect((await t.delete(`/api/v1/books/${book.body.slug}/`, { token: u.token })).status).toBe(204);
    expect(await t.db.query(`SELECT 1 FROM ${t.queue.schema}.job WHERE name = 'billing.cancel-subscription'`)).toHaveLength(before.length);
  });
});

describe("the buyer's data", () => {
  it('the account export carries the Stripe customer, checkouts and subscriptions', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyBook(u);
    let text = '';
    for await (const chunk of accountExportChunks(t.db, u.user.id, new Date().toISOString(), (key) => t.services.store.get(key))) text += chunk;
    const doc = JSON.parse(text);
    expect(doc.stripe_customers).toEqual([expect.objectContaining({ customer_id: sub.customer })]);
    expect(doc.stripe_checkouts).toEqual([expect.objectContaining({ plan: 'premium', subscription_id: sub.subscription })]);
    expect(doc.stripe_subscriptions).toEqual([expect.objectContaining({ id: sub.subscription, plan: 'premium', book_slug: slug, status: 'active', cancel_at_period_end: false })]);
  });

  it("the account's purge cancels every subscription still billing at Stripe, once each, and removes or cuts loose its Stripe rows", async () => {
    const u = await newUser(t);
    const { sub: bound } = await buyBook(u);
    const unused = await buySlot(u, 'plus');
    expect((await t.post('/api/v1/me/delete/', { reauth_token: await grantFor(t, u) }, { token: u.token })).status).toBe(200);
    await eventually(async () => (await t.db.query(`SELECT 1 FROM users WHERE id = $1 AND purged_at IS NOT NULL`, [u.user.id])).length === 1);
    for (const s of [bound, unused]) {
      await eventually(async () => (await cancelJobs(s.subscription)).map((j) => j.state).join() === 'completed');
      expect(stripe.subscriptions.get(s.subscription)!.status).toBe('canceled');
    }
    // The book's own deletion (queued by the purge) finds its subscription ended already.
    await eventually(async () => (await t.db.query(`SELECT 1 FROM books WHERE owner_id = $1`, [u.user.id])).length === 0);
    expect([cancelCalls(bound.subscription), cancelCalls(unused.subscription)]).toEqual([1, 1]);
    expect(await t.db.query(`SELECT 1 FROM stripe_customers WHERE user_id = $1`, [u.user.id])).toEqual([]);
    expect(await t.db.query(`SELECT 1 FROM stripe_checkouts WHERE user_id = $1`, [u.user.id])).toEqual([]);
    for (const s of [bound, unused]) expect(await subRow(s.subscription)).toMatchObject({ user_id: null, customer_id: null, status: 'canceled' });

    // Stripe's late events name the deleted buyer: acknowledged, and nothing points back at them.
    const late = stripeEvent('customer.subscription.deleted', subscriptionObject(unused, { status: 'canceled', periodEnd: now(), endedAt: now() }));
    expect((await postStripe(t, late)).json()).toEqual({ received: true, applied: false });
    expect(await subRow(unused.subscription)).toMatchObject({ user_id: null, customer_id: null });
    expect([cancelCalls(bound.subscription), cancelCalls(unused.subscription)]).toEqual([1, 1]);
  });
});

describe('changes made in the customer portal', () => {
  const updated = (s: SubscriptionRef, o: { status?: string; cancelAtPeriodEnd?: boolean; price?: string }, created?: number) =>
    stripeEvent(
      'customer.subscription.updated',
      {
        ...subscriptionObject(s, { status: o.status ?? 'active', periodEnd: now() + 30 * DAY }),
        cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
        items: { object: 'list', data: [{ id: 'si_test', object: 'subscription_item', current_period_end: now() + 30 * DAY, price: { id: o.price ?? STRIPE_PRICES.premium } }] },
      },
      { created },
    );

  it('cancel at period end shows on the record, the book keeps its plan; an older update is stale; undoing it clears it', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyBook(u);
    const paidThrough = (await billingOf(u, slug)).body.period_end;
    expect((await postStripe(t, updated(sub, { cancelAtPeriodEnd: true }))).json().applied).toBe(true);
    expect((await billingOf(u, slug)).body).toMatchObject({ status: 'active', cancel_at_period_end: true, plan: { slug: 'premium' }, period_end: paidThrough });

    const state = await billingState(t);
    expect((await postStripe(t, updated(sub, { cancelAtPeriodEnd: false }, now() - 60))).json().applied).toBe(false);
    expect(await billingState(t)).toEqual({ ...state, events: expect.any(Array) });
    expect((await billingOf(u, slug)).body.cancel_at_period_end).toBe(true);

    expect((await postStripe(t, updated(sub, { cancelAtPeriodEnd: false }, now() + 1))).json().applied).toBe(true);
    expect((await billingOf(u, slug)).body.cancel_at_period_end).toBe(false);
  });

  it('past due starts the grace period, active again ends it', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyBook(u);
    expect((await postStripe(t, updated(sub, { status: 'past_due' }, now() + 1))).json().applied).toBe(true);
    const grace = (await billingOf(u, slug)).body;
    expect(grace.status).toBe('grace_period');
    expect((Date.parse(grace.grace_period_ends_at) - Date.now()) / (DAY * 1000)).toBeGreaterThan(9.99);
    expect((await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'in grace' }, { token: u.token })).status).toBe(403);
    expect((await postStripe(t, updated(sub, { status: 'active' }, now() + 2))).json().applied).toBe(true);
    expect((await billingOf(u, slug)).body).toMatchObject({ status: 'active', grace_period_ends_at: null });
    expect((await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'settled' }, { token: u.token })).status).toBe(200);
  });

  it('an "active" update older than a failed invoice does not end the grace period the invoice started', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyBook(u);
    const row = await subRow(sub.subscription);
    const p2 = { start: Math.floor(Date.parse(row.period_end) / 1000), end: Math.floor(Date.parse(row.period_end) / 1000) + 30 * DAY };
    expect((await postStripe(t, stripeEvent('invoice.payment_failed', invoiceObject(sub, p2, 'open'), { created: now() + 5 }))).json().applied).toBe(true);
    expect((await postStripe(t, updated(sub, { status: 'active' }, now() + 2))).statusCode).toBe(200);
    expect((await billingOf(u, slug)).body.status).toBe('grace_period');
  });

  it('a plan change moves the book and its slot to the new plan; a price memorybook does not sell changes no plan', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyBook(u);
    expect((await postStripe(t, updated(sub, { price: STRIPE_PRICES.plus }))).json().applied).toBe(true);
    expect((await billingOf(u, slug)).body.plan.slug).toBe('plus');
    const book = (await t.get(`/api/v1/books/${slug}/`, { token: u.token })).body;
    expect(book.plan).toBe('plus');
    const bookEvents = async () => (await t.get('/api/v1/events/', { token: u.token, query: { type: 'book.updated', book_slug: slug } })).body.items as any[];
    const [moved] = await bookEvents();
    expect(moved.data.object).toEqual(book);
    const slots = (await t.get('/api/v1/me/quotas/', { token: u.token })).body.book_slots;
    expect(slots.find((s: any) => s.plan === 'premium')).toMatchObject({ purchased: 0, used: 0 });
    expect(slots.find((s: any) => s.plan === 'plus')).toMatchObject({ purchased: 1, used: 1 });
    expect(await t.services.audit.list({ userId: u.user.id, event: 'billing_plan_changed' })).toHaveLength(1);

    expect((await postStripe(t, updated(sub, { price: 'price_someone_else' }, now() + 1))).statusCode).toBe(200);
    expect((await billingOf(u, slug)).body.plan.slug).toBe('plus');
    // Its later invoices keep the book on the new plan.
    const row = await subRow(sub.subscription);
    const p2 = { start: Math.floor(Date.parse(row.period_end) / 1000), end: Math.floor(Date.parse(row.period_end) / 1000) + 30 * DAY };
    await postStripe(t, stripeEvent('invoice.paid', invoiceObject(sub, p2, 'paid')));
    expect((await billingOf(u, slug)).body).toMatchObject({ plan: { slug: 'plus' }, status: 'active' });
    // A paid invoice changes nothing of the book: no book.updated, the same ETag.
    expect((await bookEvents()).map((e) => e.id)).toEqual([moved.id]);
    expect((await t.get(`/api/v1/books/${slug}/`, { token: u.token })).body.etag).toBe(book.etag);
  });
});

describe('a subscription whose checkout never paid', () => {
  it("neither ends nor moves a slot it did not buy: the buyer's other premium slot stays, and no plus slot appears", async () => {
    const u = await newUser(t);
    await t.services.billingCheckout.grantSlotsAsOperator(u.user.id, 'premium', 1);
    const unpaid: SubscriptionRef = { subscription: `sub_test_${crypto.randomUUID().slice(0, 8)}`, customer: `cus_test_${crypto.randomUUID().slice(0, 8)}`, userId: u.user.id, plan: 'premium' };
    const slots = async () => (await t.get('/api/v1/me/quotas/', { token: u.token })).body.book_slots as { plan: string; purchased: number }[];
    // A portal plan change on it, then its end: neither may touch the operator's slot.
    await postStripe(t, stripeEvent('customer.subscription.updated', { ...subscriptionObject(unpaid, { status: 'active', periodEnd: now() + 30 * DAY }), items: { object: 'list', data: [{ id: 'si_x', object: 'subscription_item', current_period_end: now() + 30 * DAY, price: { id: STRIPE_PRICES.plus } }] } }));
    await postStripe(t, stripeEvent('customer.subscription.deleted', subscriptionObject(unpaid, { status: 'canceled', periodEnd: now() - 1, endedAt: now() })));
    await t.services.billingCheckout.settle();
    const after = await slots();
    expect(after.find((x) => x.plan === 'premium')).toMatchObject({ purchased: 1 });
    expect(after.find((x) => x.plan === 'plus')?.purchased ?? 0).toBe(0);
  });
});

describe('a checkout paid by a delayed method', () => {
  it('completes unpaid (no slot), and its async_payment_succeeded adds the slot once', async () => {
    const u = await newUser(t);
    const session = {
      id: `cs_test_${crypto.randomUUID().replace(/-/g, '')}`,
      object: 'checkout.session',
      status: 'complete',
      payment_status: 'unpaid',
      mode: 'subscription',
      client_reference_id: u.user.id,
      metadata: { user_id: u.user.id, plan: 'premium' },
      customer: `cus_test_${crypto.randomUUID().slice(0, 8)}`,
      subscription: `sub_test_${crypto.randomUUID().slice(0, 8)}`,
    };
    const premium = async () => (await t.get('/api/v1/me/quotas/', { token: u.token })).body.book_slots.find((s: any) => s.plan === 'premium');
    expect((await postStripe(t, stripeEvent('checkout.session.completed', session))).json().applied).toBe(false);
    expect(await premium()).toMatchObject({ purchased: 0 });
    const succeeded = stripeEvent('checkout.session.async_payment_succeeded', { ...session, payment_status: 'paid' });
    expect((await postStripe(t, succeeded)).json().applied).toBe(true);
    expect((await postStripe(t, stripeEvent('checkout.session.async_payment_succeeded', { ...session, payment_status: 'paid' }))).json().applied).toBe(false);
    expect(await premium()).toMatchObject({ purchased: 1, available: 1 });
    expect((await createBook(u)).status).toBe(201);
  });
});
