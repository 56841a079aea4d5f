import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import { PushGone, type PushMessage } from '../../messaging/push/push-types.js';
import { createWebPushSender, type WebPushSubscription } from '../../messaging/push/web-push-sender.js';
import { createFcmSender } from '../../messaging/push/fcm-sender.js';
import { createApnsSender } from '../../messaging/push/apns-sender.js';
import type { Actor } from '../books/book-access.js';
import type { SecretBox } from '../webhook-endpoints/signing.js';
import { UrlRefused, type UrlGuard } from '../webhook-endpoints/url-guard.js';
import { deleteDevice, findDevice, hasDevice, isLiveMember, listDevicesOfUser, touchDevice, upsertDevice, type DevicePlatform, type DeviceRow } from './device-repository.js';

export type RegisterDeviceInput =
  | { platform: 'ios' | 'android'; name?: string | null; token: string }
  | { platform: 'web'; name?: string | null; subscription: WebPushSubscription };

/** A device as the API shows it: never its token. */
export function toDevice(d: DeviceRow) {
  return { id: d.id, platform: d.platform, name: d.name, created_at: d.created_at, last_used_at: d.last_used_at };
}

/** The longest preview a push carries. */
export const PUSH_PREVIEW_CHARS = 160;

const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const bytesOf = (s: string) => Buffer.from(s, 'base64url').length;

/** Which providers the operator configured. */
export function pushProviders(config: Config): ('web_push' | 'fcm' | 'apns')[] {
  return [config.push.webPush ? 'web_push' : null, config.push.fcm ? 'fcm' : null, config.push.apns ? 'apns' : null].filter((p): p is 'web_push' | 'fcm' | 'apns' => p !== null);
}

const providerOf: Record<DevicePlatform, 'web_push' | 'fcm' | 'apns'> = { web: 'web_push', android: 'fcm', ios: 'apns' };

/**
 * Devices and push (contract decisions, "Added for the fourth wave"). A
 * user registers their devices (`/me/devices/`); a notification
 * subscription on `channel: push` sends a kind's notifications to every
 * device of the subscriber whose provider is configured, one `push.send` job
 * per device, queued in the transaction that claims the notification. The
 * job sends nothing for a book the user has left, removes a device its
 * provider calls gone, and is retried on any other failure.
 */
