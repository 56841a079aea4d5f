/**
 * Each theme's grid, read from the renderer's trace (the live area, the text columns and the photo cells
 * per page type) and from the page: no two themes share a grid (every pair differs by more than 8 mm, or in
 * its number of cells, in at least two page types: a recolouring of one grid fails); margins grow from the gutter to the foot
 * (inner, top, outer, bottom, as Bringhurst has them) and the text column keeps more room on its outer
 * side than on the gutter's; a long letter runs 45–75 characters a line (read back from the PDF's words);
 * a narrow measure (under 50 characters a line) is set ragged-right, never justified.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookGeometry, type Box } from '../../../src/exports/pdf/geometry.js';
import type { GridCells } from '../../../src/exports/pdf/grid.js';
import { renderPdfBook, type BookTrace, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { PDF_LOOKS } from '../../../src/exports/pdf/pdf-themes.js';
import { THEMES, type Theme } from '../../../src/media-tools/themes.js';
import { writing } from '../../helpers/test-book.js';

const run = promisify(execFile);
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

type TracedLine = Parameters<NonNullable<BookTrace['line']>>[2] & { page: number; id: string };

function letter(): string {
  const paragraphs = [0, 1, 2, 3, 4].map((i) => writing('english', 90, 7 + i));
  return paragraphs.map((x) => `${x[0].toUpperCase()}${x.slice(1)}.`).join('\n\n');
}

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const mm = (pt: number) => (pt * 25.4) / 72;
/** The page types a grid sets: a long memory's text columns, a memory's photo cells by what it brings, a breather. */
const PAGE_TYPES = ['text', 'photo-landscape', 'photo-portrait', 'photo-pair', 'breather'] as const;
/** What else the grid places on a page of memories (reported, not counted). */
const FURNITURE = ['card', 'frame', 'folio', 'head'] as const;
/** Two grids differ in a page type when its cells differ in number, or one of them by more than this in position or size, mm. */
const APART_MM = 8;

function cellsDiffer(a: Box[], b: Box[]): boolean {
  if (a.length !== b.length) return true;
  return a.some((c, i) => [c.x - b[i].x, c.y - b[i].y, c.w - b[i].w, c.h - b[i].h].some((d) => mm(Math.abs(d)) > APART_MM));
}

