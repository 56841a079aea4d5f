import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { EventParams } from './schemas.js';

export function getEvent(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/events/:id/',
    {
      schema: {
        operationId: 'getEvent',
        tags: ['events'],
        summary: 'Read an event',
        description: 'One of your events of the last 30 days; any other id: 404.',
        params: EventParams,
        response: { 200: Type.Ref('Event') },
      },
    },
    async (request, reply) => reply.type('application/json; charset=utf-8').send(await services.events.getEvent(actorOf(request), request.params.id)),
  );
}
