/**
 * axe-core (WCAG 2.2 AA rules) in Chromium on every page a person sees, in
 * every theme of the contributor pages, at desktop and phone sizes, with the
 * error states: no serious or critical violation. Errors follow GOV.UK's
 * pattern (the summary focused on load, "Error:" in the title, each field
 * tied to its message).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THEMES } from '../../src/services/books/book-types.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { api, HAS_CHROMIUM, newApiUser, startBrowserEnv, watchProblems, type BrowserEnv } from './browser-env.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = {
  desktop: { viewport: { width: 1280, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
} as const;

/** The serious and critical violations axe finds on the page as it is now, one line each. */
async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  const result: any = await page.evaluate(() =>
    (window as any).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] }),
  );
  // axe ran its rules (contrast among them) on this page.
  expect(result.passes.length + result.violations.length + result.incomplete.length).toBeGreaterThan(10);
  expect([...result.passes, ...result.violations, ...result.incomplete].some((r: any) => r.id === 'color-contrast')).toBe(true);
  return result.violations
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => `${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`).join(' | ')}`);
}

/** After a form came back with errors: GOV.UK's pattern, checked in the browser. */
async function expectErrorPattern(page: Page, field: string, prefix = 'Error: ') {
  expect(await page.title()).toMatch(new RegExp(`^${prefix}`));
  expect(await page.evaluate(() => document.activeElement?.className)).toBe('error-summary');
  expect(await page.locator(`.error-summary a[href="#${field}"]`).count()).toBe(1);
  const describedBy = (await page.getAttribute(`#${field}`, 'aria-describedby')) ?? '';
  expect(describedBy.split(' ')).toContain(`${field}-error`);
  expect(await page.getAttribute(`#${field}`, 'aria-invalid')).toBe('true');
  // The invalid field shows it: its border is the error colour, not the theme's usual line.
  const border = await page.locator(`#${field}`).evaluate((el) => getComputedStyle(el).borderTopWidth);
  expect(parseFloat(border)).toBeGreaterThanOrEqual(2);
}

