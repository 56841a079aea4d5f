import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const STRIPE_KEYS = { secretKey: 'sk_test_memorybook_0123456789', webhookSecret: 'whsec_memorybook_test_0123456789abcdef' };
export const STRIPE_PRICES = { plus: 'price_test_plus', premium: 'price_test_premium' };

/** The configuration that points memorybook's Stripe client at the test server. */
export function stripeEnv(apiBase: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: STRIPE_KEYS.secretKey,
    STRIPE_WEBHOOK_SECRET: STRIPE_KEYS.webhookSecret,
    STRIPE_PRICES: Object.entries(STRIPE_PRICES).map(([plan, price]) => `${plan}=${price}`).join(','),
    STRIPE_API_BASE: apiBase,
  };
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;

export interface StripeEvent {
  payload: string;
  id: string;
  type: string;
}

/** Signs as Stripe does (t=<unix seconds>,v1=HMAC-SHA256 of "t.payload"), through the stripe package's own test helper. */
export function stripeSignature(payload: string, o: { secret?: string; timestamp?: number } = {}): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret: o.secret ?? STRIPE_KEYS.webhookSecret, timestamp: o.timestamp });
}

/** An event as Stripe sends it (API version of the package), with a fresh id unless given. */
export function stripeEvent(type: string, object: Record<string, unknown>, o: { id?: string; created?: number } = {}): StripeEvent {
  const eventId = o.id ?? id('evt');
  const payload = JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: o.created ?? now(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });
  return { payload, id: eventId, type };
}

export interface SubscriptionRef {
  subscription: string;
  customer: string;
  userId: string;
  plan: string;
}

/** A subscription invoice for the period [start, end), in today's shape (its subscription under parent.subscription_details). */
export function invoiceObject(s: SubscriptionRef, period: { start: number; end: number }, status: 'paid' | 'open') {
  const metadata = { user_id: s.userId, plan: s.plan };
  return {
    id: id('in'),
    object: 'invoice',
    customer: s.customer,
    status,
    // Stripe's own period fields describe the previous period's items; the lines carry the period billed.
    period_start: period.start - 30 * DAY,
    period_end: period.start,
    parent: { type: 'subscription_details', subscription_details: { subscription: s.subscription, metadata } },
    lines: {
      object: 'list',
      data: [
        {
          id: id('il'),
          object: 'line_item',
          period,
          parent: { type: 'subscription_item_details', subscription_item_details: { subscription: s.subscription, subscription_item: id('si') } },
        },
      ],
    },
  };
}

export function subscriptionObject(s: SubscriptionRef, o: { status: string; periodEnd: number; endedAt?: number }) {
  return {
    id: s.subscription,
    object: 'subscription',
    customer: s.customer,
    status: o.status,
    metadata: { user_id: s.userId, plan: s.plan },
    ended_at: o.endedAt ?? null,
    items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', current_period_end: o.periodEnd, price: { id: STRIPE_PRICES.premium } }] },
  };
}

interface Session {
  id: string;
  object: 'checkout.session';
  url: string;
  status: 'open' | 'complete';
  payment_status: 'unpaid' | 'paid';
  mode: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  customer: string | null;
  customer_email: string | null;
  subscription: string | null;
  success_url: string;
  cancel_url: string;
  price: string;
}

export interface StripeTestServer {
  url: string;
  sessions: Map<string, Session>;
  /** The subscriptions paid checkouts made, by id: their status at Stripe ('active' until canceled). */
  subscriptions: Map<string, { id: string; object: 'subscription'; customer: string; status: string; metadata: Record<string, string> }>;
  /** Every API request received: method, path and the form fields sent. */
  requests: { method: string; path: string; form: Record<string, string>; authorization: string | undefined }[];
  /**
   * Pays an open checkout as a buyer would: the session completes with a new
   * customer and subscription, and (with `deliver`) Stripe's two events are
   * sent: checkout.session.completed and the first invoice.paid.
   */
  pay(sessionId: string): Promise<SubscriptionRef>;
  /**
   * Pays an open checkout by a delayed method (a bank debit): the session
   * completes unpaid, and (with `deliver`) checkout.session.completed is sent.
   * clearDelayed() later marks it paid and sends
   * checkout.session.async_payment_succeeded, as Stripe does when the debit clears.
   */
  payDelayed(sessionId: string): Promise<SubscriptionRef>;
  clearDelayed(sessionId: string): Promise<void>;
  /** Where pay() sends its events; set by each test environment. */
  deliver: ((event: StripeEvent) => Promise<void>) | null;
  close(): Promise<void>;
}

/**
 * A local server speaking Stripe's REST shape for the calls memorybook makes
 * (POST /v1/checkout/sessions, GET /v1/checkout/sessions/{id}, POST
 * /v1/billing_portal/sessions), and a hosted checkout page at /c/pay/{id}
 * whose Pay button completes the session, sends the events and returns the
 * buyer to the success URL, as Stripe Checkout does.
 */
