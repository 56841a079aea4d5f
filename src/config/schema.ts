/**
 * The configuration's schema: every environment variable the service reads,
 * grouped (HTTP, database, storage, mail, channels, billing, exports, push,
 * transcription, …), each with its type (TypeBox), its default and a line of
 * meaning. loadConfig (config.ts) reads the whole-number bounds from here;
 * the README's configuration table is generated from it (`npm run
 * docs:config`) and test/cli/config-docs.test.ts fails when it is stale or
 * when config.ts reads a variable that is not here.
 */
import { Type, type TSchema } from '@sinclair/typebox';

/** The types a variable can have, as read from its text. */
const v = {
  int: (minimum: number, maximum: number) => Type.Integer({ minimum, maximum }),
  oneOf: (...values: string[]) => Type.Union(values.map((x) => Type.Literal(x))),
  url: () => Type.String({ format: 'uri' }),
  path: () => Type.String({ 'x-kind': 'path' }),
  list: () => Type.String({ 'x-kind': 'list' }),
  secret: () => Type.String({ 'x-kind': 'secret' }),
  text: () => Type.String(),
};

export type ConfigGroup =
  | 'http'
  | 'process'
  | 'database'
  | 'mail'
  | 'mail_inbound'
  | 'limits'
  | 'deletion'
  | 'webhooks'
  | 'channels'
  | 'transcription'
  | 'push'
  | 'billing'
  | 'storage'
  | 'media'
  | 'exports'
  | 'metrics'
  | 'tracing';

/** One row of the table: variables documented together (a provider's set, a limit and its window). */
export interface ConfigRow {
  group: ConfigGroup;
  vars: Record<string, TSchema>;
  /** How the variables are named in the table, when not simply listed. */
  label?: string;
  default: string;
  meaning: string;
}

