import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import ipaddr from 'ipaddr.js';
import { parseAllowPrivate, type PrivateAllowance } from '../lib/allow-private.js';
import { phoneNumbers } from '../lib/phone-numbers.js';
import { intBounds } from './schema.js';

/** The service's configuration, parsed once from the environment and frozen. */
export interface Config {
  env: 'development' | 'production' | 'test';
  http: {
    host: string;
    port: number;
    publicUrl: string;
    publicOrigin: string;
    secureCookies: boolean;
    trustProxy: boolean | string[];
    /** Slow-client limits: request line and headers, the whole request with its body, an idle keep-alive connection. */
    timeouts: { headersMs: number; requestMs: number; keepAliveMs: number };
  };
  /**
   * SIGTERM: how long the process keeps taking requests with /readyz answering 503 (for a balancer that
   * polls it), then how long requests in flight and running jobs get to finish, all told.
   */
  shutdown: { delayMs: number; timeoutMs: number };
  dataDir: string;
  /**
   * pooler: 'transaction' when PostgreSQL is reached through a pooler in
   * transaction mode (PgBouncer's pool_mode = transaction), which hands each
   * transaction any server connection: nothing may rely on session state.
   */
  database: { kind: 'pglite' | 'postgres'; url: string | null; poolSize: number; schema: string | null; pooler: 'none' | 'transaction' };
  secretKey: string;
  /** Where a generated SECRET_KEY is kept (DATA_DIR/secret_key; see ensureSecretKey); null when SECRET_KEY is set. */
  secretKeyFile: string | null;
  logLevel: string;
  mail: { smtpUrl: string | null; from: string };
  /** Operator endpoint that erases off-site backups on deletion; null means nothing to erase. */
  backupErasureUrl: string | null;
  /** First wait before retrying that endpoint; doubles on each retry. */
  backupErasureRetrySeconds: number;
  /** WEBHOOK_ALLOW_PRIVATE, parsed: the address ranges (CIDRs, or `*` for all) outbound webhooks may reach besides public ones. */
  webhookAllowPrivate: PrivateAllowance;
  /** Where files live: local disk under DATA_DIR/objects (default), or an S3-compatible store. */
  storage: {
    kind: 'local' | 's3';
    s3: { endpoint: string | null; bucket: string; region: string; accessKeyId: string | null; secretAccessKey: string | null; forcePathStyle: boolean } | null;
  };
  media: {
    /** ffmpeg and ffprobe binaries: the ones shipped in node_modules unless the operator names others. */
    ffmpegPath: string | null;
    ffprobePath: string | null;
    /** clamd over TCP; null means images are not scanned (scan_result not_scanned). */
    clamav: { host: string; port: number; timeoutMs: number } | null;
  };
  /**
   * Messaging channels beyond email. Each provider is null until the operator
   * configures it (all of its variables, or none); the secrets here never
   * leave the server (the channel status rows show only public addresses).
   */
  messaging: {
    /** Region (ISO 3166 alpha-2) for phone numbers written without a country code. */
    phoneRegion: string;
    /** Domain of the books' inbound mail addresses (`<slug>@domain`, for every book); the public host when unset. */
    inboundMailDomain: string;
    /** SMS over a Twilio-compatible REST API. */
    twilio: { accountSid: string; authToken: string; fromNumber: string; apiBase: string } | null;
    /**
     * The Telegram bot contributors talk to. `webhookSecret` is the secret_token
     * given to setWebhook: updates must carry it in X-Telegram-Bot-Api-Secret-Token
     * (without it every update is refused).
     */
    telegram: { botUsername: string; botToken: string; apiBase: string; webhookSecret: string | null } | null;
    rcs: { agentId: string; apiKey: string } | null;
    imessage: { businessId: string; apiToken: string } | null;
    /**
     * The WhatsApp Business Cloud API: `phoneNumberId` sends, `appSecret`
     * checks X-Hub-Signature-256 on the webhook, `verifyToken` answers Meta's
     * subscription handshake, `invitationTemplate` (an approved template) is
     * what a first contact gets.
     */
    whatsapp: {
      phoneNumber: string;
      accessToken: string;
      phoneNumberId: string;
      appSecret: string;
      verifyToken: string;
      apiBase: string;
      invitationTemplate: string | null;
      templateLanguage: string;
    } | null;
  };
  /**
   * Transcription on request through an OpenAI-compatible endpoint
   * (`POST {url}/v1/audio/transcriptions`: OpenAI, whisper.cpp's server,
   * faster-whisper servers, LocalAI). Null until TRANSCRIPTION_URL is set
   * (the POST then answers 409 transcription_unavailable). `retrySeconds` is
   * the first wait after a provider failure (429, 5xx, no answer), doubled
   * each time, or the provider's Retry-After when longer; after
   * `maxAttempts` calls the transcription is failed.
   */
  transcription: { url: string; apiKey: string | null; model: string; retrySeconds: number; maxAttempts: number; timeoutSeconds: number } | null;
  /**
   * Push to devices: each provider null until configured (all of its
   * variables, or none). Base URLs are overridable for tests.
   */
  push: {
    webPush: { publicKey: string; privateKey: string; subject: string } | null;
    fcm: { projectId: string; serviceAccountFile: string; apiBase: string } | null;
    apns: { keyFile: string; keyId: string; teamId: string; topic: string; environment: 'production' | 'sandbox'; apiBase: string } | null;
  };
  /**
   * Mail to the books' addresses (`<slug>@messaging.inboundMailDomain`): the
   * built-in SMTP receiver (`port`, null unless SMTP_INBOUND_PORT is set;
   * `memorybook mail-inbound` then listens on 2525) and the inbound webhook
   * (`webhookSecret`, INBOUND_EMAIL_SECRET). Inbound mail is on when either is set.
   */
  mailInbound: {
    port: number | null;
    host: string;
    /** PEM files for STARTTLS; without them STARTTLS is not offered. */
    tls: { keyPath: string; certPath: string } | null;
    webhookSecret: string | null;
    /**
     * The authserv-id the provider writes in its Authentication-Results
     * (INBOUND_EMAIL_AUTHSERV_ID): only such a field is believed, since any
     * other may be the sender's. Required with webhookSecret (null only without it).
     */
    webhookAuthservId: string | null;
    /**
     * INBOUND_EMAIL_ALLOWED_CIDRS: when set, the webhook takes requests only
     * from these ranges (403 before the body for any other), and they skip
     * the per-IP limits. Null: any address, under those limits.
     */
    webhookAllowedCidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] | null;
    /** A message larger than this is refused (SIZE, 552, 413): the upload ceiling. */
    maxBytes: number;
  };
  /**
   * Paid plans. Without Stripe the operator grants slots (`memorybook slots
   * grant`); with it the web checkout sells them as Stripe subscriptions.
   */
  billing: {
    /** How long a book whose payment failed keeps its data read-only before anything else happens. */
    graceDays: number;
    /**
     * `prices` maps a plan slug to the Stripe price sold for it. It lives here,
     * beside the keys, not in the plans table: price ids belong to one Stripe
     * account and mode (test and live differ), the catalog does not.
     * `api` is where the Stripe client sends its requests (Stripe itself unless STRIPE_API_BASE says otherwise).
     */
    stripe: {
      secretKey: string;
      webhookSecret: string;
      prices: Record<string, string>;
      api: { protocol: 'http' | 'https'; host: string; port: number };
    } | null;
  };
  limits: {
    signInAttempts: number;
    signInWindowSeconds: number;
    /** Submission creates per (user, IP) and window; the contract's 30 an hour by default, liftable for benchmarks. */
    submissionRateLimit: number;
    submissionRateWindowSeconds: number;
    /** Memories sent through a book's public web form (/b/{slug}/) per client IP and window. */
    webFormRateLimit: number;
    webFormRateWindowSeconds: number;
  };
  /**
   * The Prometheus scrape (GET /metrics): off unless METRICS_TOKEN is set (then
   * served on the API port, bearer token required) or METRICS_PORT is (then a
   * second listener on METRICS_HOST serves only /metrics). Without a token that
   * listener is on a loopback address only (METRICS_HOST defaults to 127.0.0.1).
   */
  metrics: { token: string | null; port: number | null; host: string };
  /** The printed book: thickness of one page (half a sheet) in µm; a cover wrap's spine is the page count times it. */
  printPaperCaliperUm: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** The largest message the inbound mail takes: the upload ceiling (90 MB), so a video a plan allows fits with its encoding. */
