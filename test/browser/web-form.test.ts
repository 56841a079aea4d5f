/**
 * A book's contributor form on a phone-sized screen in Chromium: a memory
 * with a photo goes in, lands pending with its photo, and the page is saved
 * as a screenshot (WEB_FORM_SCREENSHOT, default in the temp folder) for a
 * person to look at.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, HAS_CHROMIUM, newApiUser, startBrowserEnv, watchProblems, type BrowserEnv } from './browser-env.js';

const SHOTS = process.env.WEB_FORM_SCREENSHOT_DIR || mkdtempSync(path.join(tmpdir(), 'memorybook-web-form-'));

/** A small picture worth previewing: a lake at sunset, drawn as SVG and encoded as a JPEG. */
async function sunsetPhoto(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#3b4a7a"/><stop offset="0.45" stop-color="#e98a5b"/><stop offset="0.62" stop-color="#f6c27a"/>
    </linearGradient>
    <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#f3b26f"/><stop offset="1" stop-color="#2f3d63"/>
    </linearGradient>
  </defs>
  <rect width="1200" height="520" fill="url(#sky)"/>
  <circle cx="780" cy="470" r="90" fill="#ffe3a3" opacity="0.95"/>
  <path d="M0 470 C180 380 330 420 470 455 C620 490 760 400 930 430 C1050 452 1130 430 1200 420 L1200 520 L0 520 Z" fill="#4a3f55"/>
  <path d="M0 500 C200 460 400 480 600 500 C800 520 1000 470 1200 490 L1200 530 L0 530 Z" fill="#2e2a3f"/>
  <rect y="520" width="1200" height="280" fill="url(#lake)"/>
  <g fill="#ffe3a3" opacity="0.55"><rect x="700" y="545" width="160" height="6" rx="3"/><rect x="730" y="575" width="100" height="5" rx="2.5"/><rect x="750" y="605" width="60" height="4" rx="2"/></g>
  <path d="M300 640 l70 0 l-12 18 l-46 0 z" fill="#1f1a28"/><path d="M334 560 l0 80" stroke="#1f1a28" stroke-width="4"/><path d="M336 566 l36 60 l-36 0 z" fill="#f7efe2"/>
</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 82 }).toBuffer();
}

describe.skipIf(!HAS_CHROMIUM)('the contributor web form on a phone', () => {
  let env: BrowserEnv;

  beforeAll(async () => {
    env = await startBrowserEnv();
  });

  afterAll(async () => {
    await env?.close();
  });

  it('sends a memory with a photo; it lands pending with its photo', async () => {
    const owner = await newApiUser(env);
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'Grandma Rose turns 90', subtitle: 'Memories from all of us, for her birthday' });
    expect(book.status).toBe(201);
    const slug = book.body.slug as string;
    // The book is not public: its form opens with the key its web channel row carries.
    const channels = await api(env, owner.token, 'GET', `/books/${slug}/channels/`);
    const formUrl = channels.body.items.find((r: any) => r.channel === 'web').address as string;
    expect(formUrl).toMatch(new RegExp(`^${env.base}/b/${slug}/\\?key=[A-Za-z0-9_-]{16,}$`));
    const blocked = await fetch(`${env.base}/b/${slug}/`);
    expect(blocked.status).toBe(404);
    expect(await blocked.text()).not.toContain('Grandma Rose');
    const photo = path.join(SHOTS, 'lake-at-sunset.jpg');
    writeFileSync(photo, await sunsetPhoto());

    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const problems = watchProblems(page);

    await page.goto(formUrl);
    expect(await page.textContent('.book-title')).toBe('Grandma Rose turns 90');
    // Labelled fields, large enough to hit with a thumb.
    for (const [label, id] of [['Your name', 'name'], ['Your memory', 'text'], ['A photo (optional)', 'photo']]) {
      expect(await page.getByLabel(label, { exact: true }).getAttribute('id')).toBe(id);
    }
    for (const selector of ['#name', '#text', 'button.send']) {
      const box = (await page.locator(selector).boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The title is set in the theme's typeface, loaded from our own origin.
    await page.evaluate(() => document.fonts.ready);
    expect(await page.evaluate(() => document.fonts.check('700 40px "mb-title-elegant_classic"'))).toBe(true);

    await page.fill('#name', 'Aunt May');
    await page.fill(
      '#text',
      'Every summer at the lake, Grandma Rose was first into the water. She would count to three, laugh, and jump, and one by one we all followed. I still hear that laugh whenever I swim.',
    );
    await page.setInputFiles('#photo', photo);
    await page.locator('#photo-preview').waitFor({ state: 'visible' });
    expect(await page.locator('#photo-preview img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1200);
    await page.locator('#text').blur();
    await page.screenshot({ path: path.join(SHOTS, 'web-form.png'), fullPage: true });

    await Promise.all([page.waitForURL(formUrl.replace(`/b/${slug}/?`, `/b/${slug}/thanks/?`)), page.click('button.send')]);
    expect(await page.textContent('h2')).toBe('Thank you!');
    expect(await page.textContent('.thanks')).toContain('Grandma Rose turns 90');
    await page.screenshot({ path: path.join(SHOTS, 'web-form-thanks.png'), fullPage: true });
    console.log(`screenshots in ${SHOTS}`);

    const list = await api(env, owner.token, 'GET', `/books/${slug}/submissions/`);
    expect(list.body.items).toHaveLength(1);
    const s = list.body.items[0];
    expect(s).toMatchObject({ status: 'pending', source: 'web', contributor_name: 'Aunt May', contributor_user: null });
    expect(s.text_content).toContain('Grandma Rose was first into the water');
    expect(s.media).toHaveLength(1);
    expect(s.media[0]).toMatchObject({ kind: 'image', mime_type: 'image/jpeg' });

    // The photo is the one chosen, byte for byte.
    const media = await api(env, owner.token, 'GET', `/books/${slug}/submissions/${s.id}/media/${s.media[0].id}/`);
    const stored = Buffer.from(await (await fetch(media.body.download_url)).arrayBuffer());
    expect(stored.equals(readFileSync(photo))).toBe(true);

    // A file that is not a picture is caught on the phone, before any upload.
    await page.goto(formUrl);
    const notPhoto = path.join(SHOTS, 'notes.txt');
    writeFileSync(notPhoto, 'not a picture');
    await page.setInputFiles('#photo', notPhoto);
    expect(await page.textContent('#photo-error')).toContain('That file is not a photo');
    expect(await page.inputValue('#photo')).toBe('');

    // Another book, another theme: its own colours and title face.
    const dark = await api(env, owner.token, 'POST', '/books/', { title: 'Ines & Tomás', subtitle: 'Our wedding, in your words', theme: 'botanical_luxe' });
    const darkChannels = await api(env, owner.token, 'GET', `/books/${dark.body.slug}/channels/`);
    await page.goto(darkChannels.body.items.find((r: any) => r.channel === 'web').address);
    expect(await page.getAttribute('body', 'class')).toBe('theme-botanical_luxe');
    await page.evaluate(() => document.fonts.ready);
    expect(await page.evaluate(() => document.fonts.check('600 40px "mb-title-botanical_luxe"'))).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'web-form-botanical_luxe.png'), fullPage: true });

    expect(problems).toEqual([]);
    await context.close();
  });
});

