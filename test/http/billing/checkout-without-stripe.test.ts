/**
 * The checkout link of a 402 on a service that does not sell through Stripe:
 * never a dead end. It says the operator grants slots and how to ask; outside
 * production it also grants the signed-in user a test slot. The operator's
 * `slots grant` is audited, and without Stripe there is no webhook to post to.
 */
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { postStripe, signedInClient } from './billing-helpers.js';
import { stripeEvent } from '../../helpers/stripe-server.js';

describe('without Stripe, in development', () => {
  it('every catalog plan has a page; a paid one says the operator grants it and offers a test slot that works', async () => {
    const t = await buildTestApp({ env: { NODE_ENV: 'development' } });
    const u = await newUser(t);
    const refused = await t.post('/api/v1/books/', { title: 'Needs a slot', plan: 'plus' }, { token: u.token });
    expect(refused.status).toBe(402);
    const link = new URL(refused.body.details.checkout_url);
    const client = await signedInClient(t, u);

    for (const plan of (await t.get('/api/v1/plans/')).body.items) {
      const page = await client.get(`/billing/checkout/?plan=${plan.slug}`);
      expect(page.status, plan.slug).toBe(200);
      expect(page.text).toContain(`The ${plan.name} plan`);
    }
    const page = await client.get(link.pathname + link.search);
    expect(page.status).toBe(200);
    // Plain words: who to ask and what to tell them, no command line.
    expect(page.text).toContain('are not sold online here: the people who run this service add them by hand');
    expect(page.text).toContain(`<bdi>${u.email}</bdi>`);
    expect(page.text).not.toContain('memorybook slots grant');
    expect(page.text).not.toContain('id="checkout-form"');
    expect(page.text).toContain('Grant me a test slot');

    // The form needs its CSRF token, like every form.
    expect((await client.submit('/billing/checkout/test-slot/', { plan: 'plus' }, { csrf: null })).status).toBe(403);
    const granted = await client.submit('/billing/checkout/test-slot/', { plan: 'plus' });
    expect(granted.status).toBe(303);
    expect(granted.headers.location).toBe('/billing/checkout/?plan=plus&granted=test');
    const after = await client.get(granted.headers.location as string);
    expect(after.text).toContain('You hold 1 unused Plus book slot');

    const retried = await t.post('/api/v1/books/', { title: 'Needs a slot', plan: 'plus' }, { token: u.token });
    expect(retried.status).toBe(201);
    expect(retried.body.plan).toBe('plus');
    expect(await t.services.audit.list({ userId: u.user.id, event: 'billing_test_slot_granted' })).toHaveLength(1);

    // Starting a Stripe checkout is refused plainly, and the portal page explains who handles billing.
    const start = await client.submit('/billing/checkout/', { plan: 'plus' });
    expect(start.status).toBe(409);
    expect(start.text).toContain('not sold online here');
    const portal = await client.get('/billing/portal/');
    expect(portal.status).toBe(200);
    expect(portal.text).toContain('handled by its operator');
    // No Stripe, no webhook route.
    expect((await postStripe(t, stripeEvent('invoice.paid', {}))).statusCode).toBe(404);
    // The default plan needs no slot, test or bought.
    expect((await client.submit('/billing/checkout/test-slot/', { plan: 'free' })).status).toBe(400);
    expect((await client.submit('/billing/checkout/test-slot/', { plan: 'nope' })).status).toBe(404);
  });

  it("the operator's slots grant is audited", async () => {
    const t = await buildTestApp();
    const u = await newUser(t);
    expect(await t.services.billingCheckout.grantSlotsAsOperator(u.user.id, 'premium', 2)).toEqual({ plan: 'premium', purchased: 2, used: 0, available: 2 });
    const [entry] = await t.services.audit.list({ userId: u.user.id, event: 'operator_slots_granted' });
    expect(entry.data).toEqual({ plan: 'premium', count: 2 });
  });
});

describe('without Stripe, in production', () => {
  it('offers no test slot and refuses one asked for', async () => {
    const t = await buildTestApp({ env: { NODE_ENV: 'production', PUBLIC_URL: 'https://books.example.test' } });
    const u = await newUser(t);
    const client = await signedInClient(t, u);
    const page = await client.get('/billing/checkout/?plan=premium');
    expect(page.status).toBe(200);
    expect(page.text).toContain('the people who run this service add them by hand');
    expect(page.text).not.toContain('test slot');
    const asked = await client.submit('/billing/checkout/test-slot/', { plan: 'premium' });
    expect(asked.status).toBe(403);
    const quotas = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(quotas.body.book_slots.find((s: any) => s.plan === 'premium')).toMatchObject({ purchased: 0 });
  });
});
