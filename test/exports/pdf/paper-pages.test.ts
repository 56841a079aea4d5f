/**
 * Text that reads, a memorial that honours (issue 37): botanical_luxe and retirement_tribute set their pages of
 * words on paper (dark ink on a light page) and keep their dark ground for the cover and quote pages; their
 * margins grow from the gutter to the fore-edge. memorial_service opens with a frontispiece spread, the portrait
 * facing the name (and the years when the title gives them), sets its letters ragged-right at 10 pt or more in near-black
 * on a light page, and a short note quietly, at its own size.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luminance, renderPdfBook, type PageKind, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { PDF_LOOKS } from '../../../src/exports/pdf/pdf-themes.js';
import type { Theme } from '../../../src/media-tools/themes.js';
import { INTENTS } from '../../../src/services/exports/export-types.js';
import { writing } from '../../helpers/test-book.js';
import { printedImages } from '../../helpers/pdf-readback.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const memory = (i: number, text: string, pictures: PdfMemory['pictures'] = []): PdfMemory => ({
  id: `m${i}`,
  text,
  signature: `Writer ${i}`,
  date: `2026-05-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
  pinned: false,
  pictures,
  recordings: [],
});

/** Letters and short notes in turn: pages of running words, and short notes alone on their pages. */
const BOOK = [
  memory(0, writing('english', 700, 11)),
  memory(1, 'Thank you for every morning you opened the office with a smile.'),
  memory(2, writing('english', 650, 12)),
  memory(3, 'We will miss you, and we will keep the garden going.'),
  memory(4, writing('english', 500, 13)),
];

