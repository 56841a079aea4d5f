/**
 * Each theme's cover, read back from the PDFs: the front of the cover wrap
 * is the theme's own design (its pixels differ from every other theme's),
 * the book's first page is that same front, the spine carries the title
 * only when it is wide enough, and the back keeps the barcode area clear (flat, in the page's colour).
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCoverWrap, spineWidthMm } from '../../../src/exports/pdf/cover-wrap.js';
import { BARCODE_AREA_MM, SPINE_TEXT_MIN_MM } from '../../../src/exports/pdf/covers.js';
import { mm, TRIM_MM } from '../../../src/exports/pdf/geometry.js';
import { renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { THEMES, type Theme } from '../../../src/media-tools/themes.js';

const run = promisify(execFile);
const DPI = 24;
const BLEED_MM = 3;
const CALIPER_MM = 0.06;
const TITLE = 'Grandma turns 90';
/** Who wrote the memories: more than three lines of names on a back cover hold. */
const CONTRIBUTORS = ['Sam', 'Rose', 'Ana', 'Tom', 'Lena', 'Ivo', 'Mira', 'Kofi', 'Yuki', 'Omar', 'Priya', 'Jonas', 'Elif', 'Noor', 'Pablo', 'Greta', 'Hana', 'Luca', 'Zoe', 'Femi', 'Dan', 'Ines', 'Sam Jr', 'Aunt Bea', 'Uncle Joe', 'Grandpa', 'Cousin Max', 'Mei', 'Ravi', 'Olga', 'Teodor', 'Magdalena', 'Bartholomew', 'Anastasia', 'Maximilian', 'Guinevere', ...Array.from({ length: 40 }, (_, i) => `Friend${i + 1}`)];
const SUBTITLE = 'Lakes, songs and cardamom buns';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

interface Raster {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** One page as pixels, cropped to a box given in millimetres from the page's top left. */
async function raster(file: string, page: number, box: { x: number; y: number; w: number; h: number }, prefix: string): Promise<Raster> {
  await run('pdftoppm', ['-png', '-r', String(DPI), '-f', String(page), '-l', String(page), '-singlefile', file, prefix]);
  const px = (v: number) => Math.round((v / 25.4) * DPI);
  const { data, info } = await sharp(`${prefix}.png`)
    .extract({ left: px(box.x), top: px(box.y), width: px(box.w), height: px(box.h) })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Share of pixels whose colour differs clearly between two rasters of one size. */
function difference(a: Raster, b: Raster): number {
  let differ = 0;
  const n = a.width * a.height;
  for (let i = 0; i < n; i++) {
    let d = 0;
    for (let c = 0; c < 3; c++) d += Math.abs(a.data[i * a.channels + c] - b.data[i * b.channels + c]);
    if (d > 60) differ++;
  }
  return differ / n;
}

/** 1 where a pixel is well away from the raster's commonest colour (its background): the layout, whatever its colours. */
function inkMask(r: Raster): Uint8Array {
  const grey = (i: number) => Math.round((r.data[i * r.channels] * 299 + r.data[i * r.channels + 1] * 587 + r.data[i * r.channels + 2] * 114) / 1000);
  const n = r.width * r.height;
  const counts = new Uint32Array(256);
  for (let i = 0; i < n; i++) counts[grey(i)]++;
  const background = counts.indexOf(Math.max(...counts));
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = Math.abs(grey(i) - background) > 14 ? 1 : 0;
  return mask;
}

const maskDifference = (a: Uint8Array, b: Uint8Array) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0) / a.length;

/** Words of a page with their boxes (points, from the page's top left). */
async function words(file: string, page?: number) {
  const args = ['-bbox', ...(page ? ['-f', String(page), '-l', String(page)] : []), file, '-'];
  const { stdout } = await run('pdftotext', args);
  return [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    x0: Number(m[1]),
    y0: Number(m[2]),
    x1: Number(m[3]),
    y1: Number(m[4]),
    text: m[5],
  }));
}

