/**
 * Receiving memorybook's webhooks: `verifyWebhook` checks a delivery's
 * Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against your endpoint's secret and answers the event.
 * It uses the Web Crypto API, so it runs in Node.js 20+, Deno, Bun and
 * workers alike. Any Standard Webhooks library (such as `standardwebhooks`
 * on npm) verifies the same deliveries.
 */
import type { components } from './generated/schema.js';

/**
 * An event as `GET /events/{id}/` answers it and as a webhook body carries
 * it: a union discriminated by `type`, each variant with its own
 * `data.object` (a Submission, Media, ExportJob, Member, Invitation, Book,
 * or a deletion's `{id}`/`{slug}`), generated from the document's `webhooks`.
 * `switch (event.type)` narrows `event.data.object` without casts.
 */
export type WebhookEvent = components['schemas']['Event'];
/** Every event type, `ping` included. */
export type WebhookEventType = WebhookEvent['type'];
/** The event of one type: `WebhookEventOf<'submission.created'>['data']['object']` is a Submission. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300): older deliveries are refused as replays. */
  toleranceSeconds?: number;
  /** The clock (tests). */
  now?: () => Date;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function base64ToBytes(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Equal strings, compared in time that does not depend on where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * Verifies a delivery and answers its event, or throws WebhookVerificationError.
 * `body` must be the raw request body, exactly as received (not re-serialised JSON).
 * During the 24 hours after a secret rotation a delivery carries two signatures; either verifies.
 */
export async function verifyWebhook(secret: string, headers: HeaderSource, body: string | Uint8Array, options: VerifyOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature.');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) throw new WebhookVerificationError('Invalid webhook-timestamp.');
  const now = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('webhook-timestamp is too far from now.');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const key = await crypto.subtle.importKey('raw', base64ToBytes(secret.replace(/^whsec_/, '')) as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`)));
  const expected = bytesToBase64(mac);
  const matched = signatures
    .split(' ')
    .map((s) => s.split(','))
    .some(([version, sig]) => version === 'v1' && sig !== undefined && constantTimeEqual(sig, expected));
  if (!matched) throw new WebhookVerificationError('No signature matches.');
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The body is not JSON.');
  }
}
