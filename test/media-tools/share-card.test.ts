import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { THEMES } from '../../src/services/books/book-types.js';
import { renderShareCard, SHARE_CARD_HEIGHT, SHARE_CARD_WIDTH, withFallbacks } from '../../src/media-tools/share-card.js';
import { EMOJI_FONT, fontFilePath, THEME_STYLES, themeFaces } from '../../src/media-tools/themes.js';
import { ensureFixtures, fixturePaths } from '../helpers/media-fixtures.js';

const WORDS = 'Grandpa taught me to fish on this lake every summer. He never caught much, but he always said the waiting was the best part.';

/** Cards are kept here so a person can look at them (the path is printed once). */
let outDir: string;
beforeAll(async () => {
  await ensureFixtures(['jpeg', 'jpegRotated', 'heicHeader']);
  outDir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-share-cards-'));
  console.info(`share cards written to ${outDir}`);
});

async function expectCard(png: Buffer): Promise<void> {
  const meta = await sharp(png).metadata();
  expect(meta).toMatchObject({ format: 'png', width: SHARE_CARD_WIDTH, height: SHARE_CARD_HEIGHT });
  // Decodes for real and holds more than a flat background.
  const { channels } = await sharp(png).stats();
  expect(Math.max(...channels.slice(0, 3).map((c) => c.stdev))).toBeGreaterThan(5);
}

