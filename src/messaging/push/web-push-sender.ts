import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { Config } from '../../config/config.js';
import { PushFailed, PushGone, type PushMessage } from './push-types.js';

const require = createRequire(import.meta.url);

export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** Where a request may connect: the webhook address guard's `lookup` (every address checked at connect time). */
export type GuardedLookup = (url: URL) => NonNullable<http.RequestOptions['lookup']>;

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292): the `web-push` library encrypts
 * the payload (RFC 8291, aes128gcm) and signs the VAPID header; the request
 * goes out through our own client, whose `lookup` is the webhook address
 * guard's, so the endpoint (a URL a user gave) is checked again at every send
 * (WEBHOOK_ALLOW_PRIVATE), DNS rebinding included.
 */
export function createWebPushSender(cfg: NonNullable<Config['push']['webPush']>, lookupFor: GuardedLookup) {
  // Read with the first push, not as the server starts.
  let webpush: typeof import('web-push') | undefined;
  return {
    async send(subscription: WebPushSubscription, message: PushMessage, o: { signal?: AbortSignal; ttlSeconds?: number } = {}): Promise<void> {
      webpush ??= require('web-push') as typeof import('web-push');
      const details = webpush.generateRequestDetails(subscription, JSON.stringify(message), {
        vapidDetails: { subject: cfg.subject, publicKey: cfg.publicKey, privateKey: cfg.privateKey },
        contentEncoding: 'aes128gcm',
        TTL: o.ttlSeconds ?? 24 * 3600,
        urgency: 'normal',
      });
      const url = new URL(details.endpoint);
      const client = url.protocol === 'https:' ? https : http;
      const body = details.body as Buffer | null;
      const status = await new Promise<number>((resolve, reject) => {
        const req = client.request(
          url,
          { method: 'POST', headers: details.headers as http.OutgoingHttpHeaders, lookup: lookupFor(url), signal: o.signal, timeout: 30_000 },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error('the push service did not answer in time')));
        req.on('error', reject);
        req.end(body ?? undefined);
      }).catch((err: Error) => {
        throw new PushFailed(`web push: ${err.message}`, null);
      });
      if (status >= 200 && status < 300) return;
      if (status === 404 || status === 410) throw new PushGone(`web push: the subscription is gone (${status})`);
      throw new PushFailed(`web push: the push service answered ${status}`, status);
    },
  };
}