export const MAIL_INBOUND_MAX_BYTES = 90 * 1024 * 1024;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads an optional `.env` beside the working directory; real environment variables win. */
export function readDotEnv(env: Env, file = path.resolve('.env')): Env {
  if (!existsSync(file)) return env;
  return { ...parseEnv(readFileSync(file, 'utf8')), ...env };
}

/** How the group parsers read the environment: trimmed strings, bounded whole numbers, and one list of problems. */
interface Reader {
  str(name: string): string | undefined;
  /** A whole number within the bounds the schema gives the variable (src/config/schema.ts). */
  int(name: string, fallback: number): number;
  problems: string[];
}

function reader(env: Env): Reader {
  const problems: string[] = [];
  const str = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number) => {
    const { min, max } = intBounds(name);
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}: expected a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };
  return { str, int, problems };
}

/**
 * Parses the environment into a Config. Every bad variable is collected and
 * reported together, one line each, naming the variable. Nothing is written:
 * without SECRET_KEY the secret is read from DATA_DIR/secret_key, or made in
 * memory until ensureSecretKey keeps it (at the start of a command that needs it).
 */
export function loadConfig(env: Env): Config {
  const r = reader(env);
  const { str, int, problems } = r;
  const nodeEnv = str('NODE_ENV') ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    problems.push(`NODE_ENV: expected development, production or test, got "${nodeEnv}"`);
  }
  const { http, shutdown, publicHost } = parseHttp(r);
  const dataDir = path.resolve(str('DATA_DIR') ?? './data');
  const database = parseDatabase(r);
  const logLevel = str('LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  const secretKey = str('SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) problems.push('SECRET_KEY: must be at least 32 characters');
  if (secretKey === undefined && nodeEnv === 'production') problems.push('SECRET_KEY: required when NODE_ENV=production');
  const smtpUrl = str('SMTP_URL') ?? null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) problems.push('SMTP_URL: expected an smtp:// or smtps:// URL');
  const mail = { smtpUrl, from: str('MAIL_FROM') ?? `Memory Book <no-reply@${publicHost || 'localhost'}>` };
  const backupErasureUrl = str('BACKUP_ERASURE_URL') ?? null;
  if (backupErasureUrl && !/^https?:\/\//.test(backupErasureUrl)) problems.push('BACKUP_ERASURE_URL: expected an http(s) URL');
  const backupErasureRetrySeconds = int('BACKUP_ERASURE_RETRY_SECONDS', 30);
  const webhookAllowPrivate = parseWebhookAllowPrivate(r);
  const limits = parseLimits(r);
  const storage = parseStorage(r);
  const media = parseMedia(r);
  const messaging = parseMessaging(str, problems, publicHost);
  const transcription = parseTranscription(str, int, problems);
  const push = parsePush(str, problems);
  const billing = { graceDays: int('BILLING_GRACE_DAYS', 14), stripe: parseStripe(str, problems) };
  const mailInbound = parseMailInbound(r, http.host);
  const printPaperCaliperUm = int('PRINT_PAPER_CALIPER_UM', 60);
  const metrics = parseMetrics(r, http);
  if (problems.length) throw new ConfigError(problems);

  const secret = secretKey === undefined ? readSecret(dataDir) : { key: secretKey, file: null };
  return deepFreeze({
    env: nodeEnv as Config['env'],
    http,
    shutdown,
    dataDir,
    database,
    secretKey: secret.key,
    secretKeyFile: secret.file,
    logLevel,
    mail,
    backupErasureUrl,
    backupErasureRetrySeconds,
    webhookAllowPrivate,
    storage,
    media,
    messaging,
    transcription,
    push,
    mailInbound,
    billing,
    limits,
    printPaperCaliperUm,
    metrics,
  } satisfies Config);
}

