/**
 * The page composer read back from the PDF (pdftotext's word boxes): no
 * memory leaves a single line at the foot of a page or carries one over to
 * the next, and pages are not left mostly empty.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Theme } from '../../media-tools/themes.js';
import { bookGeometry } from './geometry.js';
import { PDF_LOOKS } from './pdf-themes.js';
import { photoLayout } from './photo-layout.js';
import { renderPdfBook, type PdfMemory } from './pdf-book.js';
import { smartPunctuation } from './text-layout.js';

const run = promisify(execFile);

/** Memories whose words name them: `q<memory>w<word>`. One-liners to letters of 1,500 words, in paragraphs. */
function memories(): PdfMemory[] {
  const lengths = [3, 40, 12, 260, 6, 1500, 25, 90, 4, 700, 18, 350, 2, 120, 60, 900, 8, 30];
  return lengths.map((n, m) => {
    const words = Array.from({ length: n }, (_, w) => `q${m}w${w}`);
    const paragraphs: string[] = [];
    for (let i = 0; i < words.length; i += 70) paragraphs.push(words.slice(i, i + 70).join(' '));
    return { id: `m${m}`, text: paragraphs.join('\n\n'), signature: `Writer ${m}`, date: '2026-05-01T10:00:00Z', pinned: false, pictures: [], recordings: [] };
  });
}

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

interface Word {
  page: number;
  text: string;
  yMin: number;
  yMax: number;
}

async function wordsOf(file: string): Promise<Word[]> {
  const { stdout } = await run('pdftotext', ['-bbox', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
  const out: Word[] = [];
  let page = 0;
  for (const line of stdout.split('\n')) {
    if (line.includes('<page ')) page++;
    const m = /<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/.exec(line);
    if (m) out.push({ page, yMin: Number(m[1]), yMax: Number(m[2]), text: m[3] });
  }
  return out;
}

describe('the page composer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-composer-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const theme of ['elegant_classic', 'modern_clean', 'daily_journal', 'editorial_noir']) {
    it(`${theme}: no widow or orphan line, signatures with their memory, few sparse pages`, async () => {
      const file = path.join(dir, `${theme}.pdf`);
      const list = memories();
      const kinds: string[] = [];
      const result = await renderPdfBook({
        title: 'Composer',
        subtitle: '',
        theme,
        bleedMm: 0,
        gutterMm: 0,
        memoryCount: list.length,
        memories: iterate(list),
        openPicture: () => Promise.reject(new Error('no pictures')),
        output: createWriteStream(file),
        trace: { page: (n, kind) => (kinds[n - 1] = kind) },
      });
      const words = await wordsOf(file);
      // Lines of each memory on each page (words of a line share their top).
      const lines = new Map<string, Set<number>>();
      for (const w of words) {
        const m = /^q(\d+)w\d+$/.exec(w.text);
        if (!m) continue;
        const key = `${m[1]}:${w.page}`;
        const set = lines.get(key) ?? new Set<number>();
        set.add(Math.round(w.yMin));
        lines.set(key, set);
      }
      for (let m = 0; m < list.length; m++) {
        const pages = [...lines.keys()].filter((k) => k.startsWith(`${m}:`));
        if (pages.length < 2) continue;
        for (const k of pages) expect(lines.get(k)!.size, `memory ${m} on page ${k.split(':')[1]} of ${theme}`).toBeGreaterThanOrEqual(2);
      }
      // Who wrote it comes first: the byline prints on the page of its memory's first line, above it.
      for (let m = 0; m < list.length; m++) {
        const first = words.find((w) => w.text.startsWith(`q${m}w`))!;
        // (The byline is one ActualText span, so pdftotext gives it as one word, and where its marked content
        // starts rather than where it is drawn: its page is read back, not its place on the page.)
        const onPage = words.filter((w) => w.page === first.page).map((w) => w.text).join(' ');
        expect(new RegExp(`Writer ${m}( |$)`).test(onPage), `byline of memory ${m} on page ${first.page}`).toBe(true);
      }
      // Sparse pages: memory pages whose words cover under 40% of the live area's height. Only the last may be.
      const g = bookGeometry(0, 0, PDF_LOOKS[theme as Theme].margins);
      const live = g.content(3);
      let sparse = 0;
      for (let page = 3; page <= result.pageCount; page++) {
        const on = words.filter((w) => w.page === page && w.yMin >= live.y - 1 && w.yMax <= live.y + live.h + 1);
        if (!on.length || kinds[page - 1] !== 'memories') continue; // the ending's designed pages
        const height = Math.max(...on.map((w) => w.yMax)) - Math.min(...on.map((w) => w.yMin));
        if (height < live.h * 0.4) sparse++;
      }
      expect(sparse, `sparse pages in ${theme}`).toBeLessThanOrEqual(1);
    }, 60_000);
  }
});