describe('text that reads, a memorial that honours', () => {
  let dir: string;
  let photo: string;
  let rendered = 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-paper-'));
    photo = path.join(dir, 'portrait.jpg');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="1500"><rect width="100%" height="100%" fill="#8a9bb0"/><circle cx="600" cy="560" r="260" fill="#e8c4a0"/></svg>`;
    await writeFile(photo, await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer());
  });
  afterAll(async () => {
    if (!process.env.KEEP_PAPER) await rm(dir, { recursive: true, force: true });
  });

  async function render(theme: Theme, o: { title?: string; subtitle?: string; cover?: boolean } = {}) {
    const kinds: PageKind[] = [];
    const lines: { page: number; id: string; size: number; long: boolean; justified: boolean }[] = [];
    const file = path.join(dir, `${theme}-${++rendered}.pdf`);
    const result = await renderPdfBook({
      title: o.title ?? 'For Margaret',
      subtitle: o.subtitle ?? 'Thirty years',
      theme,
      ...INTENTS.home,
      memoryCount: BOOK.length,
      memories: iterate(BOOK),
      openPicture: async (key) => {
        if (key !== 'portrait') throw new Error(`no picture ${key}`);
        return { path: photo, release: async () => {} };
      },
      output: createWriteStream(file),
      coverPicture: o.cover ? 'portrait' : null,
      dates: { first: BOOK[0].date, last: BOOK.at(-1)!.date },
      trace: { page: (n, kind) => (kinds[n - 1] = kind), line: (n, id, l) => lines.push({ page: n, id, size: l.size, long: l.long, justified: l.justified }) },
    });
    await new Promise((r) => setTimeout(r, 50));
    return { file, kinds, lines, pages: result.pageCount };
  }

  /** Each page's ground: its commonest grey (0 black to 255 white), read from a small rendering. */
  async function grounds(file: string, pages: number): Promise<number[]> {
    const prefix = path.join(dir, `${path.basename(file, '.pdf')}-g`);
    await run('pdftoppm', ['-gray', '-r', '12', file, prefix]);
    const digits = String(pages).length;
    const out: number[] = [];
    for (let n = 1; n <= pages; n++) {
      const bytes = await readFile(`${prefix}-${String(n).padStart(digits, '0')}.pgm`);
      // A binary PGM: three header lines, then one byte a pixel.
      let at = 0;
      for (let nl = 0; nl < 3; at++) if (bytes[at] === 0x0a) nl++;
      const counts = new Uint32Array(256);
      for (const v of bytes.subarray(at)) counts[v]++;
      out.push(counts.indexOf(Math.max(...counts)));
    }
    return out;
  }

  for (const theme of ['botanical_luxe', 'retirement_tribute'] as const) {
    it(`${theme}: pages of words on paper, the cover and quote pages on the theme's dark ground`, async () => {
      const { file, kinds, pages } = await render(theme);
      const ground = await grounds(file, pages);
      expect(ground[0], 'the cover, on the dark ground').toBeLessThan(100);
      const memoryPages = kinds.flatMap((k, i) => (k === 'memories' ? [i] : []));
      expect(memoryPages.length).toBeGreaterThan(2);
      for (const i of memoryPages) expect(ground[i], `page ${i + 1} of words, on paper`).toBeGreaterThan(200);
      for (const [i, k] of kinds.entries()) if (k === 'quote') expect(ground[i], `page ${i + 1}, a quote page, on the dark ground`).toBeLessThan(100);
      // The paper's ink reads: dark on light, as a book's text (contrast of 7:1 or more).
      const paper = PDF_LOOKS[theme].paper!.palette;
      const contrast = (luminance(paper.background) + 0.05) / (luminance(paper.text) + 0.05);
      expect(contrast).toBeGreaterThan(7);
    }, 60_000);
  }

  for (const theme of ['botanical_luxe', 'retirement_tribute', 'memorial_service'] as const) {
    it(`${theme}: the margins grow from the gutter to the fore-edge (a home print's gutter included)`, () => {
      const m = PDF_LOOKS[theme].margins;
      expect(m.inner + INTENTS.home.gutterMm).toBeLessThanOrEqual(m.outer);
    });
  }

  it('memorial_service: opens with the portrait on a verso facing the name and the years', async () => {
    const { file, kinds } = await render('memorial_service', { title: 'In loving memory of Rose Ellis, 1931–2024', subtitle: '', cover: true });
    expect(kinds.slice(1, 3), "the book's first spread, after its cover").toEqual(['frontispiece', 'frontispiece']);
    const { stdout } = await run('pdftotext', ['-f', '3', '-l', '3', '-layout', file, '-']);
    // (The name is set in spaced capitals: its letters are read without the spaces.)
    expect(stdout.replace(/\s+/g, '')).toContain('ROSEELLIS');
    expect(stdout).toContain('1931–2024');
    const images = (await printedImages(file)).filter((x) => x.page === 2);
    expect(images.length, 'the portrait on the verso, facing the name').toBe(1);
    expect(images[0].height, 'upright').toBeGreaterThan(images[0].width);
    expect(Math.min(images[0].xPpi, images[0].yPpi)).toBeGreaterThanOrEqual(200);
  }, 60_000);

  it('memorial_service: a title without years shows the name alone; letters ragged-right at 10 pt or more; a short note at its own size', async () => {
    const { file, kinds, lines } = await render('memorial_service', { title: 'Margaret Hale: a life in letters', subtitle: 'From all of us' });
    expect(kinds.slice(1, 3)).toEqual(['frontispiece', 'frontispiece']);
    const { stdout } = await run('pdftotext', ['-f', '3', '-l', '3', '-layout', file, '-']);
    expect(stdout.replace(/\s+/g, '')).toContain('MARGARETHALE');
    expect(stdout, 'no years invented').not.toMatch(/\d/);
    const long = lines.filter((l) => l.long);
    expect(long.length).toBeGreaterThan(20);
    for (const l of long) {
      expect(l.size, `${l.id} on page ${l.page}`).toBeGreaterThanOrEqual(10);
      expect(l.justified, `${l.id} on page ${l.page}, ragged-right`).toBe(false);
    }
    const look = PDF_LOOKS.memorial_service;
    for (const id of ['m1', 'm3']) {
      const note = lines.filter((l) => l.id === id);
      expect(note.length, `${id} is set`).toBeGreaterThan(0);
      for (const l of note) expect(l.size, `${id}, a short note, not blown up`).toBeLessThanOrEqual(look.quoteSize + 1.5);
    }
    // Near-black ink on a light page.
    const ink = look.paper!.palette;
    expect(luminance(ink.background)).toBeGreaterThan(0.85);
    expect(luminance(ink.text)).toBeLessThan(0.03);
  }, 60_000);
});
