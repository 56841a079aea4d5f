import { createHmac, timingSafeEqual } from 'node:crypto';
import { hmac } from '../lib/secrets.js';

/**
 * The local store's download URLs: `/files/<key>` with a query of the same
 * shape as an S3 presigned GET (X-Amz-Algorithm, -Credential, -Date, -Expires,
 * -SignedHeaders, -Signature, and the optional response-* overrides), so a
 * client cannot tell the drivers apart. Only the algorithm differs: an
 * HMAC-SHA256 under a key derived from SECRET_KEY for this one purpose.
 *
 * The signature covers the object key and every X-Amz-* and response-*
 * parameter except itself, so neither the object, the lifetime nor the
 * headers the response will carry can be changed. Other query parameters
 * change nothing in the answer and are ignored.
 */

export const LOCAL_SIGNING_ALGORITHM = 'MB-HMAC-SHA256';
/** Longest lifetime a URL may have, as on S3 (7 days). */
export const MAX_URL_TTL_SECONDS = 604_800;
/** A URL dated further ahead than this (clock skew between processes) is refused. */
const MAX_FUTURE_SKEW_MS = 15 * 60 * 1000;

const SIGNED_PARAM = /^(X-Amz-|response-)/;
const OVERRIDES = ['response-content-disposition', 'response-content-type'] as const;
const REQUIRED = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'] as const;

export interface SignLocalUrlOptions {
  ttlSeconds: number;
  now: Date;
  /** Sent back as Content-Disposition. */
  contentDisposition?: string;
  /** Sent back as Content-Type instead of the stored type. */
  contentType?: string;
}

export type LocalUrlCheck =
  | { ok: true; expiresAt: Date; contentDisposition: string | null; contentType: string | null }
  | { ok: false; reason: 'malformed' | 'mismatch' | 'expired' };

/** The signing key: never SECRET_KEY itself, so a MAC made here is worthless anywhere else (cursors, sessions). */
export function deriveFileSigningKey(secretKey: string): Buffer {
  return hmac(secretKey, 'memorybook/files/v1');
}

/** The query string (without `?`) that makes `/files/<key>` readable until the returned time. */
export function signLocalUrl(signingKey: Buffer, key: string, options: SignLocalUrlOptions): { query: string; expiresAt: Date } {
  assertTtl(options.ttlSeconds);
  const amzDate = toAmzDate(options.now);
  const params: [string, string][] = [
    ['X-Amz-Algorithm', LOCAL_SIGNING_ALGORITHM],
    ['X-Amz-Credential', `local/${amzDate.slice(0, 8)}/local/files/mb_request`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(options.ttlSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  if (options.contentDisposition !== undefined) params.push(['response-content-disposition', options.contentDisposition]);
  if (options.contentType !== undefined) params.push(['response-content-type', options.contentType]);
  for (const [, value] of params) {
    if (hasControlChars(value)) throw new TypeError('A signed header value may not contain control characters');
  }
  params.push(['X-Amz-Signature', signatureOf(signingKey, key, params)]);
  return {
    query: params.map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`).join('&'),
    expiresAt: new Date(fromAmzDate(amzDate)!.getTime() + options.ttlSeconds * 1000),
  };
}

/**
 * The one check of a local download URL: well-formed, signed by us for this
 * key and these parameters (compared in constant time), and not expired.
 * `rawQuery` is the query string as received, without `?`.
 */
export function verifyLocalUrl(signingKey: Buffer, key: string, rawQuery: string, now: Date): LocalUrlCheck {
  let search: URLSearchParams;
  try {
    search = new URLSearchParams(rawQuery);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const params: [string, string][] = [];
  const seen = new Set<string>();
  for (const [name, value] of search) {
    if (!SIGNED_PARAM.test(name)) continue;
    // A parameter given twice could be read one way here and another way by a proxy.
    if (seen.has(name)) return { ok: false, reason: 'malformed' };
    seen.add(name);
    params.push([name, value]);
  }
  const get = (name: string) => params.find(([k]) => k === name)?.[1];
  if (REQUIRED.some((name) => get(name) === undefined)) return { ok: false, reason: 'malformed' };
  if (params.some(([k]) => !(REQUIRED as readonly string[]).includes(k) && !(OVERRIDES as readonly string[]).includes(k))) {
    return { ok: false, reason: 'malformed' };
  }
  const date = get('X-Amz-Date')!;
  const signedAt = fromAmzDate(date);
  const expiresRaw = get('X-Amz-Expires')!;
  const provided = get('X-Amz-Signature')!;
  if (
    get('X-Amz-Algorithm') !== LOCAL_SIGNING_ALGORITHM ||
    get('X-Amz-SignedHeaders') !== 'host' ||
    !signedAt ||
    get('X-Amz-Credential') !== `local/${date.slice(0, 8)}/local/files/mb_request` ||
    !/^[1-9]\d{0,6}$/.test(expiresRaw) ||
    Number(expiresRaw) > MAX_URL_TTL_SECONDS ||
    !/^[0-9a-f]{64}$/.test(provided) ||
    params.some(([, v]) => hasControlChars(v))
  ) {
    return { ok: false, reason: 'malformed' };
  }

  const expected = Buffer.from(signatureOf(signingKey, key, params.filter(([k]) => k !== 'X-Amz-Signature')), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(provided, 'hex'))) return { ok: false, reason: 'mismatch' };

  // Only a URL we signed gets this far, so its dates are ours: past its lifetime, or dated implausibly ahead.
  const expiresAt = new Date(signedAt.getTime() + Number(expiresRaw) * 1000);
  if (now.getTime() >= expiresAt.getTime() || signedAt.getTime() - now.getTime() > MAX_FUTURE_SKEW_MS) {
    return { ok: false, reason: 'expired' };
  }
  return { ok: true, expiresAt, contentDisposition: get('response-content-disposition') ?? null, contentType: get('response-content-type') ?? null };
}

export function assertTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_URL_TTL_SECONDS) {
    throw new RangeError(`ttlSeconds must be a whole number from 1 to ${MAX_URL_TTL_SECONDS}, got ${ttlSeconds}`);
  }
}

/** What is signed: the algorithm, the key's path and the parameters in one canonical order and encoding. */
function signatureOf(signingKey: Buffer, key: string, params: [string, string][]): string {
  const canonicalQuery = params
    .map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`)
    .sort()
    .join('&');
  return createHmac('sha256', signingKey).update(`${LOCAL_SIGNING_ALGORITHM}\n/files/${key}\n${canonicalQuery}`).digest('hex');
}

/** `YYYYMMDDTHHMMSSZ`, as SigV4 writes X-Amz-Date. */
export function toAmzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

function fromAmzDate(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return null;
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(d.getTime()) || toAmzDate(d) !== s ? null : d;
}

function encodeRfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function hasControlChars(s: string): boolean {
  return /[\u0000-\u001f\u007f]/.test(s);
}
