import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { EndpointParams, endpointIdMustBeWellFormed } from './schemas.js';

export function getEndpoint(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/webhook_endpoints/:id/',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Read a webhook endpoint',
        params: EndpointParams,
        response: { 200: Type.Ref('WebhookEndpoint') },
      },
      config: { etag: [200] },
      onRequest: endpointIdMustBeWellFormed,
    },
    async (request, reply) => {
      const endpoint = await services.webhookEndpoints.getEndpoint(actorOf(request), request.params.id);
      setEtag(reply, endpoint.etag);
      return endpoint;
    },
  );
}
