/**
 * Billing through Stripe, driven over HTTP against a local server that speaks
 * Stripe's REST shape and signs its events as Stripe does: the checkout a
 * 402 links to sells a slot, its events add the slot and move the paid
 * book's period and grace period, in any order and at most once each, and
 * nothing unsigned, forged or stale is taken.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHousekeeping } from '../../../src/housekeeping.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { freePort } from '../../helpers/spawn-server.js';
import {
  invoiceObject,
  startStripeServer,
  stripeEnv,
  stripeEvent,
  stripeSignature,
  subscriptionObject,
  STRIPE_KEYS,
  STRIPE_PRICES,
  type StripeTestServer,
  type SubscriptionRef,
} from '../../helpers/stripe-server.js';
import { billingState, postStripe, signedInClient } from './billing-helpers.js';

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

let t: TestApp;
let stripe: StripeTestServer;
beforeAll(async () => {
  stripe = await startStripeServer();
  t = await buildTestApp({ env: { ...stripeEnv(stripe.url), BILLING_GRACE_DAYS: '10' } });
  stripe.deliver = async (event) => {
    const res = await postStripe(t, event);
    if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}: ${res.body}`);
  };
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

const createPremiumBook = (u: TestUser, title = `Paid ${randomUUID().slice(0, 6)}`) => t.post('/api/v1/books/', { title, plan: 'premium' }, { token: u.token });
const billingOf = (u: TestUser, slug: string) => t.get(`/api/v1/books/${slug}/billing/`, { token: u.token });

/** Checkout from the 402's link, paid at the test server; answers the subscription and the book made with its slot. */
async function buyPremiumBook(u: TestUser) {
  const refused = await createPremiumBook(u);
  expect(refused.status).toBe(402);
  const link = new URL(refused.body.details.checkout_url);
  const client = await signedInClient(t, u);
  const page = await client.get(link.pathname + link.search);
  expect(page.status).toBe(200);
  const started = await client.submit('/billing/checkout/', { plan: 'premium' });
  expect(started.status).toBe(303);
  const sessionId = new URL(started.headers.location as string).pathname.split('/').pop()!;
  const sub = await stripe.pay(sessionId);
  const book = await createPremiumBook(u, 'Bought book');
  expect(book.status).toBe(201);
  return { sub, slug: book.body.slug as string, client, sessionId };
}

