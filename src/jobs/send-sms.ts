import { Type } from '@sinclair/typebox';
import { createTwilioSmsProvider } from '../messaging/sms-provider.js';
import { defineJob } from './queue.js';

export const SendSmsPayload = Type.Object({
  /** E.164. */
  to: Type.String(),
  body: Type.String(),
});

/** The number with all but its last digits hidden, for `memorybook jobs failed`. */
const masked = (to: string) => `${to.slice(0, 3)}…${to.slice(-2)}`;

/**
 * Sends one SMS through the configured provider; on the queue so a slow
 * provider never slows a request. The provider has no idempotency key, so a
 * run that dies after the provider accepted the message may send it twice.
 */
export const sendSmsJob = defineJob({
  name: 'sms.send',
  payload: SendSmsPayload,
  options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
  // Never the body: it may hold an invitation link.
  summarize: (m) => ({ to: masked(m.to) }),
  async handle(message, ctx) {
    const twilio = ctx.config.messaging.twilio;
    if (!twilio) throw new Error('SMS is not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM_NUMBER)');
    const { id } = await createTwilioSmsProvider(twilio).send(message, { signal: ctx.signal });
    ctx.log.info({ job: ctx.id, provider_id: id }, 'sms sent');
  },
});
