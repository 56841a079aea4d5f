/**
 * The API reference page (/api/v1/docs/) as an integrator first meets it, in
 * Chromium: the service's own title, the error catalogue a link away, and
 * "Try it out" on successive writes, each sent with a fresh Idempotency-Key,
 * all answering 2xx, with no console error (no CSP violation).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, HAS_CHROMIUM, newApiUser, startBrowserEnv, watchProblems, type BrowserEnv } from './browser-env.js';

describe.skipIf(!HAS_CHROMIUM)('API reference page in a real browser', () => {
  let env: BrowserEnv;
  beforeAll(async () => {
    env = await startBrowserEnv();
  });
  afterAll(() => env?.close());

  /** Opens an operation, fills its fields, runs "Try it out", and answers the status shown and the key the page sent. */
  async function tryItOut(page: Page, operationId: string, tag: string, fill: { body?: unknown; params?: Record<string, string> } = {}) {
    const op = page.locator(`#operations-${tag}-${operationId}`);
    if ((await op.locator('.opblock-body').count()) === 0) await op.locator('.opblock-summary').first().click();
    const tryOut = op.getByRole('button', { name: 'Try it out' });
    await op.locator('button.try-out__btn').first().waitFor();
    if (await tryOut.isVisible()) await tryOut.click();
    for (const [name, value] of Object.entries(fill.params ?? {})) await op.locator(`tr[data-param-name="${name}"] input`).fill(value);
    // The key is left as the page shows it: empty, with no example to reuse.
    const keyInput = op.locator('tr[data-param-name="Idempotency-Key"] input');
    expect(await keyInput.inputValue()).toBe('');
    if (fill.body !== undefined) await op.locator('textarea.body-param__text').fill(JSON.stringify(fill.body));
    const sent = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname.startsWith('/api/v1/'));
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/api/v1/'));
    await op.locator('button.execute').click();
    const [request, response] = await Promise.all([sent, answered]);
    await op.locator('.live-responses-table .response-col_status').first().waitFor();
    const key = (await request.allHeaders())['idempotency-key'];
    return { status: response.status(), key, body: await response.json().catch(() => null) };
  }

  it('shows the service title and the error catalogue, and "Try it out" succeeds on successive writes with a fresh key each', async () => {
    const owner = await newApiUser(env);
    const page = await env.browser.newPage();
    const problems = watchProblems(page);
    const opened = await page.goto(`${env.base}/api/v1/docs/`);
    // Only the service's own scripts and styles, nothing inline, no other origin.
    const csp = (await opened!.allHeaders())['content-security-policy'];
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-inline|https:|validator\.swagger\.io/);
    await page.locator('.information-container .title').waitFor();
    expect(await page.title()).toBe('Memory Book Integrator API reference');
    expect(await page.locator('.information-container .title').textContent()).toContain('Memory Book Integrator API');
    expect(await page.locator('link[rel="icon"]').first().getAttribute('href')).toMatch(/favicon\.svg$/);
    // No Swagger top bar (its logo and the document URL box).
    expect(await page.locator('.topbar').count()).toBe(0);
    // The page leads with the operations: the catalogue is one link away, not a long table above them.
    expect(await page.locator('.information-container').textContent()).not.toContain('precondition_failed');
    const catalogueLink = page.locator('.information-container a[href="/api/v1/docs/errors/"]');
    expect(await catalogueLink.count()).toBe(1);
    const catalogue = await env.browser.newPage();
    const catalogueProblems = watchProblems(catalogue);
    await catalogue.goto(`${env.base}/api/v1/docs/errors/`);
    expect(await catalogue.locator('tr#precondition_failed').textContent()).toContain('412');
    expect(catalogueProblems).toEqual([]);
    await catalogue.close();

    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input[type="text"], .auth-container input[type="password"]').first().fill(owner.token);
    await page.locator('.auth-container button.authorize').first().click();
    await page.locator('button.close-modal').click();

    const first = await tryItOut(page, 'createBook', 'books', { body: { title: 'From the docs page' } });
    expect(first.status).toBe(201);
    const second = await tryItOut(page, 'createBook', 'books', { body: { title: 'Again from the docs page' } });
    expect(second.status).toBe(201);
    const archived = await tryItOut(page, 'archiveBook', 'books', { params: { slug: second.body.slug } });
    expect(archived.status).toBe(200);
    const keys = [first.key, second.key, archived.key];
    expect(keys.every(Boolean)).toBe(true);
    expect(new Set(keys).size).toBe(3);

    expect((await api(env, owner.token, 'GET', `/books/${first.body.slug}/`)).body).toMatchObject({ title: 'From the docs page', status: 'active' });
    expect((await api(env, owner.token, 'GET', `/books/${second.body.slug}/`)).body).toMatchObject({ title: 'Again from the docs page', status: 'archived' });
    expect(problems).toEqual([]);
    await page.close();
  });
});
