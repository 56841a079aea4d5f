import { createHmac } from 'node:crypto';
import { safeEqual } from '../lib/secrets.js';

export type FormParams = Record<string, string | string[] | undefined>;

/**
 * Twilio's request signature (X-Twilio-Signature): HMAC-SHA1 under the
 * account's auth token of the full URL Twilio requested, followed by every
 * POST parameter as name + value in name order (a repeated name: each of its
 * values, sorted), base64. See twilio.com/docs/usage/security.
 */
export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? [...value].sort() : [value]) data += name + v;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** The URL as Twilio may have signed it: as configured, and with the port spelled out or left off (Twilio's own libraries accept both). */
function urlVariants(url: string): string[] {
  const m = /^(https?):\/\/([^/:?#]+)(:\d+)?(.*)$/i.exec(url);
  if (!m) return [url];
  const [, scheme, host, port, rest] = m;
  const other = port ? `${scheme}://${host}${rest}` : `${scheme}://${host}:${scheme.toLowerCase() === 'https' ? 443 : 80}${rest}`;
  return [url, other];
}

/** Whether `signature` is Twilio's for this URL and these parameters; constant-time. */
export function isValidTwilioSignature(authToken: string, signature: string | undefined, url: string, params: FormParams): boolean {
  if (!signature) return false;
  // Every variant is computed and compared, so the time taken does not tell which one (if any) matched.
  return urlVariants(url)
    .map((u) => safeEqual(twilioSignature(authToken, u, params), signature))
    .reduce((a, b) => a || b, false);
}

/** Telegram's webhook secret (X-Telegram-Bot-Api-Secret-Token): equal to the secret_token given to setWebhook; constant-time. */
export function isValidTelegramSecret(expected: string | null, given: string | undefined): boolean {
  if (!expected || !given) return false;
  return safeEqual(given, expected);
}

/**
 * Meta's webhook signature (X-Hub-Signature-256): `sha256=` and the hex
 * HMAC-SHA256 of the raw body under the app secret; constant-time.
 */
export function isValidHubSignature(appSecret: string, header: string | undefined, body: Buffer): boolean {
  if (!header || !header.startsWith('sha256=')) return false;
  const expected = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
  return safeEqual(header.toLowerCase(), expected);
}

/** The verify token of Meta's subscription handshake; constant-time. */
export function isValidVerifyToken(expected: string, given: string | undefined): boolean {
  return given !== undefined && safeEqual(given, expected);
}
