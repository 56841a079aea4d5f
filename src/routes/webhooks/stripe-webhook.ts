import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';

/** Where Stripe posts: give this (under PUBLIC_URL) to the webhook endpoint in Stripe's dashboard. */
export const STRIPE_WEBHOOK = '/webhooks/stripe/';

/**
 * Stripe's events, registered only when Stripe is configured. The signature
 * covers the exact bytes sent, so the body is kept raw here (its own scope,
 * its own parser) and parsed only once Stripe-Signature verified it: a
 * forged, unsigned or stale delivery (over 5 minutes old) is 403 and changes
 * nothing. An event taken before answers 200 again, so Stripe stops
 * retrying; so does one memorybook has no use for.
 */
export async function registerStripeWebhook(app: FastifyInstance, { config, services }: RouteContext) {
  if (!config.billing.stripe) return;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(STRIPE_WEBHOOK, { schema: { hide: true }, config: { internal: true, auth: 'none' } }, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers['stripe-signature'];
      const event = await services.billingCheckout.verifyEvent(raw, typeof signature === 'string' ? signature : undefined);
      const { applied } = await services.billingCheckout.takeEvent(event, String(request.id));
      return reply.code(200).send({ received: true, applied });
    });
  });
}
