/**
 * Page designs of daily_journal and retirement_tribute, read from the renderer's trace and the PDF:
 * - daily_journal: a short entry with one photo has its print taped beside its words (the words run down
 *   beside the photo, in the rest of the column, not under it), and its prints sit askew;
 * - retirement_tribute: a long tribute is set in two columns under its photo across the top of the page, and
 *   short tributes in a row never make two quote (certificate) pages back to back;
 * - both: a one-word memory after a letter's tail does not share the tail's page (left half empty): it opens
 *   the next page, the tail's page filled with a line of the letter set large.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type BookTrace, type PageKind, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import type { Theme } from '../../../src/media-tools/themes.js';
import { writing } from '../../helpers/test-book.js';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const memory = (i: number, o: Partial<PdfMemory> = {}): PdfMemory => ({
  id: `m${i}`,
  text: `Memory ${i}: the lake, the pier and the long drive home in the rain.`,
  signature: `Writer ${i}`,
  date: `2026-05-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
  pinned: false,
  pictures: [],
  recordings: [],
  ...o,
});

/** The angles (degrees) of the rotations drawn on the pages (a `cos sin -sin cos x y cm`), in order. */
async function rotations(file: string): Promise<number[]> {
  const pdf = await PDFDocument.load(await readFile(file), { updateMetadata: false });
  const out: number[] = [];
  for (const page of pdf.getPages()) {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => pdf.context.lookup(r)) : [contents];
    for (const st of streams) {
      if (!(st instanceof PDFRawStream)) continue;
      const text = Buffer.from(decodePDFRawStream(st).decode()).toString('latin1');
      for (const m of text.matchAll(/([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) [-\d.]+ [-\d.]+ cm/g)) {
        const [a, b, c, d] = [1, 2, 3, 4].map((k) => Number(m[k]));
        if (Math.abs(b) > 1e-4 && Math.abs(b + c) < 1e-4 && Math.abs(a - d) < 1e-4) out.push((Math.atan2(b, a) * 180) / Math.PI);
      }
    }
  }
  return out;
}

type Line = Parameters<NonNullable<BookTrace['line']>>[2] & { page: number; id: string };
type Box = { x: number; y: number; w: number; h: number };

