import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import { ListQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../services/index.js';
import { EndpointList } from './schemas.js';

export function listEndpoints(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/webhook_endpoints/',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhook_endpoints'],
        summary: 'List your webhook endpoints',
        description: 'Newest first; with updated_since, oldest change first. Secrets are never shown here.',
        querystring: ListQuery,
        response: { 200: EndpointList },
      },
      config: { lastModified: true },
    },
    async (request, reply) => listResponse(request, reply, (query) => services.webhookEndpoints.listEndpoints(actorOf(request), query)),
  );
}
