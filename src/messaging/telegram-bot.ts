import type { Config } from '../config/config.js';
import { ProviderError, providerFetch } from './provider-error.js';

/** The port for messages the bot sends. */
export interface TelegramBot {
  sendMessage(message: { chat_id: string; text: string }, options?: { signal?: AbortSignal }): Promise<{ id: string }>;
}

export type TelegramConfig = NonNullable<Config['messaging']['telegram']>;

/** The Telegram Bot API: POST {base}/bot<token>/sendMessage with JSON {chat_id, text}. */
export function createTelegramBot(c: TelegramConfig): TelegramBot {
  const url = `${c.apiBase}/bot${c.botToken}/sendMessage`;
  return {
    async sendMessage(m, o = {}) {
      const res = await providerFetch('telegram', url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ chat_id: m.chat_id, text: m.text }),
        signal: o.signal,
      });
      const body = (await res.json().catch(() => null)) as { ok?: boolean; result?: { message_id?: number }; error_code?: number } | null;
      if (!res.ok || !body?.ok) throw new ProviderError('telegram', `HTTP ${res.status}${body?.error_code ? ` (error ${body.error_code})` : ''}`, res.status);
      return { id: String(body.result?.message_id ?? '') };
    },
  };
}