export async function startStripeServer(): Promise<StripeTestServer> {
  const sessions = new Map<string, Session>();
  const subscriptions: StripeTestServer['subscriptions'] = new Map();
  const requests: StripeTestServer['requests'] = [];
  let base = '';

  const self: StripeTestServer = {
    url: '',
    sessions,
    subscriptions,
    requests,
    deliver: null,
    async pay(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no checkout session ${sessionId}`);
      s.status = 'complete';
      s.payment_status = 'paid';
      s.customer ??= id('cus');
      s.subscription = id('sub');
      subscriptions.set(s.subscription, { id: s.subscription, object: 'subscription', customer: s.customer, status: 'active', metadata: s.metadata });
      const ref = { subscription: s.subscription, customer: s.customer, userId: s.metadata.user_id, plan: s.metadata.plan };
      if (self.deliver) {
        await self.deliver(stripeEvent('checkout.session.completed', { ...s, url: null }));
        const start = now();
        await self.deliver(stripeEvent('invoice.paid', invoiceObject(ref, { start, end: start + 30 * DAY }, 'paid')));
      }
      return ref;
    },
    async payDelayed(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no checkout session ${sessionId}`);
      s.status = 'complete';
      s.payment_status = 'unpaid';
      s.customer ??= id('cus');
      s.subscription = id('sub');
      subscriptions.set(s.subscription, { id: s.subscription, object: 'subscription', customer: s.customer, status: 'incomplete', metadata: s.metadata });
      if (self.deliver) await self.deliver(stripeEvent('checkout.session.completed', { ...s, url: null }));
      return { subscription: s.subscription, customer: s.customer, userId: s.metadata.user_id, plan: s.metadata.plan };
    },
    async clearDelayed(sessionId) {
      const s = sessions.get(sessionId);
      if (!s?.subscription || !s.customer) throw new Error(`no delayed checkout ${sessionId}`);
      s.payment_status = 'paid';
      subscriptions.get(s.subscription)!.status = 'active';
      if (self.deliver) await self.deliver(stripeEvent('checkout.session.async_payment_succeeded', { ...s, url: null }));
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const form = Object.fromEntries(new URLSearchParams(body));
        const path = (req.url ?? '').split('?')[0];
        const json = (status: number, value: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
          res.end(JSON.stringify(value));
        };
        if (path.startsWith('/v1/')) {
          requests.push({ method: req.method ?? '', path, form, authorization: req.headers.authorization });
          if (req.headers.authorization !== `Bearer ${STRIPE_KEYS.secretKey}`) {
            return json(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
          }
        }
        let m: RegExpExecArray | null;
        if (req.method === 'POST' && path === '/v1/checkout/sessions') {
          const price = form['line_items[0][price]'];
          if (form.mode !== 'subscription' || !Object.values(STRIPE_PRICES).includes(price)) {
            return json(400, { error: { type: 'invalid_request_error', message: `No such price: '${price}'`, param: 'line_items[0][price]' } });
          }
          const sid = id('cs');
          const session: Session = {
            id: sid,
            object: 'checkout.session',
            url: `${base}/c/pay/${sid}`,
            status: 'open',
            payment_status: 'unpaid',
            mode: form.mode,
            client_reference_id: form.client_reference_id ?? null,
            metadata: { user_id: form['metadata[user_id]'], plan: form['metadata[plan]'] },
            customer: form.customer ?? null,
            customer_email: form.customer_email ?? null,
            subscription: null,
            success_url: form.success_url,
            cancel_url: form.cancel_url,
            price,
          };
          sessions.set(sid, session);
          return json(200, session);
        }
        if (req.method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
          const s = sessions.get(decodeURIComponent(m[1]));
          return s ? json(200, s) : json(404, { error: { type: 'invalid_request_error', message: `No such checkout.session: '${m[1]}'`, code: 'resource_missing' } });
        }
        if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)) && (req.method === 'GET' || req.method === 'DELETE')) {
          const sub = subscriptions.get(decodeURIComponent(m[1]));
          if (!sub) return json(404, { error: { type: 'invalid_request_error', message: `No such subscription: '${m[1]}'`, code: 'resource_missing' } });
          if (req.method === 'DELETE') {
            if (sub.status === 'canceled') return json(400, { error: { type: 'invalid_request_error', message: 'This subscription is already canceled.' } });
            sub.status = 'canceled';
          }
          return json(200, sub);
        }
        if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
          if (!form.customer) return json(400, { error: { type: 'invalid_request_error', message: 'Missing required param: customer.', param: 'customer' } });
          return json(200, { id: id('bps'), object: 'billing_portal.session', customer: form.customer, return_url: form.return_url, url: `${base}/p/session/${form.customer}` });
        }
        if ((m = /^\/c\/pay\/([^/]+)$/.exec(path))) {
          const s = sessions.get(m[1]);
          if (!s) return json(404, { error: 'no such session' });
          if (req.method === 'GET') {
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            return res.end(`<!doctype html><title>Test checkout</title><h1>Pay for ${s.metadata.plan}</h1><form method="post"><button id="pay" type="submit">Pay</button></form>`);
          }
          await self.pay(s.id);
          res.writeHead(303, { location: s.success_url.replace('{CHECKOUT_SESSION_ID}', s.id) });
          return res.end();
        }
        if ((m = /^\/p\/session\/([^/]+)$/.exec(path))) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          return res.end(`<!doctype html><title>Test portal</title><h1 id="portal">Billing portal for ${m[1]}</h1>`);
        }
        return json(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } });
      })().catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.url = base;
  return self;
}
