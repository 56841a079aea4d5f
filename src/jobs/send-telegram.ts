import { Type } from '@sinclair/typebox';
import { createTelegramBot } from '../messaging/telegram-bot.js';
import { defineJob } from './queue.js';

export const SendTelegramPayload = Type.Object({
  chat_id: Type.String(),
  text: Type.String(),
});

/** Sends one message from the bot to a chat it knows. */
export const sendTelegramJob = defineJob({
  name: 'telegram.send',
  payload: SendTelegramPayload,
  options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
  summarize: (m) => ({ chat_id: m.chat_id }),
  async handle(message, ctx) {
    const telegram = ctx.config.messaging.telegram;
    if (!telegram) throw new Error('Telegram is not configured (TELEGRAM_BOT_USERNAME, TELEGRAM_BOT_TOKEN)');
    const { id } = await createTelegramBot(telegram).sendMessage(message, { signal: ctx.signal });
    ctx.log.info({ job: ctx.id, message_id: id }, 'telegram message sent');
  },
});