/** Every variable, in the README's order. */
export const CONFIG_ROWS: ConfigRow[] = [
  {
    group: 'http',
    vars: { PORT: v.int(0, 65535) },
    default: "`8000`",
    meaning: "HTTP port",
  },
  {
    group: 'http',
    vars: { HOST: v.text() },
    default: "`127.0.0.1`",
    meaning: "Address to listen on (`0.0.0.0` for all interfaces)",
  },
  {
    group: 'http',
    vars: { PUBLIC_URL: v.url() },
    default: "`http://localhost:$PORT`",
    meaning: "The address clients use; links, checkout hints. Browser sessions are accepted only from exactly this origin (CSRF check)",
  },
  {
    group: 'http',
    vars: { TRUST_PROXY: v.list() },
    default: "`false`",
    meaning: "`true`, or a comma list of proxy addresses/CIDRs, to take client IPs from `X-Forwarded-For` (rate limits are per IP)",
  },
  {
    group: 'http',
    vars: { HTTP_HEADERS_TIMEOUT_MS: v.int(100, 600_000) },
    default: "`10000`",
    meaning: "Time a client has to send the request line and headers; slower clients get `408 request_timeout` and the connection closes. At most `HTTP_REQUEST_TIMEOUT_MS`",
  },
  {
    group: 'http',
    vars: { HTTP_REQUEST_TIMEOUT_MS: v.int(100, 86_400_000) },
    default: "`60000`",
    meaning: "Time a client has to send the whole request, body included (raise it for large uploads over slow links); also how long a connection may stay silent",
  },
  {
    group: 'http',
    vars: { HTTP_KEEP_ALIVE_TIMEOUT_MS: v.int(100, 600_000) },
    default: "`5000`",
    meaning: "How long an idle keep-alive connection stays open between requests (announced as `Keep-Alive: timeout=`; Node closes about a second later, so a client never reuses a closing connection)",
  },
  {
    group: 'http',
    vars: { SHUTDOWN_DELAY_SECONDS: v.int(0, 600) },
    default: "`0`",
    meaning: "After SIGTERM, how long the process keeps taking requests while `/readyz` answers `503`, so a balancer that polls it stops routing here first (see [Rolling restarts](#rolling-restarts))",
  },
  {
    group: 'http',
    vars: { SHUTDOWN_TIMEOUT_SECONDS: v.int(1, 3600) },
    default: "`30`",
    meaning: "After that, how long requests in flight and then running jobs get to finish, all told; past it their connections are cut and the jobs are failed for a retry elsewhere",
  },
  {
    group: 'database',
    vars: { DATA_DIR: v.path() },
    default: "`./data`",
    meaning: "Embedded database, generated secret, mail outbox, local file storage",
  },
  {
    group: 'database',
    vars: { DATABASE_URL: v.url() },
    default: "unset",
    meaning: "`postgres://\u2026` to use PostgreSQL; unset runs embedded PGlite in `DATA_DIR/pglite`",
  },
  {
    group: 'database',
    vars: { DATABASE_SCHEMA: v.text() },
    default: "unset",
    meaning: "Keep all tables in this PostgreSQL schema (search_path)",
  },
  {
    group: 'database',
    vars: { DATABASE_POOL_SIZE: v.int(1, 200) },
    default: "`10`",
    meaning: "PostgreSQL connections per process",
  },
  {
    group: 'database',
    vars: { DATABASE_POOLER: v.oneOf("none", "transaction") },
    default: "`none`",
    meaning: "`transaction` when `DATABASE_URL` points at a pooler in transaction mode (PgBouncer's `pool_mode = transaction`, 1.18 included, which keeps neither prepared statements nor session settings): statements go unnamed, the time zone travels as a startup parameter PgBouncer carries, `DATABASE_SCHEMA` is set with `SET LOCAL` in each transaction, and nothing relies on the session (all locks, the migrations' included, are transaction-level; nothing LISTENs). Migrations run through the pooler too; no direct URL is needed. With `DATABASE_SCHEMA`, a statement outside a transaction runs in one of its own (two more round trips) unless the role's own `search_path` leads to the schema (`ALTER ROLE \u2026 SET search_path = \u2026`), checked once. Without it, PgBouncer refuses the connection (`unsupported startup parameter: options`), or, if told to ignore `options`, fails on prepared statements",
  },
  {
    group: 'process',
    vars: { SECRET_KEY: v.secret() },
    default: "generated",
    meaning: "Signs cursors and URLs. Unset: generated once and kept in `DATA_DIR/secret_key`. Required when `NODE_ENV=production` (at least 32 characters)",
  },
  {
    group: 'process',
    vars: { NODE_ENV: v.oneOf("development", "production", "test") },
    default: "`development`",
    meaning: "`production` makes `SECRET_KEY` mandatory",
  },
  {
    group: 'process',
    vars: { LOG_LEVEL: v.oneOf("fatal", "error", "warn", "info", "debug", "trace", "silent") },
    default: "`info`",
    meaning: "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`",
  },
  {
    group: 'mail',
    vars: { SMTP_URL: v.url() },
    default: "unset",
    meaning: "`smtp://user:pass@host:587` sends mail over SMTP; unset writes `.eml` files to `DATA_DIR/outbox`",
  },
  {
    group: 'mail',
    vars: { MAIL_FROM: v.text() },
    default: "`Memory Book <no-reply@host>`",
    meaning: "Sender address",
  },
  {
    group: 'limits',
    vars: { SIGN_IN_ATTEMPTS: v.int(1, 100000), SIGN_IN_WINDOW_SECONDS: v.int(1, 86400) },
    default: "`10`, `900`",
    meaning: "Web sign-in attempts allowed in the window per client: per trusted browser (device cookie), else per IP and per IP and email (see [Accounts](#accounts-and-contributor-forms)); also sign-ups per IP",
  },
  {
    group: 'limits',
    vars: { SUBMISSION_RATE_LIMIT: v.int(1, 10_000_000), SUBMISSION_RATE_WINDOW_SECONDS: v.int(1, 86400) },
    default: "`30`, `3600`",
    meaning: "Submission creates per (user, IP) in the window",
  },
  {
    group: 'deletion',
    vars: { BACKUP_ERASURE_URL: v.url() },
    default: "unset",
    meaning: "Endpoint that erases off-site backups on deletion (`POST {kind, id}`, any 2xx = erased); unset means nothing to erase",
  },
  {
    group: 'deletion',
    vars: { BACKUP_ERASURE_RETRY_SECONDS: v.int(1, 86400) },
    default: "`30`",
    meaning: "First wait before retrying that endpoint; doubles each time",
  },
  {
    group: 'webhooks',
    vars: { WEBHOOK_ALLOW_PRIVATE: v.list() },
    default: "unset",
    meaning: "Address ranges outbound webhooks may reach besides public addresses: comma-separated CIDRs (or single addresses), or `*` for all; plain `http` URLs are allowed only to these. Unset: webhook URLs must be `https` and resolve only to public addresses (no private, loopback, link-local or metadata ranges), checked when set and at every delivery. Webhook deliveries are sent by the worker (`memorybook worker`, or `serve` with its worker)",
  },
  {
    group: 'channels',
    vars: { INVITATION_PHONE_REGION: v.text() },
    default: "`US`",
    meaning: "Region for invited phone numbers written without a country code (they are stored in E.164)",
  },
  {
    group: 'channels',
    vars: { MAIL_INBOUND_DOMAIN: v.text() },
    default: "the public host",
    meaning: "Books' contributor-facing mail addresses are at this domain: `<slug>@` (the `email` row of `GET /books/{slug}/channels/` shows the address). Point its MX record at the SMTP receiver, or at an inbound mail provider",
  },
  {
    group: 'mail_inbound',
    vars: { SMTP_INBOUND_PORT: v.int(0, 65535), SMTP_INBOUND_HOST: v.text() },
    default: "unset, `HOST`",
    meaning: "The built-in SMTP receiver for the books' addresses: `serve` starts it when the port is set; `memorybook mail-inbound` listens on it (default `2525`). Inbound mail is on (the `email` channel configured) when this or `INBOUND_EMAIL_SECRET` is set",
  },
  {
    group: 'mail_inbound',
    vars: { SMTP_INBOUND_TLS_KEY: v.path(), SMTP_INBOUND_TLS_CERT: v.path() },
    default: "unset (both or none)",
    meaning: "PEM files: with them the receiver offers STARTTLS",
  },
  {
    group: 'mail_inbound',
    vars: { INBOUND_EMAIL_AUTHSERV_ID: v.text() },
    default: "unset; **required** with `INBOUND_EMAIL_SECRET`",
    meaning: "The authserv-id the inbound mail provider writes first in its `Authentication-Results` (e.g. `mx.postmarkapp.com`): only that field's SPF/DKIM/DMARC verdicts are believed; any other may be the sender's own. A message without such a field has no verdicts (`none`). The service refuses to start with the secret set and this unset",
  },
  {
    group: 'mail_inbound',
    vars: { INBOUND_EMAIL_SECRET: v.secret() },
    default: "unset",
    meaning: "Turns on `POST PUBLIC_URL/webhooks/email/` for an inbound mail provider's raw-MIME forward (at least 16 characters; needs `INBOUND_EMAIL_AUTHSERV_ID`): the body is the RFC 5322 message, signed `X-Memorybook-Signature: sha256=<hex HMAC-SHA256 of the body under this secret>`. Refused signatures slow their client down (one body at a time, 1 s per refusal), never lock it out",
  },
  {
    group: 'mail_inbound',
    vars: { INBOUND_EMAIL_ALLOWED_CIDRS: v.list() },
    default: "unset (any address)",
    meaning: "Comma-separated CIDR ranges the inbound webhook takes requests from (e.g. the provider's published ranges, `203.0.113.0/24,2001:db8::/32`); any other address is answered `403` before its body is read, and the listed ones skip the per-client limits. The client address is the one `TRUST_PROXY` gives",
  },
  {
    group: 'channels',
    vars: { TWILIO_ACCOUNT_SID: v.text(), TWILIO_AUTH_TOKEN: v.secret(), TWILIO_FROM_NUMBER: v.text(), TWILIO_API_BASE: v.url() },
    default: "unset (all or none), `https://api.twilio.com`",
    meaning: "SMS through a Twilio-compatible API (invitations, notifications)",
  },
  {
    group: 'channels',
    vars: { TELEGRAM_BOT_USERNAME: v.text(), TELEGRAM_BOT_TOKEN: v.secret(), TELEGRAM_API_BASE: v.url() },
    default: "unset (both or none), `https://api.telegram.org`",
    meaning: "The Telegram bot (deep links, messages)",
  },
  {
    group: 'channels',
    vars: { WHATSAPP_PHONE_NUMBER: v.text(), WHATSAPP_PHONE_NUMBER_ID: v.text(), WHATSAPP_ACCESS_TOKEN: v.secret(), WHATSAPP_APP_SECRET: v.secret(), WHATSAPP_VERIFY_TOKEN: v.secret() },
    default: "unset (all or none)",
    meaning: "WhatsApp through the WhatsApp Business Cloud API: the number contributors write to (E.164), its phone number id, a system user's access token, the app secret (checks `X-Hub-Signature-256` on `PUBLIC_URL/webhooks/whatsapp/`, 403 otherwise) and the verify token (Meta's subscription handshake on the same URL). Subscribe the app to the `messages` field",
  },
  {
    group: 'channels',
    vars: { WHATSAPP_API_BASE: v.url() },
    default: "`https://graph.facebook.com/v21.0`",
    meaning: "The Cloud API's base URL (messages and the media endpoint)",
  },
  {
    group: 'channels',
    vars: { WHATSAPP_INVITATION_TEMPLATE: v.text(), WHATSAPP_TEMPLATE_LANGUAGE: v.text() },
    default: "unset, `en_US`",
    meaning: "An approved message template for invitations to a phone number (WhatsApp lets a business write first only with a template); its body's `{{1}}` is who invites, `{{2}}` the book's title, `{{3}}` the link. Unset: no invitations over WhatsApp",
  },
  {
    group: 'channels',
    vars: { RCS_AGENT_ID: v.text(), RCS_API_KEY: v.secret(), IMESSAGE_BUSINESS_ID: v.text(), IMESSAGE_API_TOKEN: v.secret() },
    label: "`RCS_AGENT_ID`/`RCS_API_KEY`, `IMESSAGE_BUSINESS_ID`/`IMESSAGE_API_TOKEN`",
    default: "unset (each pair both or none)",
    meaning: "Kept for a future adapter; the `rcs` and `imessage` channels stay `platform_configured: false` whatever is set, since nothing sends or receives over them yet (RCS would come through Google's RBM API or a CPaaS such as Twilio or Sinch, Apple Messages for Business through an Apple-approved messaging service provider)",
  },
  {
    group: 'channels',
    vars: { TELEGRAM_WEBHOOK_SECRET: v.secret() },
    default: "unset",
    meaning: "The `secret_token` given to Telegram's `setWebhook` for `PUBLIC_URL/webhooks/telegram/`; updates without it in `X-Telegram-Bot-Api-Secret-Token` get 403 (unset: every update is refused). Point a Twilio number's incoming-message webhook (HTTP POST) at `PUBLIC_URL/webhooks/twilio/sms/`: `X-Twilio-Signature` is checked with `TWILIO_AUTH_TOKEN` against that exact URL",
  },
  {
    group: 'transcription',
    vars: { TRANSCRIPTION_URL: v.url() },
    default: "unset",
    meaning: "An OpenAI-compatible transcription endpoint's base URL: the worker calls `POST {TRANSCRIPTION_URL}/v1/audio/transcriptions` (OpenAI `https://api.openai.com`, whisper.cpp's server, faster-whisper servers, LocalAI). Unset: `POST \u2026/transcription/` answers `409 transcription_unavailable`. See Transcription below",
  },
  {
    group: 'transcription',
    vars: { TRANSCRIPTION_API_KEY: v.secret(), TRANSCRIPTION_MODEL: v.text() },
    default: "unset, `whisper-1`",
    meaning: "The bearer key (unset: no `Authorization` header, for a server on your own machines) and the model name the endpoint takes (`whisper-1`, `gpt-4o-transcribe`, a whisper.cpp or LocalAI model name)",
  },
  {
    group: 'transcription',
    vars: { TRANSCRIPTION_RETRY_SECONDS: v.int(0, 3600), TRANSCRIPTION_MAX_ATTEMPTS: v.int(1, 20), TRANSCRIPTION_TIMEOUT_SECONDS: v.int(10, 21_600) },
    default: "`30`, `6`, `1800`",
    meaning: "A provider failure (429, 5xx, no answer) is tried again after this wait, doubled each time, or the provider's `Retry-After` when longer (at most an hour); after this many calls the transcription is `failed`. One call may take at most the timeout",
  },
  {
    group: 'push',
    vars: { WEB_PUSH_VAPID_PUBLIC_KEY: v.text(), WEB_PUSH_VAPID_PRIVATE_KEY: v.secret(), WEB_PUSH_SUBJECT: v.text() },
    default: "unset (all or none)",
    meaning: "Web Push with VAPID: a P-256 key pair in URL-safe base64 (`npx web-push generate-vapid-keys`) and a `mailto:` or `https:` contact the push services may write to. The public key is `web_push_public_key` in `GET /me/devices/`. See Push below",
  },
  {
    group: 'push',
    vars: { FCM_PROJECT_ID: v.text(), FCM_SERVICE_ACCOUNT_FILE: v.path(), FCM_API_BASE: v.url() },
    default: "unset (both or none), `https://fcm.googleapis.com`",
    meaning: "Android push through FCM HTTP v1: the Firebase project id and a service account key file (JSON, with the Firebase Cloud Messaging API Admin role); tokens are minted at the file's `token_uri`",
  },
  {
    group: 'push',
    vars: { APNS_KEY_FILE: v.path(), APNS_KEY_ID: v.text(), APNS_TEAM_ID: v.text(), APNS_TOPIC: v.text(), APNS_ENVIRONMENT: v.oneOf("production", "sandbox"), APNS_API_BASE: v.url() },
    default: "unset (all five or none), by environment",
    meaning: "iPhone push through APNs token auth (HTTP/2): the `.p8` signing key, its key id, your team id, the app's bundle id, and `production` or `sandbox` (`https://api.push.apple.com` or `https://api.sandbox.push.apple.com` unless `APNS_API_BASE` says otherwise)",
  },
  {
    group: 'billing',
    vars: { STRIPE_SECRET_KEY: v.secret(), STRIPE_WEBHOOK_SECRET: v.secret(), STRIPE_PRICES: v.text() },
    default: "unset (all or none)",
    meaning: "Sell book slots through Stripe (see Billing below). `STRIPE_PRICES` maps each plan sold to its recurring Stripe price: `plus=price_123,premium=price_456`",
  },
  {
    group: 'billing',
    vars: { STRIPE_API_BASE: v.url() },
    default: "`https://api.stripe.com`",
    meaning: "Where the Stripe client sends its requests (a Stripe stand-in in tests)",
  },
  {
    group: 'billing',
    vars: { BILLING_GRACE_DAYS: v.int(1, 365) },
    default: "`14`",
    meaning: "Length of a paid book's grace period after a failed payment",
  },
  {
    group: 'limits',
    vars: { WEB_FORM_RATE_LIMIT: v.int(1, 10_000_000), WEB_FORM_RATE_WINDOW_SECONDS: v.int(1, 86400) },
    default: "`60`, `3600`",
    meaning: "Posts to the public contributor form `/b/{slug}/` per client IP in the window; also memories by email per book, keyed on what was authenticated: per sender address when its domain is proved, otherwise one budget shared by all unproved mail to the book",
  },
  {
    group: 'storage',
    vars: { STORAGE: v.oneOf("local", "s3") },
    default: "`local`",
    meaning: "Where files (media, poster frames, share cards, exports) live: `local` under `DATA_DIR/objects`, served by the service itself at `/files/\u2026` from HMAC-signed URLs; `s3` for any S3-compatible store (presigned SigV4 URLs)",
  },
  {
    group: 'storage',
    vars: { S3_ENDPOINT: v.url(), S3_BUCKET: v.text(), S3_REGION: v.text() },
    default: "unset, required, `us-east-1`",
    meaning: "The S3-compatible store (leave `S3_ENDPOINT` unset for AWS itself)",
  },
  {
    group: 'storage',
    vars: { S3_ACCESS_KEY_ID: v.text(), S3_SECRET_ACCESS_KEY: v.secret() },
    default: "unset",
    meaning: "Credentials; unset uses the AWS default chain (environment, profile, instance role)",
  },
  {
    group: 'storage',
    vars: { S3_FORCE_PATH_STYLE: v.oneOf("true", "false") },
    default: "`true` with an endpoint",
    meaning: "Path-style bucket addressing (MinIO, Ceph, s3rver\u2026)",
  },
  {
    group: 'media',
    vars: { CLAMAV_HOST: v.text(), CLAMAV_PORT: v.int(1, 65535), CLAMAV_TIMEOUT_MS: v.int(100, 3_600_000) },
    default: "unset, `3310`, `60000`",
    meaning: "A `clamd` to scan uploaded images (INSTREAM over TCP). Unset: images are `not_scanned`. A scanner error never counts as clean: the scan is retried, then processing fails",
  },
  {
    group: 'exports',
    vars: { PRINT_PAPER_CALIPER_UM: v.int(20, 1000) },
    default: "`60`",
    meaning: "Thickness of one page (half a sheet) of the printed book, in \u00b5m (20\u20131000): a `shop` export's cover wrap has a spine of page count \u00d7 this (60 \u00b5m suits 100\u2013130 g/m\u00b2 book paper; ask the print provider for theirs)",
  },
  {
    group: 'media',
    vars: { FFMPEG_PATH: v.path(), FFPROBE_PATH: v.path() },
    default: "the binaries shipped in `node_modules`",
    meaning: "Media processing tools (durations, dimensions, poster frames); point them at the system's `ffmpeg`/`ffprobe` to use a newer build",
  },
  {
    group: 'metrics',
    vars: { METRICS_TOKEN: v.secret() },
    default: "unset",
    meaning: "Serves Prometheus metrics at `GET /metrics` on the API port to a scraper sending `Authorization: Bearer <token>` (at least 16 characters; `401` otherwise). Unset: `/metrics` is `404` there. See [docs/metrics.md](docs/metrics.md)",
  },
  {
    group: 'metrics',
    vars: { METRICS_PORT: v.int(0, 65535), METRICS_HOST: v.text() },
    default: "unset; `127.0.0.1` without `METRICS_TOKEN`, else `HOST`",
    meaning: "A second listener that serves only `/metrics`; `memorybook worker` serves its own job metrics there. Without `METRICS_TOKEN` it is open to whoever reaches it, so it listens on loopback only: a `METRICS_HOST` that is not a loopback address is a start-up error until the token is set (then the listener asks for it too)",
  },
  {
    group: 'tracing',
    vars: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: v.url(), OTEL_EXPORTER_OTLP_ENDPOINT: v.url() },
    default: "unset",
    meaning: "Where traces go, by the OpenTelemetry spec's meanings (the first is the full URL, e.g. `http://collector:4318/v1/traces`; the second a base to which `/v1/traces` is added). Setting either turns tracing on; see [Tracing](#tracing)",
  },
  {
    group: 'tracing',
    vars: { OTEL_TRACES_EXPORTER: v.oneOf("otlp", "console", "none") },
    default: "unset",
    meaning: "`otlp` (on, to `http://localhost:4318/v1/traces` unless an endpoint is set), `console` (spans printed to stdout), `none` (off). Unset: on only when an endpoint is set",
  },
  {
    group: 'tracing',
    vars: { OTEL_SDK_DISABLED: v.oneOf("true", "false") },
    default: "`false`",
    meaning: "`true` turns tracing off whatever else is set",
  },
  {
    group: 'tracing',
    vars: { OTEL_SERVICE_NAME: v.text(), OTEL_RESOURCE_ATTRIBUTES: v.text() },
    default: "`memorybook`",
    meaning: "The service name and resource attributes the spans carry",
  },
  {
    group: 'tracing',
    vars: { OTEL_EXPORTER_OTLP_HEADERS: v.secret(), OTEL_EXPORTER_OTLP_TIMEOUT: v.text(), OTEL_EXPORTER_OTLP_COMPRESSION: v.text(), OTEL_TRACES_SAMPLER: v.text(), OTEL_TRACES_SAMPLER_ARG: v.text(), "OTEL_BSP_*": v.text() },
    default: "the spec's",
    meaning: "Read by the OpenTelemetry SDK itself (and their `_TRACES_` forms): headers such as an API key for a hosted collector, the export timeout, `gzip`, sampling (default `parentbased_always_on`), the batch processor's delay and sizes. Traces are sent as OTLP over HTTP with JSON encoding; `OTEL_EXPORTER_OTLP_PROTOCOL` other than `http/json` is warned about and ignored",
  },
];

