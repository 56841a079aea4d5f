import { Type } from '@sinclair/typebox';
import type { Config } from '../config/config.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import { defineJob } from './queue.js';

/**
 * Added fields are optional, so jobs queued before they existed still pass.
 * `stream` and `userId` mark mail of a stream the recipient may leave: it is
 * checked right before sending, and dropped once they have left.
 */
export const SendMailPayload = Type.Object({
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  html: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  stream: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
});

// One transport per configuration (SMTP connections are pooled inside it).
const mailers = new WeakMap<Config, Mailer>();

/** Delivers one message; sent through the queue so a slow mail server never slows a request. */
export const sendMailJob = defineJob({
  name: 'mail.send',
  payload: SendMailPayload,
  options: { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
  // Never the body: it may hold a sign-in or confirmation link.
  summarize: (m) => ({ to: m.to, subject: m.subject, ...(m.stream ? { stream: m.stream } : {}) }),
  async handle(message, ctx) {
    if (message.stream && message.userId && !(await ctx.services.mailStreams.allowsMail(message.userId, message.stream))) {
      ctx.log.info({ job: ctx.id, stream: message.stream }, 'mail dropped: the recipient left this stream or their account is gone');
      return;
    }
    let mailer = mailers.get(ctx.config);
    if (!mailer) mailers.set(ctx.config, (mailer = createMailer(ctx.config)));
    const { messageId } = await mailer.send(message, { id: ctx.id });
    ctx.log.info({ job: ctx.id, message_id: messageId, transport: mailer.kind }, 'mail sent');
  },
});
