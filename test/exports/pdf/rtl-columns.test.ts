/**
 * Right-to-left memories set as their readers read them: in a two-column theme (editorial_noir) a long
 * Arabic or Hebrew memory starts in the right column on every page; a bar theme's accent bar stands to
 * the right of its column; every line of a right-to-left paragraph that is not justified (a
 * paragraph's last, in a justified theme too) ends at the column's right edge, read back from the PDF; and
 * a long letter's pull quote has its rules drawn from the right edge, where its lines start.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import type { Theme } from '../../../src/media-tools/themes.js';
import { writing } from '../../helpers/test-book.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const memories: PdfMemory[] = (['arabic', 'hebrew'] as const).map((script, i) => ({
  id: script,
  text: writing(script, 700, 3700 + i),
  signature: script === 'arabic' ? 'سلمى' : 'נועה',
  date: `2026-05-0${i + 1}T10:00:00Z`,
  pinned: false,
  pictures: [],
  recordings: [],
}));

type Column = { x: number; w: number };
type Traced = { page: number; id: string; baseline: number; column: Column; justified: boolean; last: boolean; dir: 'ltr' | 'rtl' };

async function render(dir: string, theme: Theme) {
  const file = path.join(dir, `${theme}.pdf`);
  const lines: Traced[] = [];
  const bars: { page: number; id: string; x: number; column: Column }[] = [];
  const pullRules: { page: number; id: string; x: number; w: number; box: Column }[] = [];
  await renderPdfBook({
    title: 'Right to left',
    subtitle: '',
    theme,
    bleedMm: 3,
    gutterMm: 10,
    memoryCount: memories.length,
    memories: iterate(memories),
    openPicture: async () => {
      throw new Error('no pictures in this book');
    },
    output: createWriteStream(file),
    trace: {
      line: (page, id, l) => lines.push({ page, id, ...l }),
      bar: (page, id, b) => bars.push({ page, id, x: b.x, column: b.column }),
      pullRule: (page, id, r) => pullRules.push({ page, id, ...r }),
    },
  });
  return { file, lines: lines.filter((l) => memories.some((m) => m.id === l.id)), bars, pullRules };
}

const DPI = 144;

/** A page rendered grey (pdftoppm -gray, P5): where ink lies. (pdftotext gives a reordered right-to-left line as one
 * span of its words as written, at a point: no box to measure its ends by.) */
