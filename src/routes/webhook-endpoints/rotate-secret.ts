import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import { EmptyBody } from '../../http/schemas/common.js';
import type { RouteContext } from '../../services/index.js';
import { EndpointParams, endpointIdMustBeWellFormed, WebhookEndpointWithSecret } from './schemas.js';

export function rotateSecret(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoints/:id/rotate_secret/',
    {
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags: ['webhook_endpoints'],
        summary: 'Rotate the signing secret',
        description:
          'Answers the new secret, shown this once. For 24 hours deliveries carry two signatures in webhook-signature (new and previous), so a receiver can switch at its pace.',
        params: EndpointParams,
        body: EmptyBody,
        response: { 200: WebhookEndpointWithSecret },
      },
      config: { etag: [200] },
      onRequest: endpointIdMustBeWellFormed,
    },
    async (request, reply) => {
      const endpoint = await services.webhookEndpoints.rotateSecret(unitOf(request), actorOf(request), request.params.id);
      // The secret is sealed in its row; the stored answer a replay gets carries none.
      if (request.idempotency) request.idempotency.storedBody = JSON.stringify({ ...endpoint, secret: null });
      return setEtag(reply, endpoint.etag).send(endpoint);
    },
  );
}
