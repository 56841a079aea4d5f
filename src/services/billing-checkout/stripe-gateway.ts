import type { Config } from '../../config/config.js';
import { AppError, errors } from '../../errors.js';
import { inSpan, SpanKind } from '../../lib/tracing.js';
import type Stripe from 'stripe';

type StripeConfig = NonNullable<Config['billing']['stripe']>;

/** What the billing service needs of a Checkout Session, whichever way it was read. */
export interface CheckoutSessionView {
  id: string;
  url: string | null;
  status: string | null;
  payment_status: string;
  mode: string;
  client_reference_id: string | null;
  metadata: Record<string, string> | null;
  customer: string | null;
  subscription: string | null;
}

/** A Stripe event whose signature held: its id, type, creation time and object. */
export interface VerifiedEvent {
  id: string;
  type: string;
  created: number;
  object: Record<string, unknown>;
}

const idOf = (v: unknown): string | null => (typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : null);

function viewOf(s: Stripe.Checkout.Session): CheckoutSessionView {
  return {
    id: s.id,
    url: s.url,
    status: s.status,
    payment_status: s.payment_status,
    mode: s.mode,
    client_reference_id: s.client_reference_id,
    metadata: s.metadata,
    customer: idOf(s.customer),
    subscription: idOf(s.subscription),
  };
}

/**
 * The few Stripe calls memorybook makes, through the official client. The
 * client is loaded on first use (it is large, and most processes never call
 * Stripe); its host, port and protocol come from STRIPE_API_BASE.
 */
export function createStripeGateway(config: StripeConfig) {
  let client: Promise<Stripe> | undefined;
  const stripe = () =>
    (client ??= import('stripe').then(
      ({ default: StripeClient }) =>
        new StripeClient(config.secretKey, {
          host: config.api.host,
          port: config.api.port,
          protocol: config.api.protocol,
          maxNetworkRetries: 2,
          timeout: 20_000,
          telemetry: false,
        }),
    ));

  /**
   * A Stripe call; Stripe unreachable or failing is 503 (the buyer tries again),
   * a missing object 404. The client already retried what is safe to retry.
   */
  async function call<T>(fn: (client: Stripe) => Promise<T>): Promise<T> {
    const client = await stripe();
    try {
      // A client span per call (tracing on), the Stripe client's own retries inside it.
      return await inSpan(
        'stripe',
        { kind: SpanKind.CLIENT, attributes: { 'server.address': config.api.host, 'server.port': config.api.port, 'memorybook.provider': 'stripe' } },
        () => fn(client),
      );
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) throw errors.notFound('Stripe object', 'Stripe does not know this object.');
      throw errors.serviceUnavailable('Stripe could not be reached or refused the request; try again in a moment.', null, { cause: err });
    }
  }

  return {
    priceOf(planSlug: string): string | undefined {
      return Object.hasOwn(config.prices, planSlug) ? config.prices[planSlug] : undefined;
    },

    /** The plan a Stripe price sells (a plan change in the portal names the new price). */
    planOfPrice(price: string): string | undefined {
      return Object.entries(config.prices).find(([, p]) => p === price)?.[0];
    },

    /**
     * Cancels a subscription at once; safe to repeat: one Stripe no longer
     * bills (canceled, expired, or unknown there) is done already, and the
     * cancel call is made only while it still bills.
     */
    async cancelSubscription(id: string): Promise<'canceled' | 'already'> {
      const ended = async () => {
        try {
          const s = await call((client) => client.subscriptions.retrieve(id));
          return s.status === 'canceled' || s.status === 'incomplete_expired';
        } catch (err) {
          if (err instanceof AppError && err.code === 'not_found') return true;
          throw err;
        }
      };
      if (await ended()) return 'already';
      try {
        await call((client) => client.subscriptions.cancel(id, {}, { idempotencyKey: `memorybook-cancel-${id}` }));
        return 'canceled';
      } catch (err) {
        // Canceled meanwhile (by the owner in the portal, or an earlier run whose answer was lost).
        if (await ended()) return 'already';
        throw err;
      }
    },

    /** A subscription checkout for one book of the plan; metadata carries the buyer and the plan to every event of it. */
    async createCheckoutSession(o: {
      price: string;
      userId: string;
      planSlug: string;
      customerId: string | null;
      email: string | null;
      successUrl: string;
      cancelUrl: string;
      idempotencyKey: string;
    }): Promise<CheckoutSessionView> {
      const metadata = { user_id: o.userId, plan: o.planSlug };
      const session = await call((client) => client.checkout.sessions.create(
        {
          mode: 'subscription',
          line_items: [{ price: o.price, quantity: 1 }],
          client_reference_id: o.userId,
          metadata,
          subscription_data: { metadata },
          ...(o.customerId ? { customer: o.customerId } : o.email ? { customer_email: o.email } : {}),
          success_url: o.successUrl,
          cancel_url: o.cancelUrl,
        },
        { idempotencyKey: o.idempotencyKey },
      ));
      return viewOf(session);
    },

    async retrieveCheckoutSession(id: string): Promise<CheckoutSessionView> {
      return viewOf(await call((client) => client.checkout.sessions.retrieve(id)));
    },

    /** A customer portal session: where an owner changes their card or cancels. */
    async createPortalSession(customerId: string, returnUrl: string): Promise<string> {
      const session = await call((client) => client.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }));
      return session.url;
    },

    /**
     * Verifies Stripe-Signature over the raw body (HMAC-SHA256 under the
     * webhook secret, compared in constant time, timestamp within 5 minutes)
     * and parses the event; throws on any mismatch.
     */
    async verifyEvent(rawBody: Buffer, signature: string): Promise<VerifiedEvent> {
      const event = (await stripe()).webhooks.constructEvent(rawBody, signature, config.webhookSecret, 300);
      return { id: event.id, type: event.type, created: event.created, object: event.data.object as unknown as Record<string, unknown> };
    },
  };
}
export type StripeGateway = ReturnType<typeof createStripeGateway>;
