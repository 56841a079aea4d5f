import type { Config } from '../config/config.js';
import { ProviderError, providerFetch } from './provider-error.js';

export type WhatsAppConfig = NonNullable<Config['messaging']['whatsapp']>;

/** A free-form text (only inside the 24-hour window a person's own message opens), or an approved template (any time). */
export type WhatsAppMessage = { to: string; text: string } | { to: string; template: { name: string; language: string; parameters: string[] } };

export interface WhatsAppSender {
  send(message: WhatsAppMessage, options?: { signal?: AbortSignal }): Promise<{ id: string }>;
}

/** `to` as the Cloud API wants it: the E.164 number's digits, without the plus. */
const digits = (e164: string) => e164.replace(/^\+/, '');

/**
 * Messages over the WhatsApp Business Cloud API:
 * POST {base}/{phone-number-id}/messages with the access token as a bearer
 * token. A template's parameters fill its body's {{1}}, {{2}}… in order.
 */
export function createWhatsAppSender(c: WhatsAppConfig): WhatsAppSender {
  const url = `${c.apiBase}/${encodeURIComponent(c.phoneNumberId)}/messages`;
  return {
    async send(m, o = {}) {
      const body =
        'text' in m
          ? { messaging_product: 'whatsapp', recipient_type: 'individual', to: digits(m.to), type: 'text', text: { body: m.text, preview_url: false } }
          : {
              messaging_product: 'whatsapp',
              recipient_type: 'individual',
              to: digits(m.to),
              type: 'template',
              template: {
                name: m.template.name,
                language: { code: m.template.language },
                components: m.template.parameters.length ? [{ type: 'body', parameters: m.template.parameters.map((text) => ({ type: 'text', text })) }] : [],
              },
            };
      const res = await providerFetch('whatsapp', url, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: o.signal,
      });
      const answer = (await res.json().catch(() => null)) as { messages?: { id?: string }[]; error?: { code?: number } } | null;
      const id = answer?.messages?.[0]?.id;
      if (!res.ok || !id) throw new ProviderError('whatsapp', `HTTP ${res.status}${answer?.error?.code ? ` (error ${answer.error.code})` : ''}`, res.status);
      return { id };
    },
  };
}
