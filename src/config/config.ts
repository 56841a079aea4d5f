import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

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
  dataDir: string;
  database: { kind: 'pglite' | 'postgres'; url: string | null; poolSize: number; schema: string | null };
  secretKey: string;
  logLevel: string;
  mail: { smtpUrl: string | null; from: string };
  /** Operator endpoint that erases off-site backups on deletion; null means nothing to erase. */
  backupErasureUrl: string | null;
  /** First wait before retrying that endpoint; doubles on each retry. */
  backupErasureRetrySeconds: number;
  limits: {
    signInAttempts: number;
    signInWindowSeconds: number;
    /** Submission creates per (user, IP) and window; the contract's 30 an hour by default, liftable for benchmarks. */
    submissionRateLimit: number;
    submissionRateWindowSeconds: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads an optional `.env` beside the working directory; real environment variables win. */
export function readDotEnv(env: Env, file = path.resolve('.env')): Env {
  if (!existsSync(file)) return env;
  return { ...parseEnv(readFileSync(file, 'utf8')), ...env };
}

/**
 * Parses the environment into a Config. Every bad variable is collected and
 * reported together, one line each, naming the variable.
 */
export function loadConfig(env: Env, options: { ensureDataDir?: boolean } = {}): Config {
  const problems: string[] = [];
  const str = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}: expected a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };

  const nodeEnv = str('NODE_ENV') ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    problems.push(`NODE_ENV: expected development, production or test, got "${nodeEnv}"`);
  }
  const port = int('PORT', 8000, 0, 65535);
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
  const headersMs = int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestMs = int('HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 86_400_000);
  const keepAliveMs = int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000);
  if (headersMs > requestMs) {
    problems.push(`HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestMs}), got "${headersMs}"`);
  }

  const dataDir = path.resolve(str('DATA_DIR') ?? './data');

  const databaseUrl = str('DATABASE_URL') ?? null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL');
  }
  const poolSize = int('DATABASE_POOL_SIZE', 10, 1, 200);
  const schema = str('DATABASE_SCHEMA') ?? null;
  if (schema && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    problems.push(`DATABASE_SCHEMA: expected a lower-case SQL identifier, got "${schema}"`);
  }

  const logLevel = str('LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  let secretKey = str('SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) {
    problems.push('SECRET_KEY: must be at least 32 characters');
  }
  if (secretKey === undefined && nodeEnv === 'production') {
    problems.push('SECRET_KEY: required when NODE_ENV=production');
  }

  const smtpUrl = str('SMTP_URL') ?? null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) problems.push('SMTP_URL: expected an smtp:// or smtps:// URL');
  const mailFrom = str('MAIL_FROM') ?? `Memory Book <no-reply@${safeHostname(publicUrl) || 'localhost'}>`;

  const backupErasureUrl = str('BACKUP_ERASURE_URL') ?? null;
  if (backupErasureUrl && !/^https?:\/\//.test(backupErasureUrl)) problems.push('BACKUP_ERASURE_URL: expected an http(s) URL');

  const backupErasureRetrySeconds = int('BACKUP_ERASURE_RETRY_SECONDS', 30, 1, 86400);
  const signInAttempts = int('SIGN_IN_ATTEMPTS', 10, 1, 100000);
  const signInWindowSeconds = int('SIGN_IN_WINDOW_SECONDS', 900, 1, 86400);
  const submissionRateLimit = int('SUBMISSION_RATE_LIMIT', 30, 1, 10_000_000);
  const submissionRateWindowSeconds = int('SUBMISSION_RATE_WINDOW_SECONDS', 3600, 1, 86400);

  if (problems.length) throw new ConfigError(problems);

  if (secretKey === undefined) secretKey = readOrCreateSecret(dataDir, options.ensureDataDir !== false);

  return deepFreeze({
    env: nodeEnv as Config['env'],
    http: { host, port, publicUrl, publicOrigin, secureCookies, trustProxy, timeouts: { headersMs, requestMs, keepAliveMs } },
    dataDir,
    database: { kind: databaseUrl ? 'postgres' : 'pglite', url: databaseUrl, poolSize, schema },
    secretKey,
    logLevel,
    mail: { smtpUrl, from: mailFrom },
    backupErasureUrl,
    backupErasureRetrySeconds,
    limits: { signInAttempts, signInWindowSeconds, submissionRateLimit, submissionRateWindowSeconds },
  } satisfies Config);
}

function safeHostname(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** Without SECRET_KEY the service makes one on first start and keeps it in DATA_DIR, so sessions and cursors survive restarts. */
function readOrCreateSecret(dataDir: string, create: boolean): string {
  const file = path.join(dataDir, 'secret_key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (!create) return randomBytes(32).toString('base64url');
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process started at the same moment and wrote it first.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
