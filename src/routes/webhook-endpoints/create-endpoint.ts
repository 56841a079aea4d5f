import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/route-config.js';
import { setEtag, setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { CreateEndpointBody, WebhookEndpointWithSecret } from './schemas.js';

export function createEndpoint(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoints/',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Add a webhook endpoint',
        description:
          'Answers 201 with the signing secret, shown this once. At most 16 endpoints a user (400 validation_failed, details.reason too_many_endpoints). ' +
          'A URL that is not https or resolves to a non-public address: 400 validation_failed with details.reason ' +
          '(invalid_url, scheme_not_allowed, credentials_not_allowed, unresolvable, private_address).',
        body: CreateEndpointBody,
        response: { 201: WebhookEndpointWithSecret },
      },
      // Deferred: the URL's name is resolved before the key is claimed, so no transaction waits on DNS.
      config: { idempotency: 'deferred', location: [201], etag: [201] },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const run = await request.runPhased!(
        () => services.webhookEndpoints.checkUrl(request.body.url),
        (tx) => services.webhookEndpoints.createEndpoint(tx, actor, request.body),
      );
      if (run.replayed) return reply;
      // The secret is sealed in its row; the stored answer a replay gets carries none.
      if (request.idempotency) request.idempotency.storedBody = JSON.stringify({ ...run.value, secret: null });
      return setEtag(setLocation(reply.code(201), `/api/v1/webhook_endpoints/${run.value.id}/`), run.value.etag).send(run.value);
    },
  );
}