/** Pages (1-based) that carry a picture. */
async function picturePages(file: string): Promise<Set<number>> {
  const { stdout } = await run('pdfimages', ['-list', file]);
  return new Set(stdout.split('\n').slice(2).map((l) => Number(l.trim().split(/\s+/)[0])).filter((n) => n > 0));
}

/** Short memories of many lengths (one word to a few lines), a few longer ones and one with a photo. */
function shortMemories(): PdfMemory[] {
  const lengths = [1, 9, 70, 4, 22, 2, 85, 14, 60, 3, 30, 6, 1, 45, 11, 5, 180, 2, 50, 17, 8, 1];
  return lengths.map((n, m) => ({
    id: `m${m}`,
    text: Array.from({ length: n }, (_, w) => `q${m}w${w}`).join(' '),
    signature: `Writer ${m}`,
    date: '2026-05-01T10:00:00Z',
    pinned: m === 4,
    pictures: m === 12 ? [{ key: 'photo', kind: 'photo' as const }] : [],
    recordings: [],
  }));
}

describe('short memories share pages, balanced', () => {
  let dir: string;
  let photo: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-balance-'));
    photo = path.join(dir, 'photo.jpg');
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#6b8fb8' } }).jpeg().toFile(photo);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const theme of ['elegant_classic', 'heirloom_gallery', 'storybook', 'daily_journal', 'editorial_noir']) {
    it(`${theme}: no page hangs from the top; only quote, photo and end pages are sparse`, async () => {
      const file = path.join(dir, `${theme}.pdf`);
      const list = shortMemories();
      const kinds: string[] = [];
      const result = await renderPdfBook({
        title: 'Balance',
        subtitle: '',
        theme,
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: list.length,
        memories: iterate(list),
        openPicture: async () => ({ path: photo, release: async () => {} }),
        output: createWriteStream(file),
        printReady: true,
        trace: { page: (n, kind) => (kinds[n - 1] = kind) },
      });
      const words = await wordsOf(file);
      const pictures = await picturePages(file);
      const g = bookGeometry(3, 10, PDF_LOOKS[theme as Theme].margins);
      const live = g.content(3);
      const centre = live.y + live.h / 2;
      let quotePages = 0;
      for (let page = 3; page <= result.pageCount; page++) {
        const on = words.filter((w) => w.page === page && /^q\d+w\d+$|^—|^“$/.test(w.text) && w.yMin >= live.y - 1 && w.yMax <= live.y + live.h + 1);
        const memoriesOn = new Set(on.filter((w) => w.text.startsWith('q')).map((w) => w.text.split('w')[0]));
        // (The ending's own pages, which quote the book to fill its last sheet, are designed pages, not memories': see ending-plan.ts.)
        if (!memoriesOn.size || pictures.has(page) || kinds[page - 1] === 'closing') continue; // notes and end pages, photo pages
        const top = Math.min(...on.map((w) => w.yMin));
        const blocks = [...memoriesOn].map((q) => {
          const mine = on.filter((w) => w.text.startsWith(`${q}w`));
          return { q, top: Math.min(...mine.map((w) => w.yMin)), bottom: Math.max(...mine.map((w) => w.yMax)) };
        });
        blocks.sort((x, y) => x.top - y.top);
        // A quote page's attribution (read back as a dash at its baseline) ends the memory above it. (Bylines,
        // ActualText spans pdftotext places where their marked content starts, are left out.)
        for (const sig of on.filter((w) => w.text.startsWith('—'))) {
          const owner = blocks.filter((bl) => bl.top < sig.yMin).at(-1);
          if (owner) owner.bottom = Math.max(owner.bottom, sig.yMin + 3);
        }
        const bottom = Math.max(...blocks.map((bl) => bl.bottom));
        const gaps = blocks.slice(1).map((bl, i) => bl.top - blocks[i].bottom);
        const below = live.y + live.h - bottom;
        // (Overleaf from the page before, or from the one before a designed page set between them: a picture book's drawn picture.)
        const before = kinds[page - 2] === 'quote' && !words.some((w) => w.page === page - 1 && w.text.startsWith('q')) ? page - 2 : page - 1;
        const continued = words.some((w) => w.page === before && w.text.startsWith(`${blocks[0].q}w`));
        const runsOn = words.some((w) => w.page === page + 1 && w.text.startsWith(`${blocks.at(-1)!.q}w`));
        // Balanced, not hanging from the top: a page of whole memories has its free space above and below
        // alike (its inked area centred); one that opens with the end of a memory from overleaf leaves no
        // more at its foot than between its memories.
        // (A page opening with a long letter's pull quote is balanced with its rules, which are not read back: 6 pt more.)
        const pull = words.some((w) => w.page === page && w.text.startsWith('“q'));
        // (Its first memory's byline, not read back, stands above its words: the inked area starts a byline higher.)
        const byline = PDF_LOOKS[theme as Theme].captionSize * 1.45 + 5;
        if (!continued && !runsOn) expect(Math.abs((top - byline + bottom) / 2 - centre), `page ${page} of ${theme} is balanced`).toBeLessThan(pull ? 32 : 24);
        // (Less the last memory's signature line: pdftotext may read a signature, an ActualText span, where its
        // marked content starts rather than where it is drawn, and then it is not found below its words.)
        const signature = PDF_LOOKS[theme as Theme].captionSize * 1.45 + 6;
        if (continued && !runsOn && gaps.length) expect(below - signature, `space at the foot of page ${page} of ${theme}`).toBeLessThanOrEqual(Math.max(...gaps) + 4);
        if (bottom - top >= live.h * 0.4) continue;
        // A sparse page is a quote page: one memory, centred on the live area.
        expect(memoriesOn.size, `memories on sparse page ${page} of ${theme}`).toBe(1);
        expect(Math.abs((top + bottom) / 2 - centre), `page ${page} of ${theme} is centred`).toBeLessThan(live.h * 0.06);
        quotePages++;
      }
      // Twenty-two memories, mostly one-liners: a few pages, not one each. (The memory with a photo takes its
      // photo with its word and signature, a journal's with its date heading too, to the next page when they do
      // not fit below together: a page more, a sheet of four more in print; and a theme whose measure is narrow
      // and foot margin deep, elegant_classic's, sets a page or two more: another sheet.)
      // (A picture book's read-aloud type and its drawn pictures through a letter take a sheet more.)
      expect(result.pageCount).toBeLessThanOrEqual(PDF_LOOKS[theme as Theme].illustrationRun ? 24 : 20);
      expect(quotePages).toBeLessThanOrEqual(2);
      // Every word printed.
      for (const [m, memory] of list.entries()) for (const w of memory.text.split(' ')) expect(words.some((x) => x.text === w), `${w} of memory ${m}`).toBe(true);
    }, 60_000);
  }
});

