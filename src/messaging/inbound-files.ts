import { pipeline, Readable, Transform } from 'node:stream';
import type { TelegramConfig } from './telegram-bot.js';
import type { TwilioConfig } from './sms-provider.js';
import type { WhatsAppConfig } from './whatsapp-cloud.js';
import { ProviderError, providerFetch } from './provider-error.js';

/** A file a person sent, as the provider serves it: the body streams, nothing is held whole. */
export interface ProviderFile {
  stream: Readable;
  contentType: string | null;
  filename: string | null;
}

/**
 * The provider will never serve this file (a URL off the provider's host,
 * a file it refuses or no longer has): not retried, and the sender is told.
 * Any other failure (no connection, a 5xx, a 429) is a ProviderError and is
 * retried.
 */
export class ProviderFileRefused extends Error {
  constructor(
    readonly provider: string,
    readonly reason: string,
  ) {
    super(`${provider}: ${reason}`);
    this.name = 'ProviderFileRefused';
  }
}

/** Headers must come within this long; then the body may pause at most IDLE_MS between chunks. */
const HEADERS_MS = 15_000;
const IDLE_MS = 30_000;
const MAX_REDIRECTS = 3;

/** Meta serves WhatsApp media from this host when the Graph API itself is used (its media URL's documented host). */
const META_MEDIA_HOSTS = new Set(['lookaside.fbsbx.com']);
/**
 * Twilio answers a media URL (with HTTP auth on media enforced, as it should
 * be) by a redirect to a short-lived URL on its own CDN; the URL is then the
 * credential, so the account's auth is not sent along.
 */
const TWILIO_MEDIA_CDN = 'https://mms.twiliocdn.com';

function parse(provider: string, url: string): URL {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
    if (u.username || u.password) throw new Error('credentials in the URL');
    return u;
  } catch {
    throw new ProviderFileRefused(provider, 'the media URL is not a web address');
  }
}

/**
 * GETs a file from one of `allowed` origins (scheme, host and port), with
 * the provider's credentials. A URL elsewhere is never requested, nor a
 * redirect elsewhere followed: the credentials go only to the provider, and
 * no one can make the service fetch from a host of their choosing.
 */
async function download(
  provider: string,
  url: string,
  o: { allowed: ReadonlySet<string>; headers: Record<string, string>; signal?: AbortSignal; redirectsTo?: ReadonlySet<string> },
): Promise<ProviderFile> {
  let target = parse(provider, url);
  const first = target.origin;
  for (let hop = 0; ; hop++) {
    const own = o.allowed.has(target.origin);
    if (!own && !(hop > 0 && o.redirectsTo?.has(target.origin))) throw new ProviderFileRefused(provider, `the media URL is not on the provider's host (${target.host})`);
    const abort = new AbortController();
    const signal = o.signal ? AbortSignal.any([o.signal, abort.signal]) : abort.signal;
    let timer = setTimeout(() => abort.abort(new Error(`no answer within ${HEADERS_MS / 1000} s`)), HEADERS_MS);
    let res: Response;
    try {
      // The credentials go only to the origin first asked; a redirect to the provider's CDN carries its own.
      res = await fetch(target, { headers: target.origin === first ? o.headers : {}, redirect: 'manual', signal });
    } catch (err) {
      clearTimeout(timer);
      throw new ProviderError(provider, abort.signal.aborted ? `no answer within ${HEADERS_MS / 1000} s` : o.signal?.aborted ? 'aborted' : 'could not connect', null, {
        cause: (err as Error)?.cause ?? undefined,
      });
    }
    clearTimeout(timer);
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS) throw new ProviderFileRefused(provider, 'too many redirects');
      target = parse(provider, new URL(res.headers.get('location')!, target).toString());
      continue;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {});
      if (res.status === 429 || res.status >= 500) throw new ProviderError(provider, `HTTP ${res.status} for the media file`, res.status);
      throw new ProviderFileRefused(provider, `the provider answered HTTP ${res.status} for the media file`);
    }
    // A body that stalls is cut off (and the job retried) rather than holding the job until its lease ends.
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stream.destroy(new ProviderError(provider, `the media download stalled for ${IDLE_MS / 1000} s`)), IDLE_MS);
    };
    const stream: Readable = new Transform({
      transform(chunk, _encoding, done) {
        idle();
        done(null, chunk);
      },
    });
    pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>), stream as Transform, () => clearTimeout(timer));
    idle();
    stream.once('close', () => clearTimeout(timer));
    const disposition = res.headers.get('content-disposition');
    const filename = disposition ? (/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] ?? null) : null;
    return { stream, contentType: res.headers.get('content-type'), filename };
  }
}

