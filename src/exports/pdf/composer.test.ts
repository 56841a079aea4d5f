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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookGeometry } from './geometry.js';
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
      // A signature prints on the page of its memory's last line.
      for (let m = 0; m < list.length; m++) {
        const last = words.filter((w) => w.text.startsWith(`q${m}w`)).at(-1)!;
        // (The signature is one ActualText span, so pdftotext gives it as one word.)
        const sig = words.find((w) => w.text.includes(`Writer ${m} `));
        expect(sig?.page, `signature of memory ${m}`).toBe(last.page);
      }
      // Sparse pages: memory pages whose words cover under 40% of the live area's height. Only the last may be.
      const g = bookGeometry(0, 0);
      const live = g.content(3);
      let sparse = 0;
      for (let page = 3; page <= result.pageCount; page++) {
        const on = words.filter((w) => w.page === page && w.yMin >= live.y - 1 && w.yMax <= live.y + live.h + 1);
        if (!on.length) continue; // the closing ornament page
        const height = Math.max(...on.map((w) => w.yMax)) - Math.min(...on.map((w) => w.yMin));
        if (height < live.h * 0.4) sparse++;
      }
      expect(sparse, `sparse pages in ${theme}`).toBeLessThanOrEqual(1);
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
