import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freePort } from '../helpers/spawn-server.js';
import { adminQuery, TEST_DATABASE_URL } from '../helpers/test-db.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  console.warn(`SKIPPED: ${CHROMIUM} not found. Install Debian's Chromium (apt-get install -y chromium) to run the browser tests.`);
}

/** The confirmation link of the newest .eml written to DATA_DIR/outbox for `email` (the mail goes through the job queue). */
async function confirmationLinkInOutbox(dataDir: string, email: string): Promise<string> {
  const outbox = path.join(dataDir, 'outbox');
  for (let i = 0; i < 150; i++) {
    const files = existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : [];
    for (const f of files) {
      // Quoted-printable may wrap long lines with a soft break ("=" at the end of a line).
      const text = readFileSync(path.join(outbox, f), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const link = /https?:\/\/[^\s]+\/accounts\/confirm\/[A-Za-z0-9_-]+\//.exec(text);
      if (text.includes(email) && link) return link[0];
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no confirmation mail for ${email} in ${outbox}`);
}

describe.skipIf(!HAS_CHROMIUM)('web sign-in in a real browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let base: string;
  let dataDir: string;
  let schema: string | null = null;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-browser-'));
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      SECRET_KEY: 'browser-test-secret-key-0123456789-abcdef',
      LOG_LEVEL: 'silent',
    };
    if (TEST_DATABASE_URL) {
      schema = `b_${randomBytes(6).toString('hex')}`;
      await adminQuery(`CREATE SCHEMA ${schema}`);
      Object.assign(env, { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema });
    }
    server = await startServer(loadConfig(env));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    // The job queue keeps its tables beside ours, in <schema>_pgboss.
    if (schema) await adminQuery(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA ${schema} CASCADE`);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs up, creates an API token on the tokens page, and the token authenticates', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // Chromium logs every 4xx (the favicon's 404, the expected 409); a CSP violation or script error is a failure.
      if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) {
        problems.push(`console: ${msg.text()}`);
      }
    });
    const tokenCalls: Record<string, string>[] = [];
    page.on('request', async (req) => {
      if (req.url().endsWith('/api/v1/auth/token/') && req.method() === 'POST') tokenCalls.push(await req.allHeaders());
    });

    const email = `browser-${randomUUID().slice(0, 8)}@example.test`;
    await page.goto(`${base}/accounts/signup/`);
    await page.fill('#email', email);
    await page.fill('#password', 'a long enough password');
    await page.fill('#first_name', 'Grace');
    await Promise.all([page.waitForURL(`${base}/accounts/signup/`), page.click('form[action="/accounts/signup/"] button[type=submit]')]);
    // No account yet: a confirmation link is mailed (no SMTP_URL here, so to DATA_DIR/outbox).
    expect(await page.textContent('h1')).toBe('Check your mail');
    const link = await confirmationLinkInOutbox(dataDir, email);
    await page.goto(link);
    expect(await page.textContent('h1')).toBe('Confirm your address');
    expect(await page.textContent('.card')).toContain(email);
    await page.fill('#password', 'a long enough password');
    // Signed in, the browser lands on its home: the user's books (none yet), and the way to the API tokens.
    await Promise.all([page.waitForURL(`${base}/`), page.click('form[action^="/accounts/confirm/"] button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Your books');
    expect(await page.textContent('main')).toContain('You are not in any book yet');
    await Promise.all([page.waitForURL(`${base}/settings/tokens/`), page.click('main a[href="/settings/tokens/"]')]);
    expect(await page.textContent('h1')).toBe('API tokens');
    expect(await page.locator('#no-tokens').isVisible()).toBe(true);

    await page.fill('#token-name', 'browser-test');
    await page.click('#create-token button[type=submit]');
    await page.locator('#token-created').waitFor({ state: 'visible' });
    const plaintext = (await page.textContent('#token-plaintext'))!.trim();
    expect(plaintext).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(await page.textContent('#created-name')).toBe('browser-test');
    expect(await page.textContent('#copy-status')).toContain('will not be shown again');
    expect(await page.locator('#token-rows tr').count()).toBe(1);
    await page.screenshot({ path: '/tmp/tokens-page.png', fullPage: true });

    // The page made the call the contract describes.
    expect(tokenCalls).toHaveLength(1);
    const sent = tokenCalls[0];
    const csrfCookie = (await context.cookies(base)).find((c) => c.name === 'csrftoken')!;
    expect(sent['x-csrftoken']).toBe(csrfCookie.value);
    expect(sent['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sent.referer).toBe(`${base}/settings/tokens/`);
    const sessionCookie = (await context.cookies(base)).find((c) => c.name === 'mb_session')!;
    expect(sessionCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    const me = await fetch(`${base}/api/v1/auth/me/`, { headers: { authorization: `Bearer ${plaintext}` } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { auth_method: string; user: { email: string; first_name: string }; token: { name: string } };
    expect(body.auth_method).toBe('api_key');
    expect(body.user.email).toBe(email);
    expect(body.user.first_name).toBe('Grace');
    expect(body.token.name).toBe('browser-test');

    // The same name again: the API's 409 name_taken, shown readably, and no second secret.
    await page.fill('#token-name', 'browser-test');
    await page.click('#create-token button[type=submit]');
    await page.locator('#token-error').waitFor({ state: 'visible' });
    expect(await page.textContent('#token-error')).toContain('You already have a token with that name');
    expect(await page.textContent('#token-plaintext')).toBe(plaintext);
    expect(tokenCalls).toHaveLength(2);

    // A reload lists the token from the server, without its secret.
    await page.reload();
    expect(await page.locator('#token-rows tr').count()).toBe(1);
    expect(await page.textContent('#token-rows')).toContain('browser-test');
    expect(await page.content()).not.toContain(plaintext);

    // Signing out ends the session; the tokens page then sends the browser to sign in.
    await Promise.all([page.waitForURL(`${base}/accounts/login/`), page.click('header form button[type=submit]')]);
    await page.goto(`${base}/settings/tokens/`);
    expect(page.url()).toBe(`${base}/accounts/login/?next=%2Fsettings%2Ftokens%2F`);
    // The API key outlives the browser session.
    expect((await fetch(`${base}/api/v1/auth/me/`, { headers: { authorization: `Bearer ${plaintext}` } })).status).toBe(200);

    // And signing back in lands on the tokens page again.
    await page.fill('#email', email);
    await page.fill('#password', 'a long enough password');
    await Promise.all([page.waitForURL(`${base}/settings/tokens/`), page.click('form[action="/accounts/login/"] button[type=submit]')]);
    expect(await page.textContent('#token-rows')).toContain('browser-test');

    expect(problems).toEqual([]);
    await context.close();
  });
});
