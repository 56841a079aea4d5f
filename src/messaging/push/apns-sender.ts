import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { Config } from '../../config/config.js';
import { PushFailed, PushGone, type PushMessage } from './push-types.js';

/**
 * APNs with token-based authentication, over HTTP/2 (node:http2):
 * `POST {APNS_API_BASE}/3/device/{token}` with an ES256 provider token
 * (kid APNS_KEY_ID, iss APNS_TEAM_ID), renewed every 50 minutes (Apple takes
 * one between 20 and 60 minutes old). 410 or reason Unregistered /
 * BadDeviceToken: the device is gone. One connection, opened on first use
 * and again after it closes.
 */
export function createApnsSender(cfg: NonNullable<Config['push']['apns']>) {
  let session: http2.ClientHttp2Session | undefined;
  let jwt: { token: string; until: number } | undefined;

  function providerToken(): string {
    if (jwt && jwt.until > Date.now()) return jwt.token;
    const key = createPrivateKey(readFileSync(cfg.keyFile, 'utf8'));
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${part({ alg: 'ES256', kid: cfg.keyId })}.${part({ iss: cfg.teamId, iat: Math.floor(Date.now() / 1000) })}`;
    const signature = sign('sha256', Buffer.from(unsigned), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    jwt = { token: `${unsigned}.${signature}`, until: Date.now() + 50 * 60_000 };
    return jwt.token;
  }

  function connection(): http2.ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    session = http2.connect(cfg.apiBase);
    session.on('error', () => session?.destroy());
    session.setTimeout(60_000, () => session?.close());
    session.unref();
    return session;
  }

  return {
    send(token: string, message: PushMessage, o: { signal?: AbortSignal } = {}): Promise<void> {
      if (!/^[0-9a-fA-F]{32,200}$/.test(token)) return Promise.reject(new PushGone('apns: not a device token'));
      const body = JSON.stringify({ aps: { alert: { title: message.title, body: message.body }, sound: 'default' }, ...message.data });
      return new Promise<void>((resolve, reject) => {
        let req: http2.ClientHttp2Stream;
        try {
          req = connection().request({
            ':method': 'POST',
            ':path': `/3/device/${token}`,
            authorization: `bearer ${providerToken()}`,
            'apns-topic': cfg.topic,
            'apns-push-type': 'alert',
            'apns-priority': '10',
            'content-type': 'application/json',
          }, { signal: o.signal });
        } catch (err) {
          return reject(new PushFailed(`apns: ${(err as Error).message}`, null));
        }
        let status = 0;
        let text = '';
        req.setEncoding('utf8');
        req.on('response', (headers) => (status = Number(headers[':status'])));
        req.on('data', (d: string) => (text += d));
        req.on('end', () => {
          if (status === 200) return resolve();
          const reason = (() => {
            try {
              return String((JSON.parse(text) as { reason?: string }).reason ?? '');
            } catch {
              return '';
            }
          })();
          if (status === 410 || reason === 'Unregistered' || reason === 'BadDeviceToken') return reject(new PushGone(`apns: the device token is gone (${status} ${reason})`));
          if (status === 403 && reason === 'ExpiredProviderToken') jwt = undefined;
          reject(new PushFailed(`apns: answered ${status}${reason ? ` ${reason}` : ''}`, status));
        });
        req.on('error', (err) => reject(new PushFailed(`apns: ${err.message}`, null)));
        req.end(body);
      });
    },
  };
}