const originOf = (base: string) => new URL(base).origin;

/**
 * A Twilio MMS file: `MediaUrl{N}` of the inbound message, under the
 * account's own path on Twilio's API host (TWILIO_API_BASE), with the
 * account's basic auth.
 */
export function openTwilioMedia(c: TwilioConfig, mediaUrl: string, o: { signal?: AbortSignal } = {}): Promise<ProviderFile> {
  const u = parse('twilio', mediaUrl);
  const accountPath = `/2010-04-01/Accounts/${c.accountSid}/`;
  if (u.origin !== originOf(c.apiBase) || !u.pathname.startsWith(accountPath)) {
    return Promise.reject(new ProviderFileRefused('twilio', `the media URL is not on the provider's host (${u.host})`));
  }
  return download('twilio', mediaUrl, {
    allowed: new Set([originOf(c.apiBase)]),
    redirectsTo: originOf(c.apiBase) === 'https://api.twilio.com' ? new Set([TWILIO_MEDIA_CDN]) : undefined,
    headers: { authorization: `Basic ${Buffer.from(`${c.accountSid}:${c.authToken}`).toString('base64')}` },
    signal: o.signal,
  });
}

/** Telegram's file path as getFile answers it: documents/file_12.jpg, photos/…, voice/…: never a way out of the file API. */
const FILE_PATH_RE = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

/**
 * A Telegram file: getFile gives its path, then the file API serves it at
 * {base}/file/bot<token>/<path> (the token is the credential, as in every
 * Bot API URL). Telegram lets bots download files up to 20 MB.
 */
export async function openTelegramFile(c: TelegramConfig, fileId: string, o: { signal?: AbortSignal } = {}): Promise<ProviderFile> {
  const res = await providerFetch('telegram', `${c.apiBase}/bot${c.botToken}/getFile?file_id=${encodeURIComponent(fileId)}`, { headers: { accept: 'application/json' }, signal: o.signal });
  const body = (await res.json().catch(() => null)) as { ok?: boolean; result?: { file_path?: unknown }; description?: unknown } | null;
  if (res.status === 429 || res.status >= 500) throw new ProviderError('telegram', `HTTP ${res.status} from getFile`, res.status);
  if (!res.ok || !body?.ok) {
    const tooBig = typeof body?.description === 'string' && /too big/i.test(body.description);
    throw new ProviderFileRefused('telegram', tooBig ? 'the file is larger than the 20 MB Telegram lets bots download' : `getFile answered HTTP ${res.status}`);
  }
  const filePath = body.result?.file_path;
  if (typeof filePath !== 'string' || !FILE_PATH_RE.test(filePath) || filePath.split('/').some((p) => p === '.' || p === '..')) {
    throw new ProviderFileRefused('telegram', 'getFile gave no usable file path');
  }
  const file = await download('telegram', `${c.apiBase}/file/bot${c.botToken}/${filePath}`, { allowed: new Set([originOf(c.apiBase)]), headers: {}, signal: o.signal });
  return { ...file, filename: file.filename ?? filePath.split('/').pop() ?? null };
}

/**
 * A WhatsApp media file: the media endpoint ({base}/{media-id}) answers a
 * short-lived URL, fetched with the same bearer token. That URL must be on
 * the API's host, or Meta's media host when the Graph API itself is used.
 */
export async function openWhatsAppMedia(c: WhatsAppConfig, mediaId: string, o: { signal?: AbortSignal } = {}): Promise<ProviderFile> {
  const headers = { authorization: `Bearer ${c.accessToken}` };
  const res = await providerFetch('whatsapp', `${c.apiBase}/${encodeURIComponent(mediaId)}`, { headers: { ...headers, accept: 'application/json' }, signal: o.signal });
  const body = (await res.json().catch(() => null)) as { url?: unknown; mime_type?: unknown } | null;
  if (res.status === 429 || res.status >= 500) throw new ProviderError('whatsapp', `HTTP ${res.status} from the media endpoint`, res.status);
  if (!res.ok || typeof body?.url !== 'string') throw new ProviderFileRefused('whatsapp', `the media endpoint answered HTTP ${res.status}`);
  const base = new URL(c.apiBase);
  const allowed = new Set([base.origin]);
  if (base.hostname === 'graph.facebook.com') for (const host of META_MEDIA_HOSTS) allowed.add(`https://${host}`);
  const file = await download('whatsapp', body.url, { allowed, headers, signal: o.signal });
  return { ...file, contentType: file.contentType ?? (typeof body.mime_type === 'string' ? body.mime_type : null) };
}