describe('photo layouts', () => {
  it('aligns the tops of photos side by side and keeps every cell in the column', () => {
    for (const aspects of [[1.5], [0.75], [1.5, 0.75], [1.5, 1.5], [0.75, 1.5, 1.5], [1, 1, 1, 1], [1.5, 0.75, 1, 1.3, 0.8]]) {
      const { cells, height } = photoLayout(aspects, 500, 420, 16);
      expect(cells).toHaveLength(aspects.length);
      for (const c of cells) {
        expect(c.x).toBeGreaterThanOrEqual(-0.01);
        expect(c.x + c.w).toBeLessThanOrEqual(500.01);
        expect(c.y + c.h).toBeLessThanOrEqual(height + 0.01);
      }
      if (aspects.length === 2) expect(cells[0].y).toBe(cells[1].y);
      if (aspects.length === 2) expect(cells[0].h).toBe(cells[1].h);
    }
  });
});

describe('smart punctuation', () => {
  it('curls quotes and apostrophes and sets dashes and ellipses', () => {
    expect(smartPunctuation(`"It's Grandma's," she said -- 'always'... x--y`)).toBe('\u201CIt\u2019s Grandma\u2019s,\u201D she said \u2013 \u2018always\u2019\u2026 x\u2014y');
  });
});