async function greyPage(dir: string, file: string, page: number) {
  const out = path.join(dir, `page-${page}`);
  await run('pdftoppm', ['-gray', '-r', String(DPI), '-f', String(page), '-l', String(page), '-singlefile', file, out]);
  const buf = await readFile(`${out}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(buf.subarray(0, 64).toString('latin1'))!;
  return { data: buf.subarray(header[0].length), width: Number(header[1]) };
}

/** The rightmost ink, in points, in a band of a page (x0–x1 wide, top–bottom high, points). */
function inkRight(grey: { data: Uint8Array; width: number }, x0: number, x1: number, top: number, bottom: number): number | null {
  const k = DPI / 72;
  // (Ink is what differs from the paper, light or dark, read at the band's right end.)
  const paper = grey.data[Math.round(bottom * k) * grey.width + Math.round(x1 * k)];
  let right = -1;
  for (let y = Math.round(top * k); y <= Math.round(bottom * k); y++) {
    for (let x = Math.round(x1 * k); x > right && x >= Math.round(x0 * k); x--) {
      if (Math.abs(grey.data[y * grey.width + x] - paper) > 96) {
        right = x;
        break;
      }
    }
  }
  return right < 0 ? null : (right + 1) / k;
}

/** Where a page has a straight run of ink `length` points long (±2), as the left ends of those runs (points). */
function rulesOfLength(grey: { data: Uint8Array; width: number }, length: number): number[] {
  const k = DPI / 72;
  const height = grey.data.length / grey.width;
  const paper = grey.data[0];
  const starts: number[] = [];
  for (let y = 0; y < height; y++) {
    let run = 0;
    for (let x = 0; x <= grey.width; x++) {
      const ink = x < grey.width && Math.abs(grey.data[y * grey.width + x] - paper) > 48;
      if (ink) run++;
      else {
        if (Math.abs(run / k - length) <= 2) starts.push((x - run) / k);
        run = 0;
      }
    }
  }
  return starts;
}

describe('right-to-left memories', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-rtl-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('editorial_noir: a long Arabic or Hebrew memory starts in the right column on every page, its bar right of it', async () => {
    const { lines, bars } = await render(dir, 'editorial_noir');
    for (const m of memories) {
      const mine = lines.filter((l) => l.id === m.id);
      expect(mine.every((l) => l.dir === 'rtl'), m.id).toBe(true);
      const pages = [...new Set(mine.map((l) => l.page))];
      let twoColumns = 0;
      for (const page of pages) {
        const on = mine.filter((l) => l.page === page);
        const xs = [...new Set(on.map((l) => Math.round(l.column.x)))];
        if (xs.length < 2) continue;
        twoColumns++;
        // The page's first line (in reading order) is in the right column; the left one follows it.
        expect(Math.round(on[0].column.x), `${m.id} p${page}`).toBe(Math.max(...xs));
        const firstLeft = on.findIndex((l) => Math.round(l.column.x) === Math.min(...xs));
        expect(on.slice(firstLeft).every((l) => Math.round(l.column.x) === Math.min(...xs)), `${m.id} p${page}: right column, then left`).toBe(true);
      }
      expect(twoColumns, `${m.id}: pages in two columns`).toBeGreaterThan(0);
      const mark = bars.filter((b) => b.id === m.id);
      expect(mark.length, `${m.id}: bar`).toBeGreaterThan(0);
      for (const b of mark) expect(b.x, `${m.id}: bar right of its column`).toBeGreaterThanOrEqual(b.column.x + b.column.w);
    }
  });

  it('modern_clean: the bar beside a right-to-left memory stands to the right of its column', async () => {
    const { bars } = await render(dir, 'modern_clean');
    for (const m of memories) {
      const mark = bars.filter((b) => b.id === m.id);
      expect(mark.length, `${m.id}: bar`).toBeGreaterThan(0);
      for (const b of mark) expect(b.x, `${m.id}: bar right of its column`).toBeGreaterThanOrEqual(b.column.x + b.column.w);
    }
  });

  it.each(['elegant_classic', 'editorial_noir'] as const)('%s: every line of a right-to-left paragraph ends at its column\u2019s right edge', async (theme) => {
    const { file, lines } = await render(dir, theme);
    const problems: string[] = [];
    const pages = new Map<number, Awaited<ReturnType<typeof greyPage>>>();
    let lasts = 0;
    for (const l of lines) {
      if (!pages.has(l.page)) pages.set(l.page, await greyPage(dir, file, l.page));
      const right = l.column.x + l.column.w;
      // The line's band: from the x-height's top to the baseline (no descender, no mark of the line below).
      const end = inkRight(pages.get(l.page)!, l.column.x - 2, right + 4, l.baseline - 5, l.baseline);
      if (end === null) {
        problems.push(`${l.id} p${l.page}: no ink at ${l.baseline.toFixed(1)}`);
        continue;
      }
      if (l.last) lasts++;
      if (Math.abs(end - right) > 1.5) problems.push(`${l.id} p${l.page}${l.last ? ' (paragraph\u2019s last line)' : ''}: ends at ${end.toFixed(1)}, column's right ${right.toFixed(1)}`);
    }
    expect(lasts, 'paragraphs\u2019 last lines read back').toBeGreaterThan(3);
    expect(problems).toEqual([]);
  });

  it.each(['elegant_classic', 'editorial_noir'] as const)('%s: a right-to-left pull quote\u2019s rules start from its column\u2019s right edge', async (theme) => {
    const { file, pullRules } = await render(dir, theme);
    for (const m of memories) {
      const rules = pullRules.filter((r) => r.id === m.id);
      expect(rules.length, `${m.id}: a pull quote`).toBeGreaterThan(0);
      for (const r of rules) {
        expect(r.x + r.w, `${m.id}: its rule ends at the quote box's right edge`).toBeCloseTo(r.box.x + r.box.w, 1);
        // Read back: both rules are drawn so (no straight run of ink that long starts elsewhere on the page).
        const drawn = rulesOfLength(await greyPage(dir, file, r.page), r.w);
        expect(drawn.length, `${m.id} p${r.page}: its rules read back`).toBeGreaterThanOrEqual(2);
        const from = r.box.x + r.box.w - r.w;
        for (const x of drawn) expect(Math.abs(x - from), `${m.id} p${r.page}: a rule from ${x.toFixed(1)} pt, not from the box's right edge less the rule, ${from.toFixed(1)}`).toBeLessThan(1.5);
      }
    }
  });
});
