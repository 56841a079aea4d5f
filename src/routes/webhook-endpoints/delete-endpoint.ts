import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { EndpointParams, endpointIdMustBeWellFormed } from './schemas.js';

export function deleteEndpoint(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/webhook_endpoints/:id/',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Remove a webhook endpoint',
        description: 'Nothing more is sent to it; its delivery log goes with it.',
        params: EndpointParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
      onRequest: endpointIdMustBeWellFormed,
    },
    async (request, reply) => {
      await services.webhookEndpoints.deleteEndpoint(unitOf(request), actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
