import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { errors } from '../../errors.js';
import type { RouteContext } from '../../services/index.js';

/** Where an inbound mail provider posts each raw message (under PUBLIC_URL). */
export const EMAIL_WEBHOOK = '/webhooks/email/';

const SIGNATURE_RE = /^sha256=[0-9a-fA-F]{64}$/;

/**
 * `POST /webhooks/email/`: one raw RFC 5322 message as the body (any
 * content type; message/rfc822 is usual), signed with
 * `X-Memorybook-Signature: sha256=<hex HMAC-SHA256 of the body under
 * INBOUND_EMAIL_SECRET>`. Registered only when that secret is set. A missing
 * or malformed signature is refused before the body is read; one that does
 * not match, once the body is (nothing is kept): 403. An address outside
 * INBOUND_EMAIL_ALLOWED_CIDRS (when set): 403 before the body is read. A
 * client with refused signatures lately is slowed down, never refused; too
 * many unverified bodies being read at once: 503 with Retry-After. 202 with what
 * came of it (`accepted`, `duplicate`: that Message-ID was received before,
 * `dropped`: DMARC fail); 404 when no book it is addressed to takes mail.
 */
export function registerEmailWebhook(app: FastifyInstance, { config, services }: RouteContext) {
  if (!config.mailInbound.webhookSecret) return;
  void app.register(async (scope) => {
    // The body is the message itself, streamed to the spool: no parser reads it into memory.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post(
      EMAIL_WEBHOOK,
      {
        schema: { hide: true },
        config: { internal: true, auth: 'none' },
        onRequest: async (request: FastifyRequest) => {
          const given = request.headers['x-memorybook-signature'];
          if (typeof given !== 'string' || !SIGNATURE_RE.test(given.trim())) {
            throw errors.forbidden('The request is refused: no valid X-Memorybook-Signature.');
          }
        },
      },
      async (request, reply) => {
        const body = (request.body as Readable | undefined) ?? request.raw;
        const length = Number(request.headers['content-length']);
        const status = await services.inboundEmail.receiveWebhook(body, request.headers['x-memorybook-signature'] as string, {
          ip: request.ip,
          declaredBytes: Number.isSafeInteger(length) && length >= 0 ? length : null,
        });
        return reply.code(202).send({ status });
      },
    );
  });
}