/** HTTP: where to listen, the public address, proxies, slow-client timeouts, and the shutdown's limits. */
function parseHttp({ str, int, problems }: Reader): { http: Config['http']; shutdown: Config['shutdown']; publicHost: string } {
  const port = int('PORT', 8000);
  const host = str('HOST') ?? '127.0.0.1';
  let publicUrl = str('PUBLIC_URL') ?? `http://localhost:${port}`;
  let publicOrigin = publicUrl;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    publicOrigin = u.origin;
    publicUrl = u.href.replace(/\/$/, '');
  } catch {
    problems.push(`PUBLIC_URL: expected an absolute http(s) URL, got "${publicUrl}"`);
  }
  const publicHost = safeHostname(publicUrl);
  // Browsers keep Secure cookies on https and on loopback hosts; a plain-http
  // public address elsewhere could never sign in, so only there is Secure dropped.
  const secureCookies = publicUrl.startsWith('https:') || ['localhost', '127.0.0.1', '[::1]'].includes(publicHost);

  // Behind a reverse proxy, client IPs (rate limits) come from X-Forwarded-For only for these hops.
  const trustProxyRaw = str('TRUST_PROXY');
  const trustProxy: boolean | string[] =
    trustProxyRaw === undefined || trustProxyRaw === 'false' ? false : trustProxyRaw === 'true' ? true : trustProxyRaw.split(',').map((x) => x.trim());

  // A client may not hold a connection by trickling bytes; uploads over slow links may need a longer request timeout.
  const headersMs = int('HTTP_HEADERS_TIMEOUT_MS', 10_000);
  const requestMs = int('HTTP_REQUEST_TIMEOUT_MS', 60_000);
  const keepAliveMs = int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000);
  const shutdown = { delayMs: int('SHUTDOWN_DELAY_SECONDS', 0) * 1000, timeoutMs: int('SHUTDOWN_TIMEOUT_SECONDS', 30) * 1000 };
  if (headersMs > requestMs) {
    problems.push(`HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestMs}), got "${headersMs}"`);
  }
  return { http: { host, port, publicUrl, publicOrigin, secureCookies, trustProxy, timeouts: { headersMs, requestMs, keepAliveMs } }, shutdown, publicHost };
}

