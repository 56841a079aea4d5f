/**
 * The eleven themes are eleven designs, not one layout recoloured: the first
 * page of memories and a photo page, rendered to pixels, differ in where ink
 * falls (compared as ink masks, so a change of colour alone does not count),
 * and the text column sits at a different place or width.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { THEMES, type Theme } from '../../../src/media-tools/themes.js';

const run = promisify(execFile);
const DPI = 20;

/** The pairs that used to be one layout in two palettes. */
const NEAR_TWINS: [Theme, Theme][] = [
  ['elegant_classic', 'heirloom_gallery'],
  ['retirement_tribute', 'botanical_luxe'],
  ['storybook', 'baby_first_year'],
  ['modern_clean', 'editorial_noir'],
];

const WORDS =
  'We drove to the lake every August, and she always packed too many sandwiches and a thermos of sweet tea for the long way home. ' +
  'She taught the little ones to skip stones and the older ones to bake bread, and never once raised her voice.';

function memories(withPhoto: boolean): PdfMemory[] {
  return [0, 1, 2].map((i) => ({
    id: `m${i}`,
    text: i === 2 ? `${WORDS} ${WORDS}` : WORDS.slice(0, 120 + i * 40),
    signature: `Writer ${i}`,
    date: `2026-05-0${i + 1}T10:00:00Z`,
    pinned: false,
    pictures: withPhoto && i === 0 ? [{ key: 'photo', kind: 'photo' as const }] : [],
    recordings: [],
  }));
}

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

interface Page {
  /** 1 where the page is inked (differs from its own background), 0 elsewhere. */
  mask: Uint8Array;
  /** The text column on the page: leftmost word start and widest extent, points. */
  left: number;
  width: number;
}

describe('the themes differ', () => {
  let dir: string;
  let photo: string;
  const pages = new Map<string, Page>();

  async function pageOf(theme: Theme, withPhoto: boolean): Promise<Page> {
    const key = `${theme}:${withPhoto}`;
    const known = pages.get(key);
    if (known) return known;
    const file = path.join(dir, `${theme}-${withPhoto ? 'photo' : 'text'}.pdf`);
    await renderPdfBook({
      title: 'Grandma turns 90',
      subtitle: 'Lakes, songs and cardamom buns',
      theme,
      bleedMm: 0,
      gutterMm: 0,
      memoryCount: 3,
      memories: iterate(memories(withPhoto)),
      openPicture: async () => ({ path: photo, release: async () => {} }),
      output: createWriteStream(file),
    });
    const prefix = path.join(dir, `${theme}-${withPhoto}`);
    await run('pdftoppm', ['-png', '-gray', '-r', String(DPI), '-f', '3', '-l', '3', '-singlefile', file, prefix]);
    const { data, info } = await sharp(`${prefix}.png`).greyscale().raw().toBuffer({ resolveWithObject: true });
    // The background is the commonest grey; ink is anything well away from it.
    const counts = new Uint32Array(256);
    for (const v of data) counts[v]++;
    const background = counts.indexOf(Math.max(...counts));
    const mask = new Uint8Array(info.width * info.height);
    for (let i = 0; i < mask.length; i++) mask[i] = Math.abs(data[i * info.channels] - background) > 12 ? 1 : 0;
    const { stdout } = await run('pdftotext', ['-bbox', '-f', '3', '-l', '3', file, '-']);
    const words = [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)]
      .filter((m) => /^[a-z,.]+$/.test(m[3]))
      .map((m) => ({ x0: Number(m[1]), x1: Number(m[2]) }));
    const left = Math.min(...words.map((w) => w.x0));
    const page = { mask, left, width: Math.max(...words.map((w) => w.x1)) - left };
    pages.set(key, page);
    return page;
  }

  /** Share of the page where one is inked and the other is not. */
  function difference(a: Page, b: Page): number {
    let differ = 0;
    for (let i = 0; i < a.mask.length; i++) if (a.mask[i] !== b.mask[i]) differ++;
    return differ / a.mask.length;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-themes-'));
    photo = path.join(dir, 'photo.jpg');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1800" height="1200"><rect width="100%" height="100%" fill="#6fa8dc"/><circle cx="1300" cy="360" r="150" fill="#ffe599"/><rect y="820" width="1800" height="380" fill="#38761d"/></svg>`;
    await sharp(Buffer.from(svg)).jpeg().toFile(photo);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const [a, b] of NEAR_TWINS) {
    it(`${a} and ${b}: their pages are laid out differently`, async () => {
      for (const withPhoto of [false, true]) {
        const [pa, pb] = [await pageOf(a, withPhoto), await pageOf(b, withPhoto)];
        expect(difference(pa, pb), `ink that differs, ${withPhoto ? 'photo' : 'first'} page`).toBeGreaterThan(0.08);
      }
      const [ta, tb] = [await pageOf(a, false), await pageOf(b, false)];
      // The text column starts at least 3 mm apart, or is at least 6 mm wider or narrower.
      const apart = Math.abs(ta.left - tb.left) > 8.5 || Math.abs(ta.width - tb.width) > 17;
      expect(apart, `text column of ${a} (${ta.left.toFixed(0)}, ${ta.width.toFixed(0)}) and ${b} (${tb.left.toFixed(0)}, ${tb.width.toFixed(0)})`).toBe(true);
    }, 60_000);
  }

  it('no two of the eleven share a layout', async () => {
    for (let i = 0; i < THEMES.length; i++) {
      for (let j = i + 1; j < THEMES.length; j++) {
        for (const withPhoto of [false, true]) {
          const d = difference(await pageOf(THEMES[i], withPhoto), await pageOf(THEMES[j], withPhoto));
          expect(d, `${THEMES[i]} and ${THEMES[j]}, ${withPhoto ? 'photo' : 'first'} page`).toBeGreaterThan(0.03);
        }
      }
    }
  }, 120_000);
});