describe('the checkout a 402 links to', () => {
  it('asks a signed-out visitor to sign in and brings them back to the plan', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/billing/checkout/?plan=premium' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/accounts/login/?next=${encodeURIComponent('/billing/checkout/?plan=premium')}`);
  });

  it('shows the plan, its price and features, and starts a Stripe Checkout subscription for it', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const page = await client.get('/billing/checkout/?plan=premium');
    expect(page.status).toBe(200);
    expect(page.text).toContain('The Premium plan');
    expect(page.text).toContain('$99.00');
    expect(page.text).toContain('Video memories');
    expect(page.text).toContain('id="checkout-form"');
    // The form's redirect goes to Stripe's checkout page, so the page's CSP lets the form lead there.
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${stripe.url}`);

    const started = await client.submit('/billing/checkout/', { plan: 'premium' });
    expect(started.status).toBe(303);
    expect(started.headers.location).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    const call = stripe.requests.at(-1)!;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', authorization: `Bearer ${STRIPE_KEYS.secretKey}` });
    expect(call.form).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': STRIPE_PRICES.premium,
      'line_items[0][quantity]': '1',
      client_reference_id: u.user.id,
      'metadata[user_id]': u.user.id,
      'metadata[plan]': 'premium',
      'subscription_data[metadata][plan]': 'premium',
      customer_email: u.email,
      success_url: `${t.config.http.publicUrl}/billing/checkout/success/?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${t.config.http.publicUrl}/billing/checkout/?plan=premium`,
    });
  });

  it('refuses a form without its CSRF token and starts nothing', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const before = stripe.requests.length;
    const res = await client.submit('/billing/checkout/', { plan: 'premium' }, { csrf: null });
    expect(res.status).toBe(403);
    expect(stripe.requests.length).toBe(before);
  });

  it('an unknown plan is a page listing the plans; a plan not sold here says the operator grants it', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const unknown = await client.get('/billing/checkout/?plan=platinum');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('There is no plan called <code>platinum</code>');
    expect(unknown.text).toContain('href="/billing/checkout/?plan=premium"');
    const none = await client.get('/billing/checkout/');
    expect(none.status).toBe(404);
    const free = await client.get('/billing/checkout/?plan=free');
    expect(free.status).toBe(200);
    expect(free.text).toContain('need no slot');
  });

  it('paying completes the cycle: the slot is ready, the retried POST /books/ answers 201, the record shows the paid period', async () => {
    const u = await newUser(t);
    const { sub, slug, client, sessionId } = await buyPremiumBook(u);
    // The success page Stripe returns the buyer to (the slot was used just now, so none is left).
    const done = await client.get(`/billing/checkout/success/?session_id=${sessionId}`);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your Premium slot is ready');
    const quotas = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(quotas.body.book_slots.find((s: any) => s.plan === 'premium')).toEqual({ plan: 'premium', purchased: 1, used: 1, available: 0 });

    // The subscription is tied to the book its slot made (housekeeping has nothing left to do), and the record shows the paid period.
    await createHousekeeping({ services: t.services, log: { info() {}, warn() {} }, requestTimeoutMs: 60_000 }).run();
    const billing = await billingOf(u, slug);
    expect(billing.status).toBe(200);
    expect(billing.body).toMatchObject({ status: 'active', plan: { slug: 'premium' }, grace_period_ends_at: null, manage_url: `${t.config.http.publicUrl}/billing/portal/` });
    expect(Date.parse(billing.body.period_end) - Date.parse(billing.body.period_start)).toBe(30 * DAY * 1000);
    const [row] = await t.db.query<any>(`SELECT s.book_id, b.slug FROM stripe_subscriptions s JOIN books b ON b.id = s.book_id WHERE s.id = $1`, [sub.subscription]);
    expect(row.slug).toBe(slug);
    const audit = await t.services.audit.list({ userId: u.user.id, event: 'billing_slot_purchased' });
    expect(audit).toHaveLength(1);
  });

  it('the success page adds the slot itself when the event has not come yet, and the late event adds nothing', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const started = await client.submit('/billing/checkout/', { plan: 'plus' });
    const sessionId = new URL(started.headers.location as string).pathname.split('/').pop()!;
    const deliver = stripe.deliver;
    const held: Parameters<NonNullable<StripeTestServer['deliver']>>[0][] = [];
    stripe.deliver = async (e) => void held.push(e);
    try {
      await stripe.pay(sessionId);
    } finally {
      stripe.deliver = deliver;
    }
    const done = await client.get(`/billing/checkout/success/?session_id=${sessionId}`);
    expect(done.text).toContain('Your Plus slot is ready');
    expect(done.text).toContain('You hold 1 unused Plus book slot');
    for (const e of held) expect((await postStripe(t, e)).statusCode).toBe(200);
    const quotas = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(quotas.body.book_slots.find((s: any) => s.plan === 'plus')).toMatchObject({ purchased: 1, available: 1 });
    // Someone else's checkout is not found.
    const other = await signedInClient(t, await newUser(t));
    expect((await other.get(`/billing/checkout/success/?session_id=${sessionId}`)).status).toBe(404);
  });
});

describe('a checkout paid by a delayed method (a bank debit)', () => {
  it('the success page says the payment is on its way and grants nothing; the slot comes with async_payment_succeeded, once', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const started = await client.submit('/billing/checkout/', { plan: 'plus' });
    const sessionId = new URL(started.headers.location as string).pathname.split('/').pop()!;
    await stripe.payDelayed(sessionId);
    const plus = async () => (await t.get('/api/v1/me/quotas/', { token: u.token })).body.book_slots.find((s: any) => s.plan === 'plus');

    const pending = await client.get(`/billing/checkout/success/?session_id=${sessionId}`);
    expect(pending.status).toBe(200);
    expect(pending.text).toContain('id="checkout-processing"');
    expect(pending.text).toContain('We will add your Plus slot when the payment clears');
    expect(pending.text).not.toContain('Payment received');
    expect(pending.text).not.toContain('slot is ready');
    expect((await plus())?.purchased ?? 0).toBe(0);

    await stripe.clearDelayed(sessionId);
    expect(await plus()).toMatchObject({ purchased: 1, available: 1 });
    const done = await client.get(`/billing/checkout/success/?session_id=${sessionId}`);
    expect(done.text).toContain('Your Plus slot is ready');
    expect(done.text).toContain('You hold 1 unused Plus book slot');
    expect(await plus()).toMatchObject({ purchased: 1, available: 1 });
    expect(await t.services.audit.list({ userId: u.user.id, event: 'billing_slot_purchased' })).toHaveLength(1);
  });
});

describe('invoices drive the grace period', () => {
  it('payment failed: writes 403, approve 423, exports allowed; paid again: writes succeed and the period moves', async () => {
    const u = await newUser(t);
    const { sub, slug } = await buyPremiumBook(u);
    const pending = await newSubmission(t, slug, u);
    const first = await t.db.query<any>(`SELECT period_end FROM stripe_subscriptions WHERE id = $1`, [sub.subscription]);
    const next = { start: Math.floor(Date.parse(first[0].period_end) / 1000), end: Math.floor(Date.parse(first[0].period_end) / 1000) + 30 * DAY };

    const failed = await postStripe(t, stripeEvent('invoice.payment_failed', invoiceObject(sub, next, 'open')));
    expect(failed.statusCode).toBe(200);
    const billing = await billingOf(u, slug);
    expect(billing.body.status).toBe('grace_period');
    const graceDays = (Date.parse(billing.body.grace_period_ends_at) - Date.now()) / (DAY * 1000);
    expect(graceDays).toBeGreaterThan(9.99);
    expect(graceDays).toBeLessThanOrEqual(10);

    const write = await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'during grace' }, { token: u.token });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('book_grace_period');
    const approve = await t.post(`/api/v1/books/${slug}/submissions/${pending.id}/approve/`, undefined, { token: u.token });
    expect(approve.status).toBe(423);
    const exported = await t.post(`/api/v1/books/${slug}/exports/`, { theme: 'modern_clean', export_format: 'json' }, { token: u.token });
    expect(exported.status).toBe(202);

    const paid = await postStripe(t, stripeEvent('invoice.paid', invoiceObject(sub, next, 'paid')));
    expect(paid.statusCode).toBe(200);
    const after = await billingOf(u, slug);
    expect(after.body).toMatchObject({ status: 'active', grace_period_ends_at: null });
    expect([Date.parse(after.body.period_start), Date.parse(after.body.period_end)]).toEqual([next.start * 1000, next.end * 1000]);
    expect((await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'settled' }, { token: u.token })).status).toBe(200);
    expect((await t.post(`/api/v1/books/${slug}/submissions/${pending.id}/approve/`, undefined, { token: u.token })).status).toBe(200);
  });
});

describe('order and repetition', () => {
  async function subscribed() {
    const u = await newUser(t);
    const { sub, slug } = await buyPremiumBook(u);
    // Tie it to its book now, so every later event lands on the book.
    await t.services.billingCheckout.settle();
    const [{ period_end }] = await t.db.query<any>(`SELECT period_end FROM stripe_subscriptions WHERE id = $1`, [sub.subscription]);
    const p1End = Math.floor(Date.parse(period_end) / 1000);
    return { u, sub, slug, p1: { start: p1End - 30 * DAY, end: p1End }, p2: { start: p1End, end: p1End + 30 * DAY }, p3: { start: p1End + 30 * DAY, end: p1End + 60 * DAY } };
  }

  it('a redelivered event is taken once', async () => {
    const { sub, p2 } = await subscribed();
    const event = stripeEvent('invoice.payment_failed', invoiceObject(sub, p2, 'open'));
    expect(JSON.parse((await postStripe(t, event)).body)).toEqual({ received: true, applied: true });
    const state = await billingState(t);
    expect(JSON.parse((await postStripe(t, event)).body)).toEqual({ received: true, applied: false });
    expect(await billingState(t)).toEqual(state);
    // Stripe's retry of the same invoice is a new event: the grace period still runs from the first failure.
    expect(JSON.parse((await postStripe(t, stripeEvent('invoice.payment_failed', invoiceObject(sub, p2, 'open')))).body).applied).toBe(false);
    const after = await billingState(t);
    expect(after.subscriptions).toEqual(state.subscriptions);
    expect(after.records).toEqual(state.records);
  });

  it('a completed checkout redelivered under a new event id adds no second slot', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const started = await client.submit('/billing/checkout/', { plan: 'premium' });
    const sessionId = new URL(started.headers.location as string).pathname.split('/').pop()!;
    await stripe.pay(sessionId);
    const session = stripe.sessions.get(sessionId)!;
    expect((await postStripe(t, stripeEvent('checkout.session.completed', { ...session, url: null }))).statusCode).toBe(200);
    const quotas = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(quotas.body.book_slots.find((s: any) => s.plan === 'premium')).toMatchObject({ purchased: 1 });
  });

  it('out of order: a later period paid first makes the earlier invoices stale, failed or paid', async () => {
    const { u, sub, slug, p2, p3 } = await subscribed();
    expect((await postStripe(t, stripeEvent('invoice.paid', invoiceObject(sub, p3, 'paid')))).statusCode).toBe(200);
    const state = await billingState(t);
    for (const e of [stripeEvent('invoice.payment_failed', invoiceObject(sub, p2, 'open')), stripeEvent('invoice.paid', invoiceObject(sub, p2, 'paid')), stripeEvent('invoice.payment_failed', invoiceObject(sub, p3, 'open'))]) {
      expect(JSON.parse((await postStripe(t, e)).body).applied).toBe(false);
    }
    const after = await billingState(t);
    expect(after.subscriptions).toEqual(state.subscriptions);
    expect(after.books).toEqual(state.books);
    expect(after.records).toEqual(state.records);
    const billing = (await billingOf(u, slug)).body;
    expect(billing.status).toBe('active');
    expect(Date.parse(billing.period_end)).toBe(p3.end * 1000);
  });

  it('an invoice arriving before its checkout is kept, and the book made afterwards gets its period', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const started = await client.submit('/billing/checkout/', { plan: 'premium' });
    const sessionId = new URL(started.headers.location as string).pathname.split('/').pop()!;
    const held: { payload: string; id: string; type: string }[] = [];
    const deliver = stripe.deliver;
    stripe.deliver = async (e) => void held.push(e);
    try {
      await stripe.pay(sessionId);
    } finally {
      stripe.deliver = deliver;
    }
    // invoice.paid first, then the completed checkout.
    expect(held.map((e) => e.type)).toEqual(['checkout.session.completed', 'invoice.paid']);
    expect((await postStripe(t, held[1])).statusCode).toBe(200);
    expect((await createPremiumBook(u)).status).toBe(402);
    expect((await postStripe(t, held[0])).statusCode).toBe(200);
    const book = await createPremiumBook(u);
    expect(book.status).toBe(201);
    await t.services.billingCheckout.settle();
    const billing = await billingOf(u, book.body.slug);
    expect(billing.body.status).toBe('active');
    expect(billing.body.period_end).not.toBeNull();
  });

  it('a deleted subscription cancels the record; nothing revives it; after the paid period the book moves to the default plan with its data', async () => {
    const { u, sub, slug, p2 } = await subscribed();
    const memory = await newSubmission(t, slug, u, { text: 'kept through the plan change' });
    const deleted = stripeEvent('customer.subscription.deleted', subscriptionObject(sub, { status: 'canceled', periodEnd: p2.start, endedAt: now() }));
    expect((await postStripe(t, deleted)).statusCode).toBe(200);
    expect((await billingOf(u, slug)).body).toMatchObject({ status: 'canceled', plan: { slug: 'premium' } });
    // A late invoice for the next period does not bring it back.
    expect(JSON.parse((await postStripe(t, stripeEvent('invoice.paid', invoiceObject(sub, p2, 'paid')))).body).applied).toBe(false);
    expect((await billingOf(u, slug)).body.status).toBe('canceled');

    // The paid period ends: housekeeping moves the book to the default plan.
    await t.db.query(`UPDATE stripe_subscriptions SET period_end = now() - interval '1 minute' WHERE id = $1`, [sub.subscription]);
    expect(await t.services.billingCheckout.settle()).toMatchObject({ released: 1 });
    const billing = await billingOf(u, slug);
    expect(billing.body).toMatchObject({ status: 'active', plan: { slug: 'free' } });
    // The book's plan changed: its owner hears of it as book.updated, the Book as GET answers it now.
    const book = (await t.get(`/api/v1/books/${slug}/`, { token: u.token })).body;
    expect(book.plan).toBe('free');
    const [event] = (await t.get('/api/v1/events/', { token: u.token, query: { type: 'book.updated', book_slug: slug, limit: '1' } })).body.items;
    expect(event.data.object).toEqual(book);
    const kept = await t.get(`/api/v1/books/${slug}/submissions/${memory.id}/`, { token: u.token });
    expect(kept.status).toBe(200);
    expect(kept.body.text_content).toBe('kept through the plan change');
    expect(await t.services.billingCheckout.settle()).toEqual({ bound: 0, released: 0 });
    expect(await t.services.audit.list({ userId: u.user.id, event: 'billing_book_moved_to_default_plan' })).toHaveLength(1);
  });

  it('a subscription that ends before its book is made takes back its unused slot', async () => {
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const started = await client.submit('/billing/checkout/', { plan: 'premium' });
    const sub: SubscriptionRef = await stripe.pay(new URL(started.headers.location as string).pathname.split('/').pop()!);
    await postStripe(t, stripeEvent('customer.subscription.deleted', subscriptionObject(sub, { status: 'canceled', periodEnd: now() + 30 * DAY, endedAt: now() })));
    const premiumSlots = async () => (await t.get('/api/v1/me/quotas/', { token: u.token })).body.book_slots.find((s: any) => s.plan === 'premium');
    // Paid through the period: the slot stays usable until it ends.
    expect(await premiumSlots()).toMatchObject({ available: 1 });
    await t.db.query(`UPDATE stripe_subscriptions SET period_end = now() - interval '1 minute' WHERE id = $1`, [sub.subscription]);
    expect(await t.services.billingCheckout.settle()).toMatchObject({ released: 1 });
    expect(await premiumSlots()).toMatchObject({ available: 0 });
    expect((await createPremiumBook(u)).status).toBe(402);
    expect(await t.services.audit.list({ userId: u.user.id, event: 'billing_unused_slot_ended' })).toHaveLength(1);
  });
});

describe('signatures', () => {
  it('a forged, stale, tampered or missing Stripe-Signature is 403 and changes nothing', async () => {
    const u = await newUser(t);
    const session = { id: `cs_test_${randomUUID().replace(/-/g, '')}`, object: 'checkout.session', status: 'complete', payment_status: 'paid', mode: 'subscription', client_reference_id: u.user.id, metadata: { user_id: u.user.id, plan: 'premium' }, customer: 'cus_forged', subscription: 'sub_forged' };
    const event = stripeEvent('checkout.session.completed', session);
    const state = await billingState(t);
    const tries = [
      await postStripe(t, event, { secret: 'whsec_not_the_one' }),
      await postStripe(t, event, { timestamp: now() - 301 }),
      await postStripe(t, { payload: event.payload.replace('"premium"', '"plus"') }, { signature: stripeSignature(event.payload) }),
      await postStripe(t, event, { signature: null }),
      await postStripe(t, event, { signature: 'garbage' }),
    ];
    for (const res of tries) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden' });
    }
    expect(await billingState(t)).toEqual(state);
    // The same event, properly signed within the tolerance, is taken.
    expect((await postStripe(t, event, { timestamp: now() - 240 })).statusCode).toBe(200);
    const quotas = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(quotas.body.book_slots.find((s: any) => s.plan === 'premium')).toMatchObject({ purchased: 1 });
  });
});

describe('the customer portal', () => {
  it('is linked from the tokens page and opens Stripe for the buyer; someone who never bought is told so', async () => {
    const u = await newUser(t);
    const { client } = await buyPremiumBook(u);
    const tokens = await client.get('/settings/tokens/');
    expect(tokens.text).toContain('href="/billing/portal/"');
    const res = await client.get('/billing/portal/');
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^${stripe.url}/p/session/cus_test_`));
    expect(stripe.requests.at(-1)).toMatchObject({ path: '/v1/billing_portal/sessions', form: { return_url: `${t.config.http.publicUrl}/settings/tokens/` } });

    const other = await signedInClient(t, await newUser(t));
    const none = await other.get('/billing/portal/');
    expect(none.status).toBe(200);
    expect(none.text).toContain('not bought anything');
  });
});