/** DATABASE_*: PostgreSQL when DATABASE_URL is set, else the embedded PGlite. */
function parseDatabase({ str, int, problems }: Reader): Config['database'] {
  const url = str('DATABASE_URL') ?? null;
  if (url && !/^postgres(ql)?:\/\//.test(url)) problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL');
  const poolSize = int('DATABASE_POOL_SIZE', 10);
  const schema = str('DATABASE_SCHEMA') ?? null;
  if (schema && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) problems.push(`DATABASE_SCHEMA: expected a lower-case SQL identifier, got "${schema}"`);
  const pooler = str('DATABASE_POOLER') ?? 'none';
  if (pooler !== 'none' && pooler !== 'transaction') problems.push(`DATABASE_POOLER: expected none or transaction, got "${pooler}"`);
  return { kind: url ? 'postgres' : 'pglite', url, poolSize, schema, pooler: pooler as Config['database']['pooler'] };
}

/** WEBHOOK_ALLOW_PRIVATE, parsed once: the private ranges outbound webhooks may reach. */
function parseWebhookAllowPrivate({ str, problems }: Reader): PrivateAllowance {
  try {
    return parseAllowPrivate(str('WEBHOOK_ALLOW_PRIVATE') ?? '');
  } catch (err) {
    problems.push((err as Error).message);
    return parseAllowPrivate('');
  }
}

function parseLimits({ int }: Reader): Config['limits'] {
  return {
    signInAttempts: int('SIGN_IN_ATTEMPTS', 10),
    signInWindowSeconds: int('SIGN_IN_WINDOW_SECONDS', 900),
    submissionRateLimit: int('SUBMISSION_RATE_LIMIT', 30),
    submissionRateWindowSeconds: int('SUBMISSION_RATE_WINDOW_SECONDS', 3600),
    webFormRateLimit: int('WEB_FORM_RATE_LIMIT', 60),
    webFormRateWindowSeconds: int('WEB_FORM_RATE_WINDOW_SECONDS', 3600),
  };
}

/** STORAGE and S3_*: local disk under DATA_DIR/objects, or an S3-compatible store. */
function parseStorage({ str, problems }: Reader): Config['storage'] {
  const kind = str('STORAGE') ?? 'local';
  if (kind !== 'local' && kind !== 's3') problems.push(`STORAGE: expected local or s3, got "${kind}"`);
  if (kind !== 's3') return { kind: kind as 'local' | 's3', s3: null };
  const endpoint = str('S3_ENDPOINT') ?? null;
  if (endpoint && !/^https?:\/\//.test(endpoint)) problems.push('S3_ENDPOINT: expected an http(s) URL');
  const bucket = str('S3_BUCKET');
  if (!bucket) problems.push('S3_BUCKET: required when STORAGE=s3');
  const accessKeyId = str('S3_ACCESS_KEY_ID') ?? str('AWS_ACCESS_KEY_ID') ?? null;
  const secretAccessKey = str('S3_SECRET_ACCESS_KEY') ?? str('AWS_SECRET_ACCESS_KEY') ?? null;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither (neither uses the AWS default credential chain)');
  const pathStyle = str('S3_FORCE_PATH_STYLE') ?? (endpoint ? 'true' : 'false');
  if (pathStyle !== 'true' && pathStyle !== 'false') problems.push(`S3_FORCE_PATH_STYLE: expected true or false, got "${pathStyle}"`);
  return {
    kind: 's3',
    s3: { endpoint, bucket: bucket ?? '', region: str('S3_REGION') ?? str('AWS_REGION') ?? 'us-east-1', accessKeyId, secretAccessKey, forcePathStyle: pathStyle === 'true' },
  };
}

/** FFMPEG_PATH, FFPROBE_PATH, CLAMAV_*. */
function parseMedia({ str, int }: Reader): Config['media'] {
  const clamavHost = str('CLAMAV_HOST') ?? null;
  const clamavPort = int('CLAMAV_PORT', 3310);
  const clamavTimeoutMs = int('CLAMAV_TIMEOUT_MS', 60_000);
  return {
    ffmpegPath: str('FFMPEG_PATH') ?? null,
    ffprobePath: str('FFPROBE_PATH') ?? null,
    clamav: clamavHost ? { host: clamavHost, port: clamavPort, timeoutMs: clamavTimeoutMs } : null,
  };
}

/** SMTP_INBOUND_* and INBOUND_EMAIL_*: the SMTP receiver and the inbound mail webhook. */
function parseMailInbound({ str, int, problems }: Reader, host: string): Config['mailInbound'] {
  const port = str('SMTP_INBOUND_PORT') === undefined ? null : int('SMTP_INBOUND_PORT', 2525);
  const tlsKeyPath = str('SMTP_INBOUND_TLS_KEY') ?? null;
  const tlsCertPath = str('SMTP_INBOUND_TLS_CERT') ?? null;
  if (Boolean(tlsKeyPath) !== Boolean(tlsCertPath)) problems.push('SMTP_INBOUND_TLS_KEY and SMTP_INBOUND_TLS_CERT: set both or neither');
  for (const [name, file] of [['SMTP_INBOUND_TLS_KEY', tlsKeyPath], ['SMTP_INBOUND_TLS_CERT', tlsCertPath]] as const) {
    if (file && !existsSync(file)) problems.push(`${name}: no such file "${file}"`);
  }
  const secret = str('INBOUND_EMAIL_SECRET') ?? null;
  if (secret !== null && secret.length < 16) problems.push('INBOUND_EMAIL_SECRET: must be at least 16 characters');
  // Without it a forged Authentication-Results field written by the sender could pass for the provider's verdict.
  const authservId = str('INBOUND_EMAIL_AUTHSERV_ID')?.toLowerCase() ?? null;
  if (secret !== null && authservId === null) {
    problems.push("INBOUND_EMAIL_AUTHSERV_ID: required with INBOUND_EMAIL_SECRET (the authserv-id your inbound mail provider writes first in its Authentication-Results header, such as mx.provider.example)");
  }
  if (authservId !== null && !/^[a-z0-9][a-z0-9.-]*$/.test(authservId)) problems.push(`INBOUND_EMAIL_AUTHSERV_ID: expected a host name, got "${authservId}"`);
  return {
    port,
    host: str('SMTP_INBOUND_HOST') ?? host,
    tls: tlsKeyPath && tlsCertPath ? { keyPath: path.resolve(tlsKeyPath), certPath: path.resolve(tlsCertPath) } : null,
    webhookSecret: secret,
    webhookAuthservId: secret === null ? null : authservId,
    webhookAllowedCidrs: parseCidrs(str('INBOUND_EMAIL_ALLOWED_CIDRS'), problems),
    maxBytes: MAIL_INBOUND_MAX_BYTES,
  };
}

/** INBOUND_EMAIL_ALLOWED_CIDRS, parsed once: null when unset. */
function parseCidrs(raw: string | undefined, problems: string[]): Config['mailInbound']['webhookAllowedCidrs'] {
  if (raw === undefined) return null;
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const part of raw.split(',').map((c) => c.trim()).filter(Boolean)) {
    try {
      ranges.push(ipaddr.parseCIDR(part));
    } catch {
      problems.push(`INBOUND_EMAIL_ALLOWED_CIDRS: "${part}" is not a CIDR range (such as 203.0.113.0/24 or 2001:db8::/32)`);
    }
  }
  if (!ranges.length) problems.push('INBOUND_EMAIL_ALLOWED_CIDRS: set, but names no range');
  return ranges;
}

/** METRICS_*: the Prometheus scrape, off unless a token or a port is set. */
function parseMetrics({ str, int, problems }: Reader, http: { port: number; host: string }): Config['metrics'] {
  const token = str('METRICS_TOKEN') ?? null;
  if (token !== null && token.length < 16) problems.push('METRICS_TOKEN: must be at least 16 characters');
  if (token !== null && /\s/.test(token)) problems.push('METRICS_TOKEN: must not contain spaces');
  const port = str('METRICS_PORT') === undefined ? null : int('METRICS_PORT', 9464);
  if (port !== null && port !== 0 && port === http.port) problems.push(`METRICS_PORT: must differ from PORT (${http.port})`);
  // Without a token the scrape answers anyone who reaches it: only this machine, unless the operator sets a token.
  const host = str('METRICS_HOST') ?? (token === null ? '127.0.0.1' : http.host);
  if (port !== null && token === null && !isLoopbackHost(host)) {
    problems.push(`METRICS_HOST: "${host}" is not a loopback address; set METRICS_TOKEN to serve /metrics there (scrapers then send it as a bearer token), or listen on 127.0.0.1`);
  }
  return { token, port, host };
}

/** A group of variables set all together or not at all (null when none is set; a problem when only some are). */
function allOrNone<K extends string>(str: (name: string) => string | undefined, problems: string[], names: Record<K, string>): Record<K, string> | null {
  const values = Object.fromEntries(Object.entries<string>(names).map(([k, env]) => [k, str(env)])) as Record<K, string | undefined>;
  const set = Object.values(values).filter((v) => v !== undefined).length;
  if (set === 0) return null;
  if (set < Object.keys(names).length) {
    problems.push(`${Object.values(names).join(', ')}: set all of them or none`);
    return null;
  }
  return values as Record<K, string>;
}

/** An http(s) base URL from `name` (or the fallback), without its trailing slashes; a problem when it is not one. */
function httpUrl(str: (name: string) => string | undefined, problems: string[], name: string, fallback: string): string {
  const v = str(name) ?? fallback;
  if (!/^https?:\/\/[^\s]+$/.test(v)) problems.push(`${name}: expected an http(s) URL, got "${v}"`);
  return v.replace(/\/+$/, '');
}

/**
 * The messaging providers: each one all-or-nothing, so a half-configured
 * channel is a start-up error rather than a channel that fails at run time.
 */
function parseMessaging(str: (name: string) => string | undefined, problems: string[], publicHost: string): Config['messaging'] {
  const group = <K extends string>(names: Record<K, string>) => allOrNone(str, problems, names);
  const url = (name: string, fallback: string) => httpUrl(str, problems, name, fallback);

  const phoneRegion = (str('INVITATION_PHONE_REGION') ?? 'US').toUpperCase();
  // The default needs no check, and then no phone library at start (see phoneNumbers).
  if (phoneRegion !== 'US' && !phoneNumbers().isSupportedCountry(phoneRegion)) problems.push(`INVITATION_PHONE_REGION: expected a two-letter region code such as US or GB, got "${phoneRegion}"`);
  const inboundMailDomain = (str('MAIL_INBOUND_DOMAIN') ?? (publicHost || 'localhost')).toLowerCase();
  if (!/^[a-z0-9.-]+$/.test(inboundMailDomain)) problems.push(`MAIL_INBOUND_DOMAIN: expected a domain name, got "${inboundMailDomain}"`);

  const twilioApiBase = url('TWILIO_API_BASE', 'https://api.twilio.com');
  const twilio = group({ accountSid: 'TWILIO_ACCOUNT_SID', authToken: 'TWILIO_AUTH_TOKEN', fromNumber: 'TWILIO_FROM_NUMBER' });
  if (twilio && !/^\+[1-9]\d{6,14}$/.test(twilio.fromNumber)) problems.push(`TWILIO_FROM_NUMBER: expected an E.164 number such as +15551234567, got "${twilio.fromNumber}"`);
  const telegramApiBase = url('TELEGRAM_API_BASE', 'https://api.telegram.org');
  const telegram = group({ botUsername: 'TELEGRAM_BOT_USERNAME', botToken: 'TELEGRAM_BOT_TOKEN' });
  if (telegram) {
    telegram.botUsername = telegram.botUsername.replace(/^@/, '');
    if (!/^[A-Za-z][A-Za-z0-9_]{3,31}$/.test(telegram.botUsername)) problems.push(`TELEGRAM_BOT_USERNAME: expected a bot username such as memorybook_bot, got "${telegram.botUsername}"`);
  }
  // Telegram allows 1 to 256 of A-Z, a-z, 0-9, _ and - in a webhook's secret_token.
  const telegramWebhookSecret = str('TELEGRAM_WEBHOOK_SECRET') ?? null;
  if (telegramWebhookSecret !== null && !/^[A-Za-z0-9_-]{1,256}$/.test(telegramWebhookSecret)) {
    problems.push('TELEGRAM_WEBHOOK_SECRET: expected 1 to 256 letters, digits, _ or -');
  }
  if (telegramWebhookSecret !== null && !telegram) problems.push('TELEGRAM_WEBHOOK_SECRET: needs TELEGRAM_BOT_USERNAME and TELEGRAM_BOT_TOKEN');
  const whatsappApiBase = url('WHATSAPP_API_BASE', 'https://graph.facebook.com/v21.0');
  const whatsapp = group({
    phoneNumber: 'WHATSAPP_PHONE_NUMBER',
    accessToken: 'WHATSAPP_ACCESS_TOKEN',
    phoneNumberId: 'WHATSAPP_PHONE_NUMBER_ID',
    appSecret: 'WHATSAPP_APP_SECRET',
    verifyToken: 'WHATSAPP_VERIFY_TOKEN',
  });
  if (whatsapp && !/^\+[1-9]\d{6,14}$/.test(whatsapp.phoneNumber)) problems.push(`WHATSAPP_PHONE_NUMBER: expected an E.164 number, got "${whatsapp.phoneNumber}"`);
  if (whatsapp && !/^\d{1,32}$/.test(whatsapp.phoneNumberId)) problems.push(`WHATSAPP_PHONE_NUMBER_ID: expected the numeric id Meta shows for the number, got "${whatsapp.phoneNumberId}"`);
  const whatsappTemplate = str('WHATSAPP_INVITATION_TEMPLATE') ?? null;
  if (whatsappTemplate !== null && !/^[a-z0-9_]{1,512}$/.test(whatsappTemplate)) problems.push(`WHATSAPP_INVITATION_TEMPLATE: expected a template name (lower-case letters, digits, _), got "${whatsappTemplate}"`);
  const whatsappLanguage = str('WHATSAPP_TEMPLATE_LANGUAGE') ?? 'en_US';
  if (!/^[a-z]{2,3}(_[A-Z]{2})?$/.test(whatsappLanguage)) problems.push(`WHATSAPP_TEMPLATE_LANGUAGE: expected a language code such as en_US, got "${whatsappLanguage}"`);
  if (whatsappTemplate !== null && !whatsapp) {
    problems.push('WHATSAPP_INVITATION_TEMPLATE: needs WHATSAPP_PHONE_NUMBER, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN, WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN');
  }
  return {
    phoneRegion,
    inboundMailDomain,
    twilio: twilio && { ...twilio, apiBase: twilioApiBase },
    telegram: telegram && { ...telegram, apiBase: telegramApiBase, webhookSecret: telegramWebhookSecret },
    rcs: group({ agentId: 'RCS_AGENT_ID', apiKey: 'RCS_API_KEY' }),
    imessage: group({ businessId: 'IMESSAGE_BUSINESS_ID', apiToken: 'IMESSAGE_API_TOKEN' }),
    whatsapp: whatsapp && { ...whatsapp, apiBase: whatsappApiBase, invitationTemplate: whatsappTemplate, templateLanguage: whatsappLanguage },
  };
}

/** TRANSCRIPTION_*: on when TRANSCRIPTION_URL is set. */
function parseTranscription(
  str: (name: string) => string | undefined,
  int: (name: string, fallback: number) => number,
  problems: string[],
): Config['transcription'] {
  const url = str('TRANSCRIPTION_URL');
  const retrySeconds = int('TRANSCRIPTION_RETRY_SECONDS', 30);
  const maxAttempts = int('TRANSCRIPTION_MAX_ATTEMPTS', 6);
  const timeoutSeconds = int('TRANSCRIPTION_TIMEOUT_SECONDS', 1800);
  if (url === undefined) {
    for (const name of ['TRANSCRIPTION_API_KEY', 'TRANSCRIPTION_MODEL']) if (str(name) !== undefined) problems.push(`${name}: needs TRANSCRIPTION_URL`);
    return null;
  }
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    problems.push(`TRANSCRIPTION_URL: expected an http(s) URL such as https://api.openai.com, got "${url}"`);
  }
  // The endpoint is {TRANSCRIPTION_URL}/v1/audio/transcriptions; a URL given with its /v1 works too.
  const base = url.replace(/\/+$/, '').replace(/\/v1$/, '');
  return { url: base, apiKey: str('TRANSCRIPTION_API_KEY') ?? null, model: str('TRANSCRIPTION_MODEL') ?? 'whisper-1', retrySeconds, maxAttempts, timeoutSeconds };
}