/** Variables read besides the documented ones: the AWS SDK's names, taken when the S3_* ones are unset. */
export const ALIASES: Record<string, string> = { AWS_ACCESS_KEY_ID: 'S3_ACCESS_KEY_ID', AWS_SECRET_ACCESS_KEY: 'S3_SECRET_ACCESS_KEY', AWS_REGION: 'S3_REGION' };

/** Every variable's type, by name. */
export const VARIABLES: Record<string, TSchema> = Object.fromEntries(CONFIG_ROWS.flatMap((r) => Object.entries(r.vars)));

/** One TypeBox object per group over process.env (every variable optional: unset takes its default). */
export const CONFIG_SCHEMA = Object.fromEntries(
  [...new Set(CONFIG_ROWS.map((r) => r.group))].map((g) => [
    g,
    Type.Object(Object.fromEntries(CONFIG_ROWS.filter((r) => r.group === g).flatMap((r) => Object.entries(r.vars).map(([k, s]) => [k, Type.Optional(s)])))),
  ]),
) as Record<ConfigGroup, ReturnType<typeof Type.Object>>;

/** A whole-number variable's bounds. */
export function intBounds(name: string): { min: number; max: number } {
  const s = VARIABLES[name] as { type?: string; minimum?: number; maximum?: number } | undefined;
  if (s?.type !== 'integer' || s.minimum === undefined || s.maximum === undefined) throw new Error(`${name} is not a whole-number variable of the configuration schema`);
  return { min: s.minimum, max: s.maximum };
}