export function createDeviceService(deps: { db: Db; config: Config; guard: UrlGuard; secrets: SecretBox }) {
  const { db, config, guard, secrets } = deps;
  const webPush = config.push.webPush ? createWebPushSender(config.push.webPush, (url) => guard.lookupFor(url) as never) : null;
  const fcm = config.push.fcm ? createFcmSender(config.push.fcm) : null;
  const apns = config.push.apns ? createApnsSender(config.push.apns) : null;

  async function checkEndpoint(endpoint: string): Promise<void> {
    try {
      await guard.checkUrl(endpoint);
    } catch (err) {
      if (err instanceof UrlRefused) {
        throw errors.validation(`The push subscription's endpoint is refused: ${err.message}`, { field: 'subscription.endpoint', reason: err.reason });
      }
      throw err;
    }
  }

  return {
    /** POST /me/devices/: 201 with a new device, 200 with the one holding this token already (now the caller's). */
    async register(tx: Tx, actor: Actor, input: RegisterDeviceInput): Promise<{ created: boolean; device: ReturnType<typeof toDevice> }> {
      let token: string;
      if (input.platform === 'web') {
        const s = input.subscription;
        if (!B64URL.test(s.keys.p256dh) || bytesOf(s.keys.p256dh) !== 65) {
          throw errors.validation('subscription.keys.p256dh must be the browser\'s P-256 public key (65 bytes, URL-safe base64).', { field: 'subscription.keys.p256dh' });
        }
        if (!B64URL.test(s.keys.auth) || bytesOf(s.keys.auth) !== 16) {
          throw errors.validation('subscription.keys.auth must be the 16-byte authentication secret (URL-safe base64).', { field: 'subscription.keys.auth' });
        }
        await checkEndpoint(s.endpoint);
        token = JSON.stringify({ endpoint: s.endpoint, keys: { p256dh: s.keys.p256dh, auth: s.keys.auth } });
      } else {
        token = input.token.trim();
        if (!token) throw errors.validation('token must not be blank.', { field: 'token' });
      }
      // A web subscription is one device per endpoint (its keys may be renewed).
      const identity = input.platform === 'web' ? input.subscription.endpoint : token;
      const { row, created } = await upsertDevice(tx, {
        id: uuidv7(),
        userId: actor.id,
        platform: input.platform,
        name: input.name?.trim() || null,
        tokenHash: createHash('sha256').update(identity).digest('hex'),
        tokenSealed: secrets.seal(token),
      });
      return { created, device: toDevice(row) };
    },

    async list(actor: Actor) {
      return { items: (await listDevicesOfUser(db, actor.id)).map(toDevice), web_push_public_key: config.push.webPush?.publicKey ?? null };
    },

    async remove(tx: Tx, actor: Actor, id: string): Promise<void> {
      if (!isUuid(id) || !(await deleteDevice(tx, id, actor.id))) throw errors.notFound('device');
    },

    /**
     * For a notification over `push`, in the transaction that claims it:
     * one `push.send` job per device of the user whose provider is
     * configured. Answers how many were queued (0: nothing to push to).
     */
    async queuePush(tx: Tx, queue: { send(name: 'push.send', payload: { deviceId: string; bookId: string; title: string; body: string; kind: string; bookSlug: string }, o: { tx: Tx }): Promise<unknown> }, userId: string, m: { bookId: string; bookSlug: string; title: string; body: string; kind: string }): Promise<number> {
      const on = new Set(pushProviders(config));
      const devices = (await listDevicesOfUser(tx, userId)).filter((d) => on.has(providerOf[d.platform]));
      for (const d of devices) {
        await queue.send('push.send', { deviceId: d.id, bookId: m.bookId, bookSlug: m.bookSlug, kind: m.kind, title: preview(m.title, 80), body: preview(m.body, PUSH_PREVIEW_CHARS) }, { tx });
      }
      return devices.length;
    },

    /** Whether any device of the user can be reached now. */
    async reachable(q: Queryable, userId: string): Promise<boolean> {
      const on = new Set(pushProviders(config));
      if (!on.size) return false;
      return (await listDevicesOfUser(q, userId)).some((d) => on.has(providerOf[d.platform]));
    },

    /** The `push.send` job: one push to one device. */
    async send(p: { deviceId: string; bookId: string; bookSlug: string; kind: string; title: string; body: string }, o: { signal?: AbortSignal; log?: FastifyBaseLogger } = {}): Promise<string> {
      const device = await findDevice(db, p.deviceId);
      if (!device) return 'device gone';
      // Nothing for a book the user has left (or that is going).
      if (!(await isLiveMember(db, p.bookId, device.user_id))) return 'not a member any more';
      const message: PushMessage = { title: p.title, body: p.body, data: { book_slug: p.bookSlug, kind: p.kind } };
      const token = secrets.open(device.token_sealed);
      try {
        if (device.platform === 'web') {
          if (!webPush) return 'web push not configured';
          const subscription = JSON.parse(token) as WebPushSubscription;
          try {
            await guard.checkUrl(subscription.endpoint);
          } catch (err) {
            if (err instanceof UrlRefused) throw new PushGone(`the endpoint is refused now: ${err.message}`);
            throw err;
          }
          await webPush.send(subscription, message, { signal: o.signal });
        } else if (device.platform === 'android') {
          if (!fcm) return 'fcm not configured';
          await fcm.send(token, message, { signal: o.signal });
        } else {
          if (!apns) return 'apns not configured';
          await apns.send(token, message, { signal: o.signal });
        }
      } catch (err) {
        if (err instanceof PushGone) {
          await deleteDevice(db, device.id);
          o.log?.info({ device: device.id, platform: device.platform, reason: err.message }, 'push device removed: its provider says it is gone');
          return 'device removed';
        }
        throw err;
      }
      await touchDevice(db, device.id);
      return 'sent';
    },
  };
}
export type DeviceService = ReturnType<typeof createDeviceService>;

function preview(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
}

/** Whether the user has a device registered for push (for the subscriptions domain, in its transaction). */
export function hasPushDevice(q: Queryable, userId: string): Promise<boolean> {
  return hasDevice(q, userId);
}
