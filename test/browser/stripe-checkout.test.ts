/**
 * The whole purchase in a real browser: an integrator's POST /books/ answers
 * 402; its owner opens details.checkout_url, signs in and comes back, pays
 * at the (test) Stripe Checkout page, whose events reach the webhook signed
 * as Stripe signs them; the success page says the slot is ready, and the
 * retried POST /books/ answers 201. Also the development test slot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeServer, stripeEnv, type StripeTestServer } from '../helpers/stripe-server.js';
import { api, HAS_CHROMIUM, newApiUser, startBrowserEnv, watchProblems, type BrowserEnv } from './browser-env.js';

describe.skipIf(!HAS_CHROMIUM)('buying a book slot in a real browser', () => {
  let env: BrowserEnv;
  let stripe: StripeTestServer;
  const webhookAnswers: number[] = [];

  beforeAll(async () => {
    stripe = await startStripeServer();
    env = await startBrowserEnv(stripeEnv(stripe.url));
    // The test server's checkout sends its events to the webhook over HTTP, as Stripe does.
    stripe.deliver = async (event) => {
      const { stripeSignature } = await import('../helpers/stripe-server.js');
      const res = await fetch(`${env.base}/webhooks/stripe/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': stripeSignature(event.payload) },
        body: event.payload,
      });
      webhookAnswers.push(res.status);
    };
  });
  afterAll(async () => {
    await env?.close();
    await stripe?.close();
  });

  it('402 → checkout link → sign in and back → Stripe Checkout → webhook → the retried POST /books/ answers 201', async () => {
    const owner = await newApiUser(env);
    const refused = await api(env, owner.token, 'POST', '/books/', { title: 'Grandma at ninety', plan: 'premium' });
    expect(refused.status).toBe(402);
    const checkoutUrl: string = refused.body.details.checkout_url;
    expect(checkoutUrl).toBe(`${env.base}/billing/checkout/?plan=premium`);

    const context = await env.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(checkoutUrl);
    // Signed out: the sign-in page, which comes back to the checkout.
    expect(new URL(page.url()).pathname).toBe('/accounts/login/');
    await page.fill('#email', owner.email);
    await page.fill('#password', 'a long enough password');
    await Promise.all([page.waitForURL(checkoutUrl), page.click('form[action="/accounts/login/"] button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('The Premium plan');
    expect(await page.textContent('#plan-price')).toContain('$99.00');
    expect(await page.locator('#plan-features li').allTextContents()).toContain('Video memories');

    await Promise.all([page.waitForURL(new RegExp(`^${stripe.url}/c/pay/cs_test_`)), page.click('#checkout-form button[type=submit]')]);
    await Promise.all([page.waitForURL(new RegExp(`^${env.base}/billing/checkout/success/\\?session_id=cs_test_`)), page.click('#pay')]);
    expect(webhookAnswers).toEqual([200, 200]);
    expect(await page.textContent('#checkout-done h1')).toBe('Your Premium slot is ready');
    await page.screenshot({ path: '/tmp/checkout-success.png', fullPage: true });

    const created = await api(env, owner.token, 'POST', '/books/', { title: 'Grandma at ninety', plan: 'premium' });
    expect(created.status).toBe(201);
    expect(created.body.plan).toBe('premium');

    // The portal link of the tokens page opens Stripe's customer portal for this buyer.
    await page.goto(`${env.base}/settings/tokens/`);
    await Promise.all([page.waitForURL(new RegExp(`^${stripe.url}/p/session/cus_test_`)), page.click('#billing-portal')]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe.skipIf(!HAS_CHROMIUM)('the checkout without Stripe, in development', () => {
  let env: BrowserEnv;
  beforeAll(async () => {
    env = await startBrowserEnv({ NODE_ENV: 'development' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('the 402 link says who grants slots and its test slot makes the retried POST /books/ succeed', async () => {
    const owner = await newApiUser(env);
    const refused = await api(env, owner.token, 'POST', '/books/', { title: 'Class of 2026', plan: 'plus' });
    expect(refused.status).toBe(402);
    const context = await env.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(refused.body.details.checkout_url);
    await page.fill('#email', owner.email);
    await page.fill('#password', 'a long enough password');
    await Promise.all([page.waitForURL(refused.body.details.checkout_url), page.click('form[action="/accounts/login/"] button[type=submit]')]);
    expect(await page.textContent('#operator-grants')).toContain('the people who run this service add them by hand');
    await Promise.all([page.waitForURL(/granted=test/), page.click('#test-slot-form button[type=submit]')]);
    expect(await page.textContent('#slots-held')).toContain('You hold 1 unused Plus book slot');
    const created = await api(env, owner.token, 'POST', '/books/', { title: 'Class of 2026', plan: 'plus' });
    expect(created.status).toBe(201);
    expect(problems).toEqual([]);
    await context.close();
  });
});
