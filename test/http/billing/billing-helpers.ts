import type { TestApp } from '../../helpers/build-test-app.js';
import type { TestUser } from '../../helpers/factories.js';
import { stripeSignature, type StripeEvent } from '../../helpers/stripe-server.js';
import { SESSION_COOKIE } from '../../../src/services/sessions/session-service.js';
import { webClient } from '../web/web-client.js';

export const STRIPE_PATH = '/webhooks/stripe/';

/** Posts an event to the webhook as Stripe does: the exact bytes, signed now unless told otherwise (null: no header). */
export function postStripe(t: TestApp, event: StripeEvent | { payload: string }, o: { signature?: string | null; timestamp?: number; secret?: string } = {}) {
  const signature = o.signature === undefined ? stripeSignature(event.payload, { timestamp: o.timestamp, secret: o.secret }) : o.signature;
  return t.app.inject({
    method: 'POST',
    url: STRIPE_PATH,
    headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', ...(signature !== null ? { 'stripe-signature': signature } : {}) },
    payload: event.payload,
  });
}

/** A browser signed in as the user (a session as the sign-in page starts one), with its CSRF cookie from a first page. */
export async function signedInClient(t: TestApp, u: TestUser) {
  const client = webClient(t);
  const { cookieValue } = await t.services.sessions.startSession(u.user.id);
  client.jar.set(SESSION_COOKIE, cookieValue);
  await client.get('/settings/tokens/');
  return client;
}

/** What billing keeps, to compare before and after something that must change nothing. */
export async function billingState(t: TestApp) {
  const q = (sql: string) => t.db.query<any>(sql);
  return {
    events: await q(`SELECT id, type FROM stripe_events ORDER BY id`),
    slots: await q(`SELECT user_id, plan_slug, purchased, used FROM book_slots ORDER BY user_id, plan_slug`),
    subscriptions: await q(`SELECT id, user_id, plan_slug, book_id, status, period_start, period_end, grace_period_ends_at, canceled_at, released_at FROM stripe_subscriptions ORDER BY id`),
    books: await q(`SELECT id, plan_slug, billing_status, grace_period_ends_at FROM books ORDER BY id`),
    records: await q(`SELECT count(*)::int AS n FROM billing_records`),
  };
}