describe('daily_journal and retirement_tribute page designs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-journal-tribute-'));
    await sharp({ create: { width: 1800, height: 1200, channels: 3, background: '#2b5797' } }).jpeg().toFile(path.join(dir, 'landscape.jpg'));
    await sharp({ create: { width: 1200, height: 1600, channels: 3, background: '#97572b' } }).jpeg().toFile(path.join(dir, 'portrait.jpg'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function render(theme: Theme, memories: PdfMemory[]) {
    const file = path.join(dir, `${theme}.pdf`);
    const kinds: PageKind[] = [];
    const lines: Line[] = [];
    const pictures: { page: number; id: string; beside?: Box }[] = [];
    await renderPdfBook({
      title: 'For Margaret',
      subtitle: 'Thirty years',
      theme,
      bleedMm: 0,
      gutterMm: 0,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
      output: createWriteStream(file),
      dates: { first: memories[0].date, last: memories.at(-1)!.date },
      trace: {
        page: (n, kind) => (kinds[n - 1] = kind),
        line: (n, id, l) => lines.push({ ...l, page: n, id }),
        picture: (n, id, at) => pictures.push({ page: n, id, beside: at?.beside ? { x: at.x, y: at.y!, w: at.w, h: at.h! } : undefined }),
      },
    });
    return { file, kinds, lines, pictures };
  }

  it('daily_journal: a short entry with one photo has it taped beside its words, askew', async () => {
    const list = [
      memory(0, { text: writing('english', 45, 11), pictures: [{ key: 'portrait', kind: 'photo' }] }),
      memory(1, { text: writing('english', 30, 12), pictures: [{ key: 'landscape', kind: 'photo' }] }),
      memory(2, { text: writing('english', 40, 13) }),
    ];
    const { file, lines, pictures } = await render('daily_journal', list);
    for (const id of ['m0', 'm1']) {
      const pic = pictures.find((x) => x.id === id);
      expect(pic?.beside, `${id}: its photo beside its words`).toBeDefined();
      const box = pic!.beside!;
      const mine = lines.filter((l) => l.id === id);
      expect(mine.length).toBeGreaterThan(1);
      for (const l of mine) {
        // On the photo's page, in a column clear of the photo, and the first lines level with it (not under it).
        expect(l.page).toBe(pic!.page);
        const clear = l.column.x + l.column.w <= box.x + 0.5 || l.column.x >= box.x + box.w - 0.5;
        expect(clear, `${id}: a line's column ${l.column.x.toFixed(0)}+${l.column.w.toFixed(0)} clear of the photo ${box.x.toFixed(0)}+${box.w.toFixed(0)}`).toBe(true);
      }
      expect(mine[0].baseline, `${id}: its first line beside the photo, not under it`).toBeLessThan(box.y + box.h);
    }
    // A memory without a photo has the whole column.
    const [plainLine] = lines.filter((l) => l.id === 'm2');
    const besideLine = lines.find((l) => l.id === 'm0')!;
    expect(plainLine.column.w).toBeGreaterThan(besideLine.column.w * 1.5);
    // The prints are turned a little (a rotation before each is drawn), one way then the other.
    const turns = await rotations(file);
    expect(turns.some((a) => a > 0.5 && a < 3) && turns.some((a) => a < -0.5 && a > -3), `turns: ${turns.join(', ')}`).toBe(true);
  }, 60_000);

  it('retirement_tribute: a long tribute in two columns under its photo; never two quote pages back to back', async () => {
    const list = [
      memory(0, { text: writing('english', 700, 21), pictures: [{ key: 'landscape', kind: 'photo' }] }),
      ...[1, 2, 3, 4, 5].map((i) => memory(i, { text: writing('english', 6 + i, 30 + i) })),
      memory(6, { text: writing('english', 400, 22) }),
    ];
    const { kinds, lines, pictures } = await render('retirement_tribute', list);
    // The long tribute: its photo on the page its words open, its lines in two columns there.
    const pic = pictures.find((x) => x.id === 'm0')!;
    const first = lines.filter((l) => l.id === 'm0' && l.page === pic.page);
    expect(first.length).toBeGreaterThan(4);
    const columns = [...new Set(first.map((l) => Math.round(l.column.x)))];
    expect(columns.length, 'two columns on the tribute page').toBe(2);
    for (const id of ['m0', 'm6']) {
      // (The columns move with the page: counted on the page it opens on.)
      const mine = lines.filter((l) => l.id === id);
      const cols = new Set(mine.filter((l) => l.page === mine[0].page).map((l) => Math.round(l.column.x)));
      expect(cols.size, `${id}: set in two columns`).toBe(2);
    }
    // Five short tributes in a row: quote pages, but never two back to back.
    for (const [i, k] of kinds.entries()) if (k === 'quote' && kinds[i + 1] === 'quote') throw new Error(`quote pages back to back: ${i + 1} and ${i + 2}`);
    expect(kinds.filter((k) => k === 'quote').length, 'some short tributes set alone as certificates').toBeGreaterThan(0);
  }, 60_000);

  for (const theme of ['daily_journal', 'retirement_tribute'] as Theme[]) {
    it(`${theme}: a one-word memory after a letter's tail opens the next page, not the foot of the tail's`, async () => {
      // Letters of growing length, until one has left a tail of a few lines on their last page; then one word.
      let short = 0;
      for (let words = 600; words <= 1600 && short < 1; words += 50) {
        const list = [memory(0, { text: writing('english', words, 41) }), memory(1, { text: 'Every.' }), memory(2, { text: writing('english', 50, 43) })];
        const { lines } = await render(theme, list);
        const tailPage = Math.max(...lines.filter((l) => l.id === 'm0').map((l) => l.page));
        const word = lines.find((l) => l.id === 'm1')!;
        // (In two columns, the tail's lines are shared between them: its height is the longer column's.)
        const tail = lines.filter((l) => l.id === 'm0' && l.page === tailPage);
        const rows = new Set(tail.map((l) => Math.round(l.baseline))).size;
        if (rows >= 10) continue;
        short++;
        expect(word.page, `${words} words: a tail of ${rows} lines on page ${tailPage}, the one word on page ${word.page}`).toBeGreaterThan(tailPage);
      }
      expect(short, 'letters leaving a short tail').toBeGreaterThan(0);
    }, 120_000);
  }
});
