import type { Config } from '../config/config.js';
import { ProviderError, providerFetch } from './provider-error.js';

/** The port every SMS sender uses; which provider is behind it is the operator's choice. */
export interface SmsProvider {
  send(message: { to: string; body: string }, options?: { signal?: AbortSignal }): Promise<{ id: string }>;
}

export type TwilioConfig = NonNullable<Config['messaging']['twilio']>;

/**
 * SMS over Twilio's REST API (or any service that speaks it):
 * POST {base}/2010-04-01/Accounts/{sid}/Messages.json, form-encoded To, From
 * and Body, HTTP basic auth with the account SID and auth token.
 */
export function createTwilioSmsProvider(c: TwilioConfig): SmsProvider {
  const url = `${c.apiBase}/2010-04-01/Accounts/${encodeURIComponent(c.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${c.accountSid}:${c.authToken}`).toString('base64')}`;
  return {
    async send(m, o = {}) {
      const res = await providerFetch('twilio', url, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ To: m.to, From: c.fromNumber, Body: m.body }).toString(),
        signal: o.signal,
      });
      const body = (await res.json().catch(() => null)) as { sid?: string; code?: number; message?: string } | null;
      if (!res.ok || !body?.sid) {
        throw new ProviderError('twilio', `HTTP ${res.status}${body?.code ? ` (error ${body.code})` : ''}`, res.status);
      }
      return { id: body.sid };
    },
  };
}