describe('when Stripe cannot be reached', () => {
  it('the checkout answers a 503 page and nothing is granted; an unknown checkout on the success page is 404', async () => {
    const down = await buildTestApp({ env: stripeEnv(`http://127.0.0.1:${await freePort()}`) });
    const u = await newUser(down);
    const client = await signedInClient(down, u);
    const res = await client.submit('/billing/checkout/', { plan: 'premium' });
    expect(res.status).toBe(503);
    expect(res.text).toContain('Stripe could not be reached');
    expect(res.headers['retry-after']).toBe('5');
    const quotas = await down.get('/api/v1/me/quotas/', { token: u.token });
    expect(quotas.body.book_slots.find((s: any) => s.plan === 'premium')).toMatchObject({ purchased: 0 });

    const mine = await signedInClient(t, await newUser(t));
    expect((await mine.get('/billing/checkout/success/?session_id=cs_test_unknown')).status).toBe(404);
    expect((await mine.get('/billing/checkout/success/?session_id=not-a-session')).status).toBe(404);
  });
});

describe('events memorybook did not start', () => {
  it("another product's checkout and invoices on the same Stripe account are acknowledged and change nothing", async () => {
    const foreign: SubscriptionRef = { subscription: `sub_other_${randomUUID().slice(0, 8)}`, customer: 'cus_other', userId: 'customer-42', plan: 'gold' };
    const state = await billingState(t);
    const session = { id: `cs_other_${randomUUID().slice(0, 8)}`, object: 'checkout.session', status: 'complete', payment_status: 'paid', mode: 'subscription', client_reference_id: 'customer-42', metadata: { plan: 'gold' }, customer: 'cus_other', subscription: foreign.subscription };
    for (const e of [stripeEvent('checkout.session.completed', session), stripeEvent('invoice.paid', invoiceObject(foreign, { start: now(), end: now() + 30 * DAY }, 'paid')), stripeEvent('customer.subscription.updated', {}), stripeEvent('invoice.paid', { id: 'in_no_subscription', object: 'invoice' })]) {
      const res = await postStripe(t, e);
      expect(res.statusCode).toBe(200);
      expect(res.json().applied).toBe(e.type === 'invoice.paid' && e.payload.includes(foreign.subscription));
    }
    const after = await billingState(t);
    expect(after.slots).toEqual(state.slots);
    expect(after.books).toEqual(state.books);
    expect(after.records).toEqual(state.records);
    const [row] = await t.db.query<any>(`SELECT user_id, plan_slug, book_id FROM stripe_subscriptions WHERE id = $1`, [foreign.subscription]);
    expect(row).toEqual({ user_id: null, plan_slug: null, book_id: null });
  });
});