/** Mean colour of a region, to tell whether the photo landed there. */
async function meanColour(png: Buffer, left: number, top: number, width: number, height: number): Promise<number[]> {
  const region = await sharp(png).extract({ left, top, width, height }).png().toBuffer();
  const { channels } = await sharp(region).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

describe('themes', () => {
  it('has a style for every export theme, with font files that exist', () => {
    expect(Object.keys(THEME_STYLES).sort()).toEqual([...THEMES].sort());
    for (const style of Object.values(THEME_STYLES)) {
      for (const face of themeFaces(style)) expect(existsSync(fontFilePath(face)), fontFilePath(face)).toBe(true);
      expect(style.palette.background).toMatch(/^#[0-9A-F]{6}$/i);
    }
    expect(existsSync(fontFilePath(EMOJI_FONT))).toBe(true);
  });
});

describe('renderShareCard', () => {
  it.each(THEMES.map((t, i) => [t, i] as const))('%s: a 1200×630 PNG, with and without photo', async (theme, i) => {
    const plain = await renderShareCard({ text: WORDS, contributorName: 'Emma Lindqvist', bookTitle: 'For Grandpa Joe', theme });
    await expectCard(plain);
    await writeFile(path.join(outDir, `${theme}.png`), plain);
    const withPhoto = await renderShareCard({ text: WORDS, contributorName: 'Emma', bookTitle: 'For Grandpa Joe', theme, photoPath: i % 2 ? fixturePaths.jpeg : fixturePaths.jpegRotated });
    await expectCard(withPhoto);
    await writeFile(path.join(outDir, `${theme}-photo.png`), withPhoto);
    // The photo fills the right-hand side: its colours there differ from the plain card's background.
    const right = await meanColour(withPhoto, 1000, 200, 150, 200);
    const plainRight = await meanColour(plain, 1000, 200, 150, 200);
    expect(right).not.toEqual(plainRight);
  });

  it('fits very long text (clamped with an ellipsis, nothing overflows)', async () => {
    const long = 'We laughed until the sun came up and then we laughed some more. '.repeat(200);
    const started = Date.now();
    const png = await renderShareCard({ text: long, contributorName: 'A'.repeat(300), bookTitle: 'T'.repeat(300), theme: 'storybook' });
    await expectCard(png);
    expect(Date.now() - started).toBeLessThan(10_000);
    await writeFile(path.join(outDir, 'long.png'), png);
    // The bottom margin stays background: no text ran past the card's padding.
    const strip = await sharp(png).extract({ left: 0, top: SHARE_CARD_HEIGHT - 20, width: SHARE_CARD_WIDTH, height: 20 }).png().toBuffer();
    const bottom = await sharp(strip).stats();
    expect(Math.max(...bottom.channels.slice(0, 3).map((c) => c.stdev))).toBeLessThan(1);
  });

  it('draws markup characters and emoji as text', async () => {
    const png = await renderShareCard({
      text: '<script>alert("x")</script> Tom & Jerry </svg><svg onload=alert(1)> ]]> 🎉❤️👨‍👩‍👧 &amp; &#x3C;',
      contributorName: '<b>Zoë</b> & Ana 🌻',
      bookTitle: 'A & B <3',
      theme: 'editorial_noir',
    });
    await expectCard(png);
    await writeFile(path.join(outDir, 'markup-emoji.png'), png);
  });

  it('draws emoji in colour (Twemoji): a skin tone and a family each one picture, where the words are', async () => {
    /** Pixels of the words' area (left of the card, below the title row) far from grey: colour, not ink. */
    const colourful = async (png: Buffer) => {
      const { data, info } = await sharp(png).extract({ left: 0, top: 150, width: 1100, height: 320 }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      let n = 0;
      for (let i = 0; i < data.length; i += info.channels) if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 90) n++;
      return n;
    };
    const card = (text: string) => renderShareCard({ text, contributorName: 'Ana', bookTitle: 'Grandma', theme: 'modern_editorial' });
    const words = await card('We laughed so hard and then came home');
    const emoji = await card('We laughed so hard 👍🏽 and then 👨‍👩‍👧 came home 🎉');
    await writeFile(path.join(outDir, 'colour-emoji.png'), emoji);
    // The theme's own words and colours are not colourful; three colour emoji are (each about 60 px square).
    expect(await colourful(words)).toBeLessThan(50);
    expect(await colourful(emoji)).toBeGreaterThan(1500);
    // The thumbs-up keeps its medium skin tone (Twemoji's #C68642-ish browns), not the default yellow alone.
    const { data, info } = await sharp(emoji).extract({ left: 0, top: 150, width: 1100, height: 320 }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let tone = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (r > 150 && r < 230 && g > 110 && g < 180 && b > 70 && b < 140 && r - b > 60) tone++;
    }
    expect(tone).toBeGreaterThan(200);
  });

  it('draws every script with the fallback faces it needs, and only those', async () => {
    const input = {
      text: 'Nguyễn Thị Hương — 奶奶，谢谢您 — 할머니 감사해요 — شكرا يا جدتي — תודה סבתא — दादी माँ ❤️',
      contributorName: 'Nguyễn Thị Hương',
      bookTitle: 'Bà nội 90',
      theme: 'editorial_noir',
    };
    const families = withFallbacks(THEME_STYLES.editorial_noir, input).map((f) => f.family);
    // Vietnamese in DM Serif Display and DM Sans: their companions (see fallbackFaces), Playfair Display and Inter.
    // The words are in the quote face, DM Serif Display: its Chinese and Hebrew fall back to serifs too.
    for (const f of ['Playfair Display', 'Inter', 'Noto Serif SC', 'Noto Sans KR', 'Noto Naskh Arabic', 'Frank Ruhl Libre', 'Noto Sans Devanagari', 'Noto Emoji']) expect(families).toContain(f);
    const latinOnly = withFallbacks(THEME_STYLES.elegant_classic, { ...input, text: WORDS, contributorName: 'Ana', bookTitle: 'Grandpa' }).map((f) => f.family);
    for (const cjk of ['Noto Sans SC', 'Noto Serif SC']) expect(latinOnly).not.toContain(cjk);
    const png = await renderShareCard(input);
    await expectCard(png);
    await writeFile(path.join(outDir, 'scripts.png'), png);
    // The same words with characters no face has (drawn as .notdef boxes) give another picture: the real ones are drawn.
    const boxes = await renderShareCard({ ...input, text: input.text.replace(/[^\s\p{Script=Latin}—]/gu, '\u{10FFFD}') });
    const diff = await sharp(png).composite([{ input: boxes, blend: 'difference' }]).stats();
    expect(Math.max(...diff.channels.slice(0, 3).map((c) => c.mean))).toBeGreaterThan(0.5);
  }, 60_000);

  it('renders empty words and names', async () => {
    await expectCard(await renderShareCard({ text: '   ', contributorName: '', bookTitle: 'Only a title', theme: 'modern_clean', photoPath: fixturePaths.jpeg }));
  });

  it('falls back to the default theme for an unknown one', async () => {
    const unknown = await renderShareCard({ text: WORDS, contributorName: 'Emma', bookTitle: 'Book', theme: 'no_such_theme' });
    const classic = await renderShareCard({ text: WORDS, contributorName: 'Emma', bookTitle: 'Book', theme: 'elegant_classic' });
    expect(unknown.equals(classic)).toBe(true);
  });

  it('leaves out a photo it cannot decode (HEIC, missing file) instead of failing', async () => {
    const heic = await renderShareCard({ text: WORDS, contributorName: 'Emma', bookTitle: 'Book', theme: 'wedding_album', photoPath: fixturePaths.heicHeader });
    const none = await renderShareCard({ text: WORDS, contributorName: 'Emma', bookTitle: 'Book', theme: 'wedding_album' });
    expect(heic.equals(none)).toBe(true);
    await expectCard(await renderShareCard({ text: WORDS, contributorName: 'Emma', bookTitle: 'Book', theme: 'wedding_album', photoPath: '/nonexistent/photo.jpg' }));
  });
});