describe.skipIf(!HAS_CHROMIUM)('axe-core finds no serious or critical violation', () => {
  let env: BrowserEnv;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    env = await startBrowserEnv({ SMTP_URL: smtp.url, MAIL_FROM: 'Memory Book <books@example.test>' });
  });

  afterAll(async () => {
    await env?.close();
    await smtp?.close();
  });

  it('covers all 11 themes', () => expect(THEMES).toHaveLength(11));

  // One test per theme (each loads the form, its error states and its thanks page at two sizes).
  it.each([...THEMES])('the contributor form, its error states and its thanks page in %s, desktop and phone', async (theme) => {
    const owner = await newApiUser(env);
    const found: string[] = [];
    {
      const title = theme === 'botanical_luxe' ? 'סבתא רוזה בת 90!' : `Grandma Rose turns 90 (${theme})`;
      const book = await api(env, owner.token, 'POST', '/books/', { title, subtitle: 'Memories from all of us', theme });
      expect(book.status).toBe(201);
      const channels = await api(env, owner.token, 'GET', `/books/${book.body.slug}/channels/`);
      const formUrl = channels.body.items.find((r: any) => r.channel === 'web').address as string;
      for (const [size, options] of Object.entries(SIZES)) {
        const context = await env.browser.newContext({ ...options, bypassCSP: true });
        const page = await context.newPage();
        const problems = watchProblems(page);
        await page.goto(formUrl);
        found.push(...(await axe(page)).map((v) => `${theme} ${size} form: ${v}`));

        // The error state: the memory without a name, sent with the form's own button.
        await page.fill('#text', 'Every summer at the lake, she was first into the water.');
        await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button.send')]);
        await page.waitForSelector('.error-summary');
        await expectErrorPattern(page, 'name');
        expect(await page.inputValue('#text')).toContain('first into the water');
        found.push(...(await axe(page)).map((v) => `${theme} ${size} form error: ${v}`));

        // A photo refused in the page (not a picture): its message, tied to the field.
        await page.setInputFiles('#photo', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
        expect(await page.getAttribute('#photo', 'aria-describedby')).toBe('photo-hint photo-error');
        found.push(...(await axe(page)).map((v) => `${theme} ${size} photo error: ${v}`));

        await page.fill('#name', 'Aunt May');
        await page.setInputFiles('#photo', []);
        await Promise.all([page.waitForURL(/\/thanks\//), page.click('button.send')]);
        found.push(...(await axe(page)).map((v) => `${theme} ${size} thanks: ${v}`));
        expect(problems).toEqual([]);
        await context.close();
      }
    }
    expect(found).toEqual([]);
  });

  it('the form in Arabic lays out right to left and stays clean', async () => {
    const owner = await newApiUser(env);
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'عيد ميلاد سعيد يا جدتي', theme: 'editorial_noir', settings: { language: 'ar' } });
    const channels = await api(env, owner.token, 'GET', `/books/${book.body.slug}/channels/`);
    const formUrl = channels.body.items.find((r: any) => r.channel === 'web').address as string;
    const found: string[] = [];
    for (const [size, options] of Object.entries(SIZES)) {
      const context = await env.browser.newContext({ ...options, bypassCSP: true, locale: 'ar' });
      const page = await context.newPage();
      await page.goto(formUrl);
      expect(await page.getAttribute('html', 'dir')).toBe('rtl');
      // Right to left: the label starts at the right edge of the card.
      const label = (await page.locator('label[for=name]').boundingBox())!;
      const card = (await page.locator('.paper').boundingBox())!;
      expect(card.x + card.width - (label.x + label.width)).toBeLessThan(60);
      found.push(...(await axe(page)).map((v) => `ar ${size}: ${v}`));
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button.send')]);
      await page.waitForSelector('.error-summary');
      await expectErrorPattern(page, 'name', 'خطأ: ');
      found.push(...(await axe(page)).map((v) => `ar ${size} error: ${v}`));
      await context.close();
    }
    expect(found).toEqual([]);
  });

  it('sign-in, sign-up, invitation, tokens, checkout and the closed form, with their error states, desktop and phone', async () => {
    const owner = await newApiUser(env, { firstName: 'Olive', lastName: 'Owner' });
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'Grandma Rose turns 90' });
    const invitee = `invitee-${randomUUID().slice(0, 8)}@example.test`;
    await api(env, owner.token, 'POST', `/books/${book.body.slug}/invitations/`, { identifier_type: 'email', identifier: invitee, role: 'contributor' });
    await smtp.waitFor(1, 30_000);
    const mail = smtp.received.find((m) => m.to.includes(invitee))!;
    const invitation = new RegExp(`${env.base}/invitations/[A-Za-z0-9_-]{43}/`).exec(mail.text)![0];

    const found: string[] = [];
    for (const [size, options] of Object.entries(SIZES)) {
      const context = await env.browser.newContext({ ...options, bypassCSP: true });
      const page = await context.newPage();
      const check = async (what: string) => found.push(...(await axe(page)).map((v) => `${size} ${what}: ${v}`));

      await page.goto(`${env.base}/accounts/login/`);
      await check('sign-in');
      await page.fill('#email', 'nobody@example.test');
      await page.fill('#password', 'not the password');
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
      await page.waitForSelector('.error-summary');
      await expectErrorPattern(page, 'email');
      await check('sign-in error');

      await page.goto(invitation);
      await check('invitation');
      await page.goto(`${env.base}/accounts/signup/?next=${encodeURIComponent(new URL(invitation).pathname)}`);
      expect(await page.textContent('main')).not.toMatch(/\bAPI\b/);
      await check('sign-up (invited)');
      await page.fill('#password', 'short');
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
      await page.waitForSelector('.error-summary');
      await expectErrorPattern(page, 'password');
      await check('sign-up error');

      await page.goto(`${env.base}/b/no-such-book/`);
      await check('closed form');

      // Signed in (as the owner): the checkout page of a paid plan without Stripe, in plain words.
      await page.goto(`${env.base}/accounts/login/`);
      await page.fill('#email', owner.email);
      await page.fill('#password', 'a long enough password');
      // Sign-in lands on the home page (issue 42's); then the tokens page.
      await Promise.all([page.waitForURL(`${env.base}/`), page.click('main button[type=submit]')]);
      await check('home');
      await page.goto(`${env.base}/settings/tokens/`);
      await check('tokens');
      await page.goto(`${env.base}/billing/checkout/?plan=plus`);
      expect(await page.textContent('main')).not.toMatch(/memorybook slots|--plan/);
      await check('checkout');
      await page.goto(invitation);
      await check('invitation, signed in');
      await context.close();
    }
    expect(found).toEqual([]);
  });
});
