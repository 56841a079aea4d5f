import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { CancelledSubscription, SubscriptionParams, subscriptionIdMustBeWellFormed } from './schemas.js';

export function cancelSubscription(app: FastifyInstance, { services }: RouteContext) {
  /** A contributor naming another member's subscription: 403 with the role checks, before the Idempotency-Key is claimed. */
  const mustBeOwnUnlessAdmin = async (request: FastifyRequest) => {
    const { slug, id } = request.params as { slug: string; id: string };
    await services.subscriptions.assertMayCancel(actorOf(request), slug, id);
  };
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/notifications/subscriptions/:id/',
    {
      schema: {
        operationId: 'cancelBookSubscription',
        tags: ['notifications'],
        summary: 'Cancel a notification subscription',
        description:
          'The owner, an admin, or the subscriber (a contributor may cancel only their own: another member\'s is 403 insufficient_role). ' +
          'The subscription becomes inactive and stays listed; a repeat answers already_inactive: true.',
        params: SubscriptionParams,
        response: { 200: CancelledSubscription },
      },
      config: { book: 'cancel_own_subscription' },
      onRequest: [subscriptionIdMustBeWellFormed, mustBeOwnUnlessAdmin],
    },
    async (request) => services.subscriptions.cancelSubscription(unitOf(request), actorOf(request), request.params.slug, request.params.id),
  );
}