/** The ink in a band of page n (top-left points): how far it keeps from the page's left and right edges, points. */
async function inkAcross(file: string, n: number, band: { x0: number; x1: number; top: number; bottom: number }): Promise<{ left: number; right: number }> {
  const { x0, x1, top, bottom } = band;
  const dpi = 50;
  const { stdout } = await run('pdftoppm', ['-png', '-gray', '-r', String(dpi), '-f', String(n), '-l', String(n), file], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  const { data, info } = await sharp(stdout).greyscale().raw().toBuffer({ resolveWithObject: true });
  const px = dpi / 72;
  const rows = [Math.max(0, Math.floor(top * px)), Math.min(info.height, Math.ceil(bottom * px))];
  // The paper: the commonest shade in the band (not over the whole page, where a photo may be larger).
  const counts = new Uint32Array(256);
  for (const v of data.subarray(rows[0] * info.width, rows[1] * info.width)) counts[v]++;
  const background = counts.indexOf(Math.max(...counts));
  let [first, last] = [info.width, -1];
  for (let y = rows[0]; y < rows[1]; y++) {
    // Not the page's last pixel column: only part of it is page, the rest blends with white on a dark paper.
    for (let x = Math.max(0, Math.floor(x0 * px)); x < Math.min(info.width - 1, Math.ceil(x1 * px)); x++) {
      if (Math.abs(data[y * info.width + x] - background) <= 40) continue;
      first = Math.min(first, x);
      last = Math.max(last, x);
    }
  }
  expect(last, `ink on page ${n} between ${top.toFixed(0)} and ${bottom.toFixed(0)} pt`).toBeGreaterThan(first);
  return { left: first / px, right: (info.width - 1 - last) / px };
}

function describe_(cells: Box[]): string {
  if (!cells.length) return '—';
  const [c] = cells;
  const size = `${mm(c.w).toFixed(0)}×${mm(c.h).toFixed(0)} @${mm(c.x).toFixed(0)},${mm(c.y).toFixed(0)}`;
  return cells.length > 1 ? `${cells.length}× ${size}` : size;
}

describe('theme grids', () => {
  let dir: string;
  let photo: string;
  const traced = new Map<Theme, { grid: GridCells; lines: TracedLine[]; file: string }>();

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-grids-'));
    photo = path.join(dir, 'photo.jpg');
    await sharp({ create: { width: 1800, height: 1200, channels: 3, background: '#6fa8dc' } }).jpeg().toFile(photo);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function render(theme: Theme) {
    const known = traced.get(theme);
    if (known) return known;
    const file = path.join(dir, `${theme}.pdf`);
    const memories: PdfMemory[] = [
      { id: 'letter', text: letter(), signature: 'Rose', date: '2026-05-01T10:00:00Z', pinned: false, pictures: [], recordings: [] },
      { id: 'photo', text: 'The lake at dawn.', signature: 'Tom', date: '2026-05-01T10:00:00Z', pinned: false, pictures: [{ key: 'photo', kind: 'photo' }], recordings: [] },
    ];
    let grid: GridCells | null = null;
    const lines: TracedLine[] = [];
    await renderPdfBook({
      title: 'Grids',
      subtitle: '',
      theme,
      bleedMm: 0,
      gutterMm: 0,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async () => ({ path: photo, release: async () => {} }),
      output: createWriteStream(file),
      trace: { grid: (cells) => (grid = cells), line: (n, id, l) => lines.push({ ...l, page: n, id }) },
    });
    expect(grid, `${theme}: the trace reports its grid`).not.toBeNull();
    const entry = { grid: grid!, lines, file };
    traced.set(theme, entry);
    return entry;
  }

  it('margins grow from the gutter to the foot in every theme (inner < top < outer < bottom)', () => {
    for (const theme of THEMES) {
      const m = PDF_LOOKS[theme].margins;
      expect(m.inner < m.top && m.top < m.outer && m.outer < m.bottom, `${theme}: ${JSON.stringify(m)}`).toBe(true);
    }
  });

  it('no two themes share a grid: every pair differs by more than 8 mm (or in cells) in at least two page types', async () => {
    for (const theme of THEMES) {
      const { grid } = await render(theme);
      // On a recto (the trace's page 3) the gutter is on the left.
      const g = bookGeometry(0, 0, PDF_LOOKS[theme].margins);
      const t = g.trimmed();
      const [first, last] = [grid.text[0], grid.text.at(-1)!];
      const [inside, outside] = [first.x - t.x, t.x + t.w - (last.x + last.w)];
      expect(inside, `${theme}: text column ${inside.toFixed(0)} pt from the gutter, ${outside.toFixed(0)} pt from the outer edge`).toBeLessThanOrEqual(outside + 0.5);
    }
    // The table for the note: theme × page type → its cells (count × width × height at x, y, mm).
    const table = [`| theme | ${PAGE_TYPES.join(' | ')} | furniture |`, `|---|${PAGE_TYPES.map(() => '---').join('|')}|---|`];
    for (const theme of THEMES) {
      const { grid } = traced.get(theme)!;
      const furniture = FURNITURE.map((type) => (grid[type]?.length ? `${type} ${describe_(grid[type])}` : null)).filter(Boolean).join('; ');
      table.push(`| ${theme} | ${PAGE_TYPES.map((type) => describe_(grid[type] ?? [])).join(' | ')} | ${furniture} |`);
    }
    console.log(`Cells per page type (mm: count× w×h @ x,y, on a recto):\n${table.join('\n')}`);
    for (let i = 0; i < THEMES.length; i++) {
      for (let j = i + 1; j < THEMES.length; j++) {
        const [a, b] = [traced.get(THEMES[i])!.grid, traced.get(THEMES[j])!.grid];
        const differing = PAGE_TYPES.filter((type) => cellsDiffer(a[type] ?? [], b[type] ?? []));
        expect(differing.length, `${THEMES[i]} and ${THEMES[j]} differ only in ${differing.join(', ') || 'nothing'}`).toBeGreaterThanOrEqual(2);
      }
    }
  }, 240_000);

  it('the text column sits nearer the fold than the fore-edge, on a verso and a recto, without a channel or a block adrift', async () => {
    const rows: string[] = [];
    const problems: string[] = [];
    for (const theme of THEMES) {
      const { lines, file } = await render(theme);
      const t = bookGeometry(0, 0, PDF_LOOKS[theme].margins).trimmed();
      const long = lines.filter((l) => l.id === 'letter' && l.long);
      const sides: string[] = [];
      for (const recto of [false, true]) {
        const page = long.find((l) => l.page % 2 === (recto ? 1 : 0))?.page;
        expect(page, `${theme}: the letter runs onto a ${recto ? 'recto' : 'verso'}`).toBeDefined();
        // The text block as printed: the ink between the letter's first and last line on that page (its
        // words, and an accent bar beside them; a magazine's two columns as one block), read from the page.
        const on = long.filter((l) => l.page === page);
        const [top, bottom] = [Math.min(...on.map((l) => l.baseline - l.size)), Math.max(...on.map((l) => l.baseline))];
        // Within 10 mm of the columns: not a frame, corner ornament or folio further out.
        const [x0, x1] = [Math.min(...on.map((l) => l.column.x)) - (10 * 72) / 25.4, Math.max(...on.map((l) => l.column.x + l.column.w)) + (10 * 72) / 25.4];
        const { left, right } = await inkAcross(file, page!, { x0, x1, top, bottom });
        // The fold is on the left of a recto, on the right of a verso.
        const [fold, fore] = recto ? [left, right] : [right, left];
        sides.push(`${recto ? 'recto' : 'verso'} ${mm(left).toFixed(0)}–${mm(t.w - right).toFixed(0)} (fold ${mm(fold).toFixed(0)}, fore-edge ${mm(fore).toFixed(0)})`);
        if (fore < fold - 0.5 || fore > 2.2 * fold) problems.push(`${theme}, ${recto ? 'recto' : 'verso'} ${page}: ${mm(fold).toFixed(1)} mm to the fold, ${mm(fore).toFixed(1)} mm to the fore-edge`);
      }
      rows.push(`| ${theme} | ${sides.join(' | ')} |`);
    }
    console.log(`Text column on the page, mm from the left trim:\n| theme | verso | recto |\n|---|---|---|\n${rows.join('\n')}`);
    // The fore-edge keeps at least the fold's room (margins grow outward) and at most 2.2× it: more leaves a
    // channel down the middle of the spread (a centred narrow column) or the text block adrift against the gutter.
    expect(problems).toEqual([]);
  }, 240_000);

  it('one measure a theme: a long letter runs 45–75 characters a line, ragged-right when the measure is narrow', async () => {
    for (const theme of THEMES) {
      const { lines, file } = await render(theme);
      const look = PDF_LOOKS[theme];
      const long = lines.filter((l) => l.id === 'letter' && l.long);
      expect(long.length, theme).toBeGreaterThan(10);
      expect(look.longMeasure, theme).toBeGreaterThanOrEqual(45);
      expect(look.longMeasure, theme).toBeLessThanOrEqual(75);
      // Read back: the characters on each full line (not a paragraph's last), on its page, in its column.
      const { stdout } = await run('pdftotext', ['-bbox', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
      const pages: { x0: number; y0: number; x1: number; y1: number; text: string }[][] = [];
      for (const line of stdout.split('\n')) {
        if (line.includes('<page ')) pages.push([]);
        const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/.exec(line);
        if (m) pages.at(-1)!.push({ x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), y1: Number(m[4]), text: m[5].replace(/&amp;/g, '&') });
      }
      const counts = long
        .filter((l) => !l.last)
        .map((l) => pages[l.page - 1].filter((w) => w.y0 - 1 <= l.baseline && l.baseline <= w.y1 + 1 && w.x1 > l.column.x - 2 && w.x0 < l.column.x + l.column.w + 2))
        .filter((ws) => ws.length)
        .map((ws) => [...graphemes.segment(ws.map((w) => w.text).join(' '))].length);
      const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
      expect(mean, `${theme}: characters a line (measure ${look.longMeasure})`).toBeGreaterThanOrEqual(45);
      expect(mean, `${theme}: characters a line (measure ${look.longMeasure})`).toBeLessThanOrEqual(75);
      // A narrow measure (under 50 characters) is set ragged-right: justified, its spaces would gape.
      if (mean < 50) expect(long.filter((l) => l.justified).length, `${theme}: justified lines in a measure of ${mean.toFixed(0)} characters`).toBe(0);
      // Within a few characters of the theme's own measure.
      expect(Math.abs(mean - look.longMeasure), `${theme}: ${mean.toFixed(1)} characters a line against a measure of ${look.longMeasure}`).toBeLessThan(8);
    }
  }, 240_000);
});
