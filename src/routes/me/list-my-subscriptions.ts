import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { ListQuery } from '../../http/schemas/common.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { MySubscriptionList } from './me-list-schemas.js';

export function listMySubscriptions(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/me/subscriptions/',
    {
      schema: {
        operationId: 'listMySubscriptions',
        tags: ['identity'],
        summary: 'Your notification subscriptions across books',
        description:
          'Your own subscriptions, active and inactive, in every book you still belong to, each with its book; ' +
          'DELETE /books/{slug}/notifications/subscriptions/{id}/ cancels one. Newest first; with updated_since, oldest change first. ' +
          'Pin the next updated_since to the Last-Modified header.',
        querystring: ListQuery,
        response: { 200: MySubscriptionList },
      },
      config: { lastModified: true },
    },
    async (request, reply) => listResponse(request, reply, (query) => services.meLists.listSubscriptions(actorOf(request), query)),
  );
}
