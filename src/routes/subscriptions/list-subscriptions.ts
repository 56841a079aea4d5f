import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { ListSubscriptionsQuery, SubscriptionList } from './schemas.js';

export function listSubscriptions(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/notifications/subscriptions/',
    {
      schema: {
        operationId: 'listBookSubscriptions',
        tags: ['notifications'],
        summary: "List a book's notification subscriptions",
        description:
          'Owner or admin: every subscription to the book, active and inactive. Newest first; with updated_since, oldest change first ' +
          '(a cancellation counts). Pin the next updated_since to the Last-Modified header. Subscriptions are created outside the API ' +
          '(creation needs an out-of-band verification).',
        params: SlugParams,
        querystring: ListSubscriptionsQuery,
        response: { 200: SubscriptionList },
      },
      config: { lastModified: true, book: 'list_subscriptions', errors: [403] },
    },
    async (request, reply) => {
      return listResponse(request, reply, (query) => services.subscriptions.listSubscriptions(actorOf(request), request.params.slug, query));
    },
  );
}
