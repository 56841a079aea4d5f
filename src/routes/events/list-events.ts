import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { jsonListResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { EventList, ListEventsQuery } from './schemas.js';

export function listEvents(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/events/',
    {
      schema: {
        operationId: 'listEvents',
        tags: ['events'],
        summary: 'List your events',
        description:
          'Events of the last 30 days in books where you were owner or admin when each happened, newest first; filters type and book_slug. ' +
          'With updated_since, those created since then, oldest first.',
        querystring: ListEventsQuery,
        response: { 200: EventList },
      },
      config: { lastModified: true },
    },
    async (request, reply) =>
      jsonListResponse(request, reply, (query) => services.events.listEvents(actorOf(request), { ...query, type: request.query.type, bookSlug: request.query.book_slug })),
  );
}