describe('each theme has its own cover', () => {
  let dir: string;
  let photo: string;
  const fronts = new Map<string, Raster>();

  async function wrap(theme: Theme, o: { photo: boolean; pageCount?: number; name?: string }) {
    const file = path.join(dir, `${o.name ?? `${theme}-${o.photo}`}.pdf`);
    const result = await renderCoverWrap({
      title: TITLE,
      subtitle: SUBTITLE,
      theme,
      bleedMm: BLEED_MM,
      pageCount: o.pageCount ?? 120,
      caliperMm: CALIPER_MM,
      memoryCount: 124,
      photo: o.photo ? { path: photo } : null,
      back: { quote: { text: 'She taught every one of us to swim in the lake.', signature: 'Sam' }, dates: { first: '2026-05-01T10:00:00Z', last: '2026-10-03T10:00:00Z' }, contributors: CONTRIBUTORS },
      output: createWriteStream(file),
    });
    return { file, result };
  }

  /** The trimmed front of a theme's wrap. */
  async function front(theme: Theme, withPhoto: boolean): Promise<Raster> {
    const key = `${theme}:${withPhoto}`;
    if (!fronts.has(key)) {
      const { file, result } = await wrap(theme, { photo: withPhoto });
      fronts.set(key, await raster(file, 1, { x: BLEED_MM + TRIM_MM + result.spineMm, y: BLEED_MM, w: TRIM_MM, h: TRIM_MM }, path.join(dir, `${theme}-${withPhoto}-front`)));
    }
    return fronts.get(key)!;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-covers-'));
    photo = path.join(dir, 'photo.jpg');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1800"><rect width="100%" height="100%" fill="#6fa8dc"/><circle cx="1700" cy="500" r="200" fill="#ffe599"/><rect y="1200" width="2400" height="600" fill="#38761d"/></svg>`;
    await sharp(Buffer.from(svg)).jpeg().toFile(photo);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const theme of THEMES) {
    it(`${theme}: the wrap's front differs from every other theme's, with a photo and without`, async () => {
      for (const other of THEMES) {
        if (other === theme) continue;
        // With the same photo, the treatment (bleed, frame, window) and type differ in where they ink the page.
        const withPhoto = maskDifference(inkMask(await front(theme, true)), inkMask(await front(other, true)));
        expect(withPhoto, `${theme} and ${other} with a photo`).toBeGreaterThan(0.06);
        const typographic = difference(await front(theme, false), await front(other, false));
        expect(typographic, `${theme} and ${other} without a photo`).toBeGreaterThan(0.03);
      }
    }, 120_000);
  }

  it('the book opens with the same front as its cover wrap', async () => {
    for (const theme of ['elegant_classic', 'editorial_noir', 'daily_journal'] as const) {
      const file = path.join(dir, `${theme}-book.pdf`);
      await renderPdfBook({
        title: TITLE,
        subtitle: SUBTITLE,
        theme,
        bleedMm: BLEED_MM,
        gutterMm: 0,
        memoryCount: 124,
        memories: iterate<PdfMemory>([]),
        openPicture: async () => ({ path: photo, release: async () => {} }),
        output: createWriteStream(file),
        coverPicture: 'cover',
      });
      const first = await raster(file, 1, { x: BLEED_MM, y: BLEED_MM, w: TRIM_MM, h: TRIM_MM }, path.join(dir, `${theme}-book-1`));
      const cover = await front(theme, true);
      // The full-bleed photo of a book's page also runs into the bleed on the binding side, so it is cropped a hair differently.
      expect(difference(first, cover), `${theme}: first page against the wrap's front`).toBeLessThan(0.04);
      // And it is not a page of any other theme.
      expect(difference(first, await front(theme === 'editorial_noir' ? 'modern_clean' : 'editorial_noir', true))).toBeGreaterThan(0.1);
    }
  }, 120_000);

  it('the spine carries the title, reading top to bottom, only from 6 mm wide', async () => {
    const below = Math.floor((SPINE_TEXT_MIN_MM - 0.1) / CALIPER_MM);
    const above = Math.ceil(SPINE_TEXT_MIN_MM / CALIPER_MM);
    for (const theme of THEMES) {
      for (const pageCount of [below, above]) {
        const { file, result } = await wrap(theme, { photo: false, pageCount, name: `${theme}-spine-${pageCount}` });
        expect(result.spineMm).toBe(spineWidthMm(pageCount, CALIPER_MM));
        const spine = { x0: mm(BLEED_MM + TRIM_MM), x1: mm(BLEED_MM + TRIM_MM + result.spineMm) };
        const on = (await words(file)).filter((w) => w.x0 >= spine.x0 - 1 && w.x1 <= spine.x1 + 1);
        if (result.spineMm < SPINE_TEXT_MIN_MM) {
          expect(on, `${theme}: ${result.spineMm} mm spine`).toEqual([]);
          continue;
        }
        expect(on.map((w) => w.text.toLowerCase()).join(' '), `${theme}: ${result.spineMm} mm spine`).toBe(TITLE.toLowerCase());
        // Turned a quarter clockwise: the words go down the spine, the first above the next.
        for (let i = 1; i < on.length; i++) expect(on[i].y0).toBeGreaterThan(on[i - 1].y0);
        expect(on[0].y1 - on[0].y0, 'a word runs down the spine').toBeGreaterThan(on[0].x1 - on[0].x0);
      }
    }
  }, 180_000);

  it('the back keeps its barcode area clear (one flat colour, no empty white box on a coloured page), and carries the quote, the dates and who it is from', async () => {
    for (const theme of THEMES) {
      const { file } = await wrap(theme, { photo: true, name: `${theme}-back` });
      const a = BARCODE_AREA_MM;
      // Inside the area, a little in from its edges: nothing printed, the page's own colour throughout.
      const box = { x: BLEED_MM + TRIM_MM - a.inset - a.w + 1, y: BLEED_MM + TRIM_MM - a.inset - a.h + 1, w: a.w - 2, h: a.h - 2 };
      const r = await raster(file, 1, box, path.join(dir, `${theme}-barcode`));
      const flat = r.data.every((v, i) => Math.abs(v - r.data[i % r.channels]) <= 6);
      expect(flat, `${theme}: nothing printed in the barcode area`).toBe(true);
      const back = (await words(file)).filter((w) => w.x1 <= mm(BLEED_MM + TRIM_MM));
      const text = back.map((w) => w.text).join(' ');
      expect(text, theme).toContain('swim in the lake.');
      expect(text.toUpperCase(), theme).toContain('MAY – OCTOBER 2026');
      // Who the book is from: how many, and the first names as three lines hold them (the rest counted).
      expect(text, theme).toContain(`With love from ${CONTRIBUTORS.length} people: Sam, Rose,`);
      expect(text, `${theme}: ${text}`).toMatch(/and \d+ more/);
      const ofTheLine = new Set([...CONTRIBUTORS.flatMap((n) => n.split(' ')), 'With', 'love', 'from', 'people:', 'and', 'more']);
      const names = back.filter((w) => ofTheLine.has(w.text.replace(/,$/, '')));
      const lines = new Set(names.map((w) => Math.round(w.y0)));
      expect(lines.size, `${theme}: names on at most three lines`).toBeLessThanOrEqual(3);
    }
  }, 120_000);
});
