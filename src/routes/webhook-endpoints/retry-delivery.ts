import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { EmptyBody } from '../../http/schemas/common.js';
import type { RouteContext } from '../../services/index.js';
import { DeliveryParams, deliveryIdMustBeWellFormed } from './schemas.js';

export function retryDelivery(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoints/:id/deliveries/:delivery_id/retry/',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: ['webhook_endpoints'],
        summary: 'Send a delivery again',
        description:
          "Sends this delivery's event (delivery_id from the delivery log) to the endpoint again, now: same body and webhook-id, signed anew. " +
          'If that attempt fails the retry schedule starts again. A delivery already pending is made due now; one in flight is left to finish. ' +
          'Answers 202 with the delivery. A disabled endpoint: 409 invalid_state (enable it first). An event older than 30 days is gone: 404.',
        params: DeliveryParams,
        body: EmptyBody,
        response: { 202: Type.Ref('WebhookDelivery', { description: 'Accepted: the delivery, pending' }) },
      },
      onRequest: deliveryIdMustBeWellFormed,
    },
    async (request, reply) =>
      reply.code(202).send(await services.webhookEndpoints.retryDelivery(unitOf(request), actorOf(request), request.params.id, request.params.delivery_id)),
  );
}
