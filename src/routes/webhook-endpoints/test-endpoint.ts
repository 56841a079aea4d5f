import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { EmptyBody } from '../../http/schemas/common.js';
import type { RouteContext } from '../../services/index.js';
import { EndpointParams, endpointIdMustBeWellFormed } from './schemas.js';

export function testEndpoint(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoints/:id/test/',
    {
      schema: {
        operationId: 'testWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Send a ping event',
        description: 'Queues a ping event ({endpoint_id}) to this endpoint alone, sent at once; answers 202 with it. Its attempts show in the delivery log.',
        params: EndpointParams,
        body: EmptyBody,
        response: { 202: Type.Ref('Event', { description: 'Accepted: the ping event' }) },
      },
      onRequest: endpointIdMustBeWellFormed,
    },
    async (request, reply) => reply.code(202).send(await services.webhookEndpoints.sendTestEvent(unitOf(request), actorOf(request), request.params.id)),
  );
}