function typeName(s: TSchema & Record<string, unknown>): string {
  if (s.type === 'integer') return `integer ${s.minimum}–${s.maximum}`;
  if (Array.isArray(s.anyOf)) return (s.anyOf as { const: string }[]).map((x) => `\`${x.const}\``).join(' \\| ');
  if (s.format === 'uri') return 'URL';
  const kinds: Record<string, string> = { path: 'file path', list: 'comma list', secret: 'secret' };
  return kinds[s['x-kind'] as string] ?? 'text';
}

/** The README's configuration table. */
export function configTable(): string {
  const lines = ['| Variable | Type | Default | Meaning |', '|---|---|---|---|'];
  for (const r of CONFIG_ROWS) {
    const names = r.label ?? Object.keys(r.vars).map((n) => `\`${n}\``).join(', ');
    const entries = Object.entries(r.vars);
    const types = [...new Set(entries.map(([, s]) => typeName(s as TSchema & Record<string, unknown>)))];
    lines.push(`| ${names} | ${types.join('; ')} | ${r.default} | ${r.meaning} |`);
  }
  return lines.join('\n');
}

export const README_MARKERS = { start: '<!-- config:start (generated by `npm run docs:config` from src/config/schema.ts) -->', end: '<!-- config:end -->' };

/** README.md with its configuration table regenerated between the markers. */
export function withConfigTable(readme: string): string {
  const a = readme.indexOf(README_MARKERS.start);
  const b = readme.indexOf(README_MARKERS.end);
  if (a < 0 || b < a) throw new Error('README.md has no configuration table markers');
  return readme.slice(0, a + README_MARKERS.start.length) + '\n' + configTable() + '\n' + readme.slice(b);
}
