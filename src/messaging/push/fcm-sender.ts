import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../../config/config.js';
import { PushFailed, PushGone, type PushMessage } from './push-types.js';

interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri?: string;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * FCM HTTP v1 (`POST {FCM_API_BASE}/v1/projects/{project}/messages:send`),
 * authorised by an OAuth access token minted from the service account file
 * with the JWT bearer grant (RFC 7523) at the file's own `token_uri`, as
 * Google's client libraries do; the token is kept until a minute before it
 * lapses. "UNREGISTERED" (404) means the app was uninstalled: the device is gone.
 */
export function createFcmSender(cfg: NonNullable<Config['push']['fcm']>) {
  let account: ServiceAccount | undefined;
  let cached: { token: string; until: number } | undefined;

  async function accessToken(signal?: AbortSignal): Promise<string> {
    if (cached && cached.until > Date.now()) return cached.token;
    account ??= JSON.parse(readFileSync(cfg.serviceAccountFile, 'utf8')) as ServiceAccount;
    const tokenUri = account.token_uri ?? 'https://oauth2.googleapis.com/token';
    const now = Math.floor(Date.now() / 1000);
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: account.client_email, scope: SCOPE, aud: tokenUri, iat: now, exp: now + 3600 })}`;
    const assertion = `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(account.private_key).toString('base64url')}`;
    const res = await fetch(tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
      signal,
    }).catch((err: Error) => {
      throw new PushFailed(`fcm: no answer from the token endpoint: ${err.message}`, null);
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
    if (!res.ok || !body.access_token) throw new PushFailed(`fcm: the token endpoint answered ${res.status}`, res.status);
    cached = { token: body.access_token, until: Date.now() + Math.max(60, (body.expires_in ?? 3600) - 60) * 1000 };
    return body.access_token;
  }

  return {
    async send(token: string, message: PushMessage, o: { signal?: AbortSignal } = {}): Promise<void> {
      const bearer = await accessToken(o.signal);
      const res = await fetch(`${cfg.apiBase}/v1/projects/${encodeURIComponent(cfg.projectId)}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: { token, notification: { title: message.title, body: message.body }, data: message.data } }),
        signal: o.signal,
      }).catch((err: Error) => {
        throw new PushFailed(`fcm: no answer: ${err.message}`, null);
      });
      if (res.ok) return void (await res.body?.cancel());
      const text = await res.text().catch(() => '');
      if (res.status === 401) cached = undefined;
      if (/UNREGISTERED/.test(text) || (res.status === 404 && /NOT_FOUND/.test(text))) throw new PushGone('fcm: the registration token is gone (UNREGISTERED)');
      throw new PushFailed(`fcm: answered ${res.status}`, res.status);
    },
  };
}