/** WEB_PUSH_*, FCM_*, APNS_*: each provider all or nothing. */
function parsePush(str: (name: string) => string | undefined, problems: string[]): Config['push'] {
  const group = <K extends string>(names: Record<K, string>) => allOrNone(str, problems, names);
  const base = (name: string, fallback: string) => httpUrl(str, problems, name, fallback);
  const webPush = group({ publicKey: 'WEB_PUSH_VAPID_PUBLIC_KEY', privateKey: 'WEB_PUSH_VAPID_PRIVATE_KEY', subject: 'WEB_PUSH_SUBJECT' });
  if (webPush) {
    if (!/^(mailto:|https:\/\/)\S+$/.test(webPush.subject)) problems.push(`WEB_PUSH_SUBJECT: expected a mailto: or https: contact, got "${webPush.subject}"`);
    if (!/^[A-Za-z0-9_-]{87}$/.test(webPush.publicKey)) problems.push('WEB_PUSH_VAPID_PUBLIC_KEY: expected an uncompressed P-256 public key, URL-safe base64 (87 characters; `npx web-push generate-vapid-keys` makes a pair)');
    if (!/^[A-Za-z0-9_-]{43}$/.test(webPush.privateKey)) problems.push('WEB_PUSH_VAPID_PRIVATE_KEY: expected a P-256 private key, URL-safe base64 (43 characters)');
  }
  const fcmGroup = group({ projectId: 'FCM_PROJECT_ID', serviceAccountFile: 'FCM_SERVICE_ACCOUNT_FILE' });
  if (fcmGroup && !existsSync(fcmGroup.serviceAccountFile)) problems.push(`FCM_SERVICE_ACCOUNT_FILE: no such file "${fcmGroup.serviceAccountFile}"`);
  const fcmBase = base('FCM_API_BASE', 'https://fcm.googleapis.com');
  const apnsGroup = group({ keyFile: 'APNS_KEY_FILE', keyId: 'APNS_KEY_ID', teamId: 'APNS_TEAM_ID', topic: 'APNS_TOPIC', environment: 'APNS_ENVIRONMENT' });
  let apns: Config['push']['apns'] = null;
  if (apnsGroup) {
    if (apnsGroup.environment !== 'production' && apnsGroup.environment !== 'sandbox') problems.push(`APNS_ENVIRONMENT: expected production or sandbox, got "${apnsGroup.environment}"`);
    if (!existsSync(apnsGroup.keyFile)) problems.push(`APNS_KEY_FILE: no such file "${apnsGroup.keyFile}"`);
    const environment = apnsGroup.environment === 'sandbox' ? 'sandbox' : 'production';
    const apiBase = base('APNS_API_BASE', environment === 'sandbox' ? 'https://api.sandbox.push.apple.com' : 'https://api.push.apple.com');
    apns = { ...apnsGroup, environment, apiBase };
  }
  return { webPush, fcm: fcmGroup && { ...fcmGroup, apiBase: fcmBase }, apns };
}

