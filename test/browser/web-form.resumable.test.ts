/**
 * The "done when": a 12 MB photo through the contributor form at
 * 1 Mbit/s (Chromium's own network emulation over CDP), the connection
 * dropped half way and restored, ending on the thanks page with the memory
 * and its photo stored once; the progress announced politely at each quarter.
 * And a reload half way: the page comes back with the saved words, asks for
 * the same photo, and carries on from where the upload stopped.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, HAS_CHROMIUM, newApiUser, startBrowserEnv, watchProblems, type BrowserEnv } from './browser-env.js';

const ONE_MBIT = 1_000_000 / 8; // bytes per second

/** A 12 MB JPEG: noise at full quality does not compress. */
async function twelveMegabytePhoto(): Promise<Buffer> {
  return noisePhoto(2400, 1800);
}

function noisePhoto(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).jpeg({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer();
}

describe.skipIf(!HAS_CHROMIUM)('a big photo over a slow, broken connection', () => {
  let env: BrowserEnv;

  beforeAll(async () => {
    env = await startBrowserEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('sends a 12 MB photo at 1 Mbit/s through a dropped connection and ends on the thanks page, stored once', { timeout: 600_000 }, async () => {
    const owner = await newApiUser(env);
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'Grandma Rose turns 90' });
    const slug = book.body.slug as string;
    const channels = await api(env, owner.token, 'GET', `/books/${slug}/channels/`);
    const formUrl = channels.body.items.find((r: any) => r.channel === 'web').address as string;
    const photo = await twelveMegabytePhoto();
    expect(photo.length).toBeGreaterThan(12 * 1_000_000);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'memorybook-resumable-')), 'birthday.jpg');
    writeFileSync(file, photo);

    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const network = (offline: boolean) =>
      cdp.send('Network.emulateNetworkConditions', { offline, latency: 80, downloadThroughput: ONE_MBIT, uploadThroughput: ONE_MBIT });
    await network(false);

    // Every announcement of the polite live region, and every value of the bar, as they happen (kept here: the page goes).
    const recorded = { announced: [] as string[], values: [] as number[] };
    await page.exposeFunction('mbRecord', (kind: string, value: string) => {
      if (kind === 'announced') recorded.announced.push(value);
      else recorded.values.push(Number(value));
    });
    await page.goto(formUrl);
    await page.evaluate(() => {
      const record = (window as unknown as { mbRecord: (kind: string, value: string) => void }).mbRecord;
      const live = document.getElementById('upload-live')!;
      new MutationObserver(() => live.textContent && record('announced', live.textContent)).observe(live, { childList: true, characterData: true, subtree: true });
      const bar = document.getElementById('upload-bar')!;
      new MutationObserver(() => record('value', bar.getAttribute('aria-valuenow') ?? '')).observe(bar, { attributes: true, attributeFilter: ['aria-valuenow'] });
    });
    expect(await page.getAttribute('#upload-live', 'aria-live')).toBe('polite');

    await page.fill('#name', 'Aunt May');
    await page.fill('#text', 'Every summer at the lake, Grandma Rose was first into the water.');
    await page.setInputFiles('#photo', file);
    await page.click('button.send');

    // The words are saved before the photo goes: the memory is there already, without its photo.
    await page.locator('#upload').waitFor({ state: 'visible' });
    expect(await page.getAttribute('#upload-bar', 'role')).toBe('progressbar');
    const early = await api(env, owner.token, 'GET', `/books/${slug}/submissions/`);
    expect(early.body.items).toHaveLength(1);
    expect(early.body.items[0].media).toHaveLength(0);

    // Half way, the connection goes; then it comes back.
    const started = Date.now();
    await page.waitForFunction(() => Number(document.getElementById('upload-bar')!.getAttribute('aria-valuenow')) >= 50, null, { timeout: 300_000, polling: 500 });
    const halfWay = Number(await page.getAttribute('#upload-bar', 'aria-valuenow'));
    await network(true);
    await page.waitForFunction(() => document.getElementById('upload-status')!.textContent!.includes('connection dropped'), null, { timeout: 60_000, polling: 250 });
    await page.waitForTimeout(5_000);
    await network(false);

    await page.waitForURL(/\/thanks\//, { timeout: 400_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(await page.textContent('h2')).toBe('Thank you!');

    const list = await api(env, owner.token, 'GET', `/books/${slug}/submissions/`);
    expect(list.body.items).toHaveLength(1);
    const s = list.body.items[0];
    expect(s).toMatchObject({ source: 'web', contributor_name: 'Aunt May', status: 'pending' });
    expect(s.media).toHaveLength(1);
    const media = await api(env, owner.token, 'GET', `/books/${slug}/submissions/${s.id}/media/${s.media[0].id}/`);
    const stored = Buffer.from(await (await fetch(media.body.download_url)).arrayBuffer());
    expect(createHash('sha256').update(stored).digest('hex')).toBe(createHash('sha256').update(photo).digest('hex'));

    // Announced at each quarter (the thanks page may come before the last one is read out), the bar moved on from where it was cut.
    const { announced, values } = recorded;
    expect(announced).toEqual(expect.arrayContaining(['Your words are saved. Now sending your photo…', '25% of your photo sent', '50% of your photo sent', '75% of your photo sent']));
    expect(announced.some((a) => a.startsWith('The connection dropped.'))).toBe(true);
    expect(Math.max(...values)).toBeGreaterThanOrEqual(75);
    console.log(`12 MB at 1 Mbit/s: cut at ${halfWay}%, thanks page ${seconds.toFixed(0)} s after the half-way wait began`);
    // The dropped connection's failed requests are the browser's own lines, not problems of the page.
    expect(problems.filter((p) => !/net::ERR_INTERNET_DISCONNECTED/.test(p))).toEqual([]);
    await context.close();
  });

  it('a reload half way: the page keeps the saved words, asks for the same photo, and the upload carries on where it stopped', { timeout: 600_000 }, async () => {
    const owner = await newApiUser(env);
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'Grandpa Joe turns 80' });
    const slug = book.body.slug as string;
    const channels = await api(env, owner.token, 'GET', `/books/${slug}/channels/`);
    const formUrl = channels.body.items.find((r: any) => r.channel === 'web').address as string;
    const photo = await noisePhoto(1600, 1200);
    expect(photo.length).toBeGreaterThan(4 * 1_000_000);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'memorybook-reload-')), 'garden.jpg');
    writeFileSync(file, photo);

    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 80, downloadThroughput: ONE_MBIT, uploadThroughput: ONE_MBIT });
    const values: number[] = [];
    await page.exposeFunction('mbValue', (value: string) => values.push(Number(value)));
    const watchBar = () =>
      page.evaluate(() => {
        const bar = document.getElementById('upload-bar')!;
        const record = (window as unknown as { mbValue: (v: string) => void }).mbValue;
        new MutationObserver(() => record(bar.getAttribute('aria-valuenow') ?? '')).observe(bar, { attributes: true, attributeFilter: ['aria-valuenow'] });
      });

    await page.goto(formUrl);
    await page.fill('#name', 'Cousin Ida');
    await page.fill('#text', 'Grandpa Joe grew the tallest sunflowers on the street.');
    await page.setInputFiles('#photo', file);
    await page.click('button.send');
    await page.waitForFunction(() => Number(document.getElementById('upload-bar')!.getAttribute('aria-valuenow')) >= 40, null, { timeout: 300_000, polling: 250 });
    const halfWay = Number(await page.getAttribute('#upload-bar', 'aria-valuenow'));

    // The page goes (a reload, a phone that dropped the tab); the memory does not.
    await page.reload();
    expect(await page.textContent('#upload-status')).toContain('Choose the same photo to continue');
    expect(await page.isVisible('#upload-status')).toBe(true);
    expect(await page.inputValue('#name')).toBe('Cousin Ida');
    expect(await page.inputValue('#text')).toBe('Grandpa Joe grew the tallest sunflowers on the street.');
    expect(await page.getAttribute('#text', 'readonly')).not.toBeNull();
    expect((await page.textContent('button.send'))!.trim()).toBe('Send the photo');
    expect(await page.isVisible('#upload-skip')).toBe(true);
    const meanwhile = await api(env, owner.token, 'GET', `/books/${slug}/submissions/`);
    expect(meanwhile.body.items).toHaveLength(1);
    expect(meanwhile.body.items[0].media).toHaveLength(0);

    await watchBar();
    await page.setInputFiles('#photo', file);
    await page.click('button.send');
    await page.waitForURL(/\/thanks\//, { timeout: 300_000 });
    expect(await page.textContent('h2')).toBe('Thank you!');

    // It carried on: the first progress after the reload is near where it stopped, not a fresh start.
    const resumedAt = values.find((v) => v > 0)!;
    console.log(`reload at ${halfWay}%, carried on from ${resumedAt}%`);
    expect(resumedAt).toBeGreaterThanOrEqual(Math.min(halfWay, 40) - 15);
    const list = await api(env, owner.token, 'GET', `/books/${slug}/submissions/`);
    expect(list.body.items).toHaveLength(1);
    const s = list.body.items[0];
    expect(s).toMatchObject({ contributor_name: 'Cousin Ida', text_content: 'Grandpa Joe grew the tallest sunflowers on the street.' });
    expect(s.media).toHaveLength(1);
    const media = await api(env, owner.token, 'GET', `/books/${slug}/submissions/${s.id}/media/${s.media[0].id}/`);
    const stored = Buffer.from(await (await fetch(media.body.download_url)).arrayBuffer());
    expect(createHash('sha256').update(stored).digest('hex')).toBe(createHash('sha256').update(photo).digest('hex'));
    // Nothing of it is left behind in the browser: the next memory on this phone starts fresh.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('memorybook-unfinished:') || k.startsWith('tus::')))).toEqual([]);
    await page.goto(formUrl);
    expect(await page.inputValue('#name')).toBe('');
    expect(await page.isHidden('#upload')).toBe(true);
    expect(problems.filter((p) => !/net::ERR_ABORTED|aborted/i.test(p))).toEqual([]);
    await context.close();
  });
});
