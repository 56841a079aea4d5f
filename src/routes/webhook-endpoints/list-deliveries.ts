import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import { ListQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../services/index.js';
import { DeliveryList, EndpointParams, endpointIdMustBeWellFormed } from './schemas.js';

export function listDeliveries(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/webhook_endpoints/:id/deliveries/',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhook_endpoints'],
        summary: "List an endpoint's delivery attempts",
        description: 'Every attempt to send an event to this endpoint, newest first: the event and its type, the delivery it belongs to (to send again), status code, duration, error, the first kilobyte of the answer, and when the next retry is due.',
        params: EndpointParams,
        querystring: ListQuery,
        response: { 200: DeliveryList },
      },
      config: { lastModified: true },
      onRequest: endpointIdMustBeWellFormed,
    },
    async (request, reply) => listResponse(request, reply, (query) => services.webhookEndpoints.listDeliveries(actorOf(request), request.params.id, query)),
  );
}
