import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { errors } from '../../errors.js';
import { isWhatsAppPayload, whatsAppContent, whatsAppMessages } from '../../services/inbound/provider-payloads.js';
import { isValidHubSignature, isValidVerifyToken } from '../../messaging/webhook-signatures.js';
import type { RouteContext } from '../../services/index.js';

/** Where Meta posts: give PUBLIC_URL + this path, and WHATSAPP_VERIFY_TOKEN, as the app's webhook callback. */
export const WHATSAPP_WEBHOOK = '/webhooks/whatsapp/';

/** Outside /api/v1 and the OpenAPI document: the signature is the credential. */
const WEBHOOK_ROUTE = { schema: { hide: true }, config: { internal: true, auth: 'none' } } as const;

const refused = (why: string) => errors.forbidden(`The request is refused: ${why}.`);

/**
 * The WhatsApp Cloud API webhook. GET is Meta's subscription handshake:
 * `hub.challenge` is echoed when `hub.verify_token` is WHATSAPP_VERIFY_TOKEN.
 * POST carries notifications, signed by X-Hub-Signature-256 (HMAC-SHA256 of
 * the raw body under WHATSAPP_APP_SECRET): checked before the body is parsed
 * or anything is written, 403 otherwise. Each message of a notification is
 * taken on its own (text, image, audio, voice, video); everything else a
 * signed notification carries (statuses, other kinds, other numbers) is
 * answered 200 and ignored, since Meta retries anything else.
 */
export function registerWhatsAppWebhook(app: FastifyInstance, { services }: RouteContext, whatsapp: NonNullable<Config['messaging']['whatsapp']>) {
  app.get(WHATSAPP_WEBHOOK, { ...WEBHOOK_ROUTE }, async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    const token = typeof q['hub.verify_token'] === 'string' ? q['hub.verify_token'] : undefined;
    const challenge = q['hub.challenge'];
    if (q['hub.mode'] !== 'subscribe' || !isValidVerifyToken(whatsapp.verifyToken, token) || typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{1,256}$/.test(challenge)) {
      throw refused('the hub.verify_token does not match');
    }
    return reply.code(200).type('text/plain; charset=utf-8').send(challenge);
  });

  // The signature covers the exact bytes, so this route reads its body raw (in a scope of its own) and parses it after the check.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: Buffer) => void) => done(null, body));
    scope.post(
      WHATSAPP_WEBHOOK,
      {
        ...WEBHOOK_ROUTE,
        onRequest: async (request: FastifyRequest) => {
          if (typeof request.headers['x-hub-signature-256'] !== 'string') throw refused('no X-Hub-Signature-256');
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!isValidHubSignature(whatsapp.appSecret, request.headers['x-hub-signature-256'] as string, raw)) throw refused('the X-Hub-Signature-256 does not match');
        let payload: unknown;
        try {
          payload = JSON.parse(raw.toString('utf8'));
        } catch {
          throw errors.invalidJson('The request body is not JSON.');
        }
        if (!isWhatsAppPayload(payload) || payload.object !== 'whatsapp_business_account') return reply.code(200).send({ status: 'ignored' });
        let taken = 0;
        for (const m of whatsAppMessages(payload)) {
          const content = m.message && (m.phoneNumberId === null || m.phoneNumberId === whatsapp.phoneNumberId) ? whatsAppContent(m.message) : null;
          const result =
            content && m.message
              ? await services.inbound.receiveWhatsApp({ id: m.message.id, from: m.message.from, text: content.text, files: content.files, profileName: m.profileName })
              : await services.inbound.ignore('whatsapp', m.id, m.message ? 'message_type' : 'payload');
          if (!result.outcome.startsWith('ignored_')) taken++;
        }
        return reply.code(200).send({ status: taken ? 'received' : 'ignored' });
      },
    );
  });
}
