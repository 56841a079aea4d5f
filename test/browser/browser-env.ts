/**
 * What the browser tests share: the real server in-process on a socket
 * (PGlite, or a schema of its own on PostgreSQL when TEST_DATABASE_URL is set),
 * Debian's Chromium driven by playwright-core, and a few API calls as a
 * client makes them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTokenService } from '../../src/services/tokens/token-service.js';
import { createUserAccount } from '../../src/services/users/user-service.js';
import { freePort } from '../helpers/spawn-server.js';
import { adminQuery, TEST_DATABASE_URL } from '../helpers/test-db.js';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  console.warn(`SKIPPED: ${CHROMIUM} not found. Install Debian's Chromium (apt-get install -y chromium) to run the browser tests.`);
}

export interface BrowserEnv {
  base: string;
  server: RunningServer;
  browser: Browser;
  close(): Promise<void>;
}

export async function startBrowserEnv(extraEnv: Record<string, string> = {}): Promise<BrowserEnv> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-browser-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: base,
    DATA_DIR: dataDir,
    SECRET_KEY: 'browser-test-secret-key-0123456789-abcdef',
    LOG_LEVEL: 'silent',
    ...extraEnv,
  };
  let schema: string | null = null;
  if (TEST_DATABASE_URL) {
    schema = `b_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
    Object.assign(env, { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema });
  }
  const server = await startServer(loadConfig(env));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    base,
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
      // The job queue keeps its tables beside ours, in <schema>_pgboss.
      if (schema) await adminQuery(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA ${schema} CASCADE`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Collects page errors and console errors (a CSP violation, a script error); Chromium's own 4xx resource lines are not ours. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) {
      problems.push(`console: ${msg.text()}`);
    }
  });
  return problems;
}

/** A user with an API key, made the way the operator CLI makes them. */
export async function newApiUser(env: BrowserEnv, o: { firstName?: string; lastName?: string } = {}) {
  const email = `owner-${randomUUID().slice(0, 8)}@example.test`;
  const user = await createUserAccount(env.server.db, {
    email,
    password: 'a long enough password',
    firstName: o.firstName ?? 'Olive',
    lastName: o.lastName ?? 'Owner',
  });
  const { plaintext } = await createTokenService({ db: env.server.db }).issueToken(env.server.db, user.id, 'browser-test');
  return { id: user.id, email, token: plaintext };
}

/** One API call as an integrator makes it: bearer key, JSON, an Idempotency-Key on writes. */
export async function api(env: BrowserEnv, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${env.base}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' ? { 'idempotency-key': randomUUID() } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}