describe('which book a subscription pays for', () => {
  it('the book its slot made, not one an operator-granted slot made before', async () => {
    const u = await newUser(t);
    await t.services.billingCheckout.grantSlotsAsOperator(u.user.id, 'premium', 1);
    const granted = await createPremiumBook(u, 'Granted book');
    expect(granted.status).toBe(201);
    const client = await signedInClient(t, u);
    const started = await client.submit('/billing/checkout/', { plan: 'premium' });
    const sub = await stripe.pay(new URL(started.headers.location as string).pathname.split('/').pop()!);
    // An invoice before the bought book exists ties it to nothing.
    await t.services.billingCheckout.settle();
    expect((await t.db.query<any>(`SELECT book_id FROM stripe_subscriptions WHERE id = $1`, [sub.subscription]))[0].book_id).toBeNull();
    const bought = await createPremiumBook(u, 'Bought book');
    expect(bought.status).toBe(201);
    await t.services.billingCheckout.settle();
    const [row] = await t.db.query<any>(`SELECT b.slug FROM stripe_subscriptions s JOIN books b ON b.id = s.book_id WHERE s.id = $1`, [sub.subscription]);
    expect(row.slug).toBe(bought.body.slug);
    expect((await billingOf(u, granted.body.slug)).body.period_end).toBeNull();
  });
});
