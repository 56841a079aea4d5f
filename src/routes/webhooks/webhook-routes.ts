import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { isValidTelegramSecret, isValidTwilioSignature, type FormParams } from '../../messaging/webhook-signatures.js';
import { isTelegramUpdate, isTwilioMessage, isTwilioStatusCallback, twilioFiles } from '../../services/inbound/provider-payloads.js';
import type { RouteContext } from '../../services/index.js';
import { registerWhatsAppWebhook } from './whatsapp-webhook.js';
import { registerEmailWebhook } from './email-webhook.js';

/** Where the providers post: give these (under PUBLIC_URL) to Twilio's number and to Telegram's setWebhook. */
export const TWILIO_SMS_WEBHOOK = '/webhooks/twilio/sms/';
export const TELEGRAM_WEBHOOK = '/webhooks/telegram/';

/** Outside /api/v1 and the OpenAPI document: no API key, no Idempotency-Key; the provider's signature is the credential. */
const WEBHOOK_ROUTE = { schema: { hide: true }, config: { internal: true, auth: 'none' } } as const;

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const refused = (why: string) => errors.forbidden(`The request is refused: ${why}.`);

/**
 * The inbound webhooks of the messaging providers, registered only for a
 * configured provider. Nothing is read or written before the request proves
 * it comes from the provider: Twilio's X-Twilio-Signature (HMAC-SHA1 of
 * PUBLIC_URL + path + the form fields, under TWILIO_AUTH_TOKEN), Telegram's
 * X-Telegram-Bot-Api-Secret-Token (TELEGRAM_WEBHOOK_SECRET). A forged,
 * unsigned or replayed delivery is 403 and changes nothing.
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: RouteContext) {
  const { config, services } = ctx;
  const { twilio, telegram, whatsapp } = config.messaging;
  if (whatsapp) registerWhatsAppWebhook(app, ctx, whatsapp);
  registerEmailWebhook(app, ctx);

  if (twilio) {
    app.post(
      TWILIO_SMS_WEBHOOK,
      {
        ...WEBHOOK_ROUTE,
        // No signature at all: refused before the body is even read.
        onRequest: async (request: FastifyRequest) => {
          if (typeof request.headers['x-twilio-signature'] !== 'string') throw refused('no X-Twilio-Signature');
        },
      },
      async (request, reply) => {
        const params = (request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? request.body : {}) as FormParams;
        // Twilio signs the URL it was given, which is PUBLIC_URL's origin and path plus the path and query it requested.
        const url = `${config.http.publicUrl}${request.url}`;
        if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded') || !isValidTwilioSignature(twilio.authToken, request.headers['x-twilio-signature'] as string, url, params)) {
          throw refused('the X-Twilio-Signature does not match');
        }
        const field = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
        const messageSid = field('MessageSid') ?? field('SmsSid');
        if (!messageSid) throw errors.validation('MessageSid is missing.', { field: 'MessageSid' });
        // Signed, so Twilio's: whatever it is, an answer other than 200 would only be retried. Status callbacks and odd forms are ignored.
        const message: unknown = { ...params, MessageSid: messageSid };
        if (!isTwilioMessage(message)) await services.inbound.ignore('twilio', messageSid, 'payload');
        else if (isTwilioStatusCallback(message)) await services.inbound.ignore('twilio', null, 'status_callback');
        else await services.inbound.receiveSms({ messageSid, from: message.From, body: message.Body ?? '', files: twilioFiles(message) });
        return reply.code(200).type('text/xml; charset=utf-8').send(EMPTY_TWIML);
      },
    );
  }

  if (telegram) {
    app.post(
      TELEGRAM_WEBHOOK,
      {
        ...WEBHOOK_ROUTE,
        // The secret comes in a header, so a forged or unsigned update is refused before its body is read.
        onRequest: async (request: FastifyRequest) => {
          const given = request.headers['x-telegram-bot-api-secret-token'];
          if (!isValidTelegramSecret(telegram.webhookSecret, typeof given === 'string' ? given : undefined)) {
            throw refused(telegram.webhookSecret ? 'the X-Telegram-Bot-Api-Secret-Token does not match' : 'TELEGRAM_WEBHOOK_SECRET is not set');
          }
        },
      },
      async (request, reply) => {
        const update = request.body as { update_id?: unknown } | undefined;
        if (!update || typeof update !== 'object' || !Number.isSafeInteger(update.update_id)) {
          throw errors.validation('The body is not a Telegram update (update_id is missing).', { field: 'update_id' });
        }
        // A signed update we do not read (a field of another type, a kind we do not take) is answered 200: Telegram retries anything else for ever.
        const result = isTelegramUpdate(update) ? await services.inbound.receiveTelegram(update) : await services.inbound.ignore('telegram', String(update.update_id), 'payload');
        return reply.code(200).send(result.outcome.startsWith('ignored_') ? { status: 'ignored' } : { status: 'received' });
      },
    );
  }
}
