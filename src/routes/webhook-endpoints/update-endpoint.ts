import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { EndpointParams, endpointIdMustBeWellFormed, UpdateEndpointBody } from './schemas.js';

export function updateEndpoint(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/webhook_endpoints/:id/',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Update a webhook endpoint',
        description:
          'Partial update; a new url is checked as on create (400 validation_failed with details.reason). status enabled turns a disabled endpoint back on. ' +
          'Optional If-Match; 412 with details.current_etag when stale.',
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: { 200: Type.Ref('WebhookEndpoint') },
      },
      config: { idempotency: 'deferred', errors: [412], etag: [200] },
      onRequest: endpointIdMustBeWellFormed,
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const run = await request.runPhased!(
        () => services.webhookEndpoints.checkUrl(request.body.url),
        (tx) => services.webhookEndpoints.updateEndpoint(tx, actor, request.params.id, request.body, request.headers['if-match']),
      );
      if (run.replayed) return reply;
      return setEtag(reply, run.value.etag).send(run.value);
    },
  );
}