/** Stripe: the secret key, the webhook signing secret and a price per plan sold, all or none. */
function parseStripe(str: (name: string) => string | undefined, problems: string[]): Config['billing']['stripe'] {
  const secretKey = str('STRIPE_SECRET_KEY');
  const webhookSecret = str('STRIPE_WEBHOOK_SECRET');
  const pricesText = str('STRIPE_PRICES');
  const set = [secretKey, webhookSecret, pricesText].filter((v) => v !== undefined).length;
  if (set === 0) return null;
  if (set < 3) {
    problems.push('STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICES: set all of them or none');
    return null;
  }
  const prices: Record<string, string> = {};
  for (const pair of pricesText!.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z0-9][a-z0-9_-]*)=(price_[A-Za-z0-9_]+)$/.exec(pair);
    if (!m) {
      problems.push(`STRIPE_PRICES: expected plan=price_id pairs separated by commas (plus=price_123,premium=price_456), got "${pair}"`);
      continue;
    }
    prices[m[1]] = m[2];
  }
  const base = str('STRIPE_API_BASE') ?? 'https://api.stripe.com';
  let api: { protocol: 'http' | 'https'; host: string; port: number } = { protocol: 'https', host: 'api.stripe.com', port: 443 };
  try {
    const u = new URL(base);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.pathname !== '/' || u.search) throw new Error('not a base');
    const protocol = u.protocol === 'http:' ? 'http' : 'https';
    api = { protocol, host: u.hostname, port: u.port ? Number(u.port) : protocol === 'http' ? 80 : 443 };
  } catch {
    problems.push(`STRIPE_API_BASE: expected an http(s) origin such as https://api.stripe.com, got "${base}"`);
  }
  return { secretKey: secretKey!, webhookSecret: webhookSecret!, prices, api };
}

function safeHostname(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** Without SECRET_KEY: the one kept in DATA_DIR/secret_key, read only; or, before the first start, one made in memory (ensureSecretKey keeps it). */
function readSecret(dataDir: string): { key: string; file: string } {
  const file = path.join(dataDir, 'secret_key');
  return { key: existsSync(file) ? readFileSync(file, 'utf8').trim() : randomBytes(48).toString('base64url'), file };
}

/**
 * The explicit step that keeps a generated SECRET_KEY in DATA_DIR/secret_key
 * (mode 0600), so sessions, cursors and keys survive restarts: run by the
 * commands that serve or write (see src/cli/main.ts), never while loading.
 * Answers the configuration with the secret kept on disk (another process
 * that started at the same moment may have written it first).
 */
export function ensureSecretKey(config: Config): Config {
  const file = config.secretKeyFile;
  if (file === null || existsSync(file)) return config;
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, config.secretKey + '\n', { mode: 0o600, flag: 'wx' });
    return config;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return deepFreeze({ ...config, secretKey: readFileSync(file, 'utf8').trim() });
  }
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** A loopback address or name: 127.0.0.0/8, ::1, localhost. */
function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}
