/**
 * A picture book's pages, read back from the render trace and the PDF's text (storybook, baby_first_year): a
 * memory with a photo opens a page with it, its words under it; its held photos a page each; a baby book that
 * spans months opens each month with a chapter page of its number and name. Small books: cheap to render.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type PageKind, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

/** `n` sentences about `seed`, each its own. */
const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `The ${seed} of day ${i} was long and warm and full of songs.`).join(' ');

function memory(id: string, date: string, text: string, photos: string[]): PdfMemory {
  return { id, text, signature: `Writer ${id}`, date, pinned: false, pictures: photos.map((key) => ({ key, kind: 'photo' as const })), recordings: [] };
}

describe('picture books', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-picture-books-'));
    for (const [key, hue] of [['a', '#6a9fd8'], ['b', '#c8794a'], ['c', '#4f8a3c']] as const) {
      await sharp({ create: { width: 1800, height: 1200, channels: 3, background: hue } }).jpeg().toFile(path.join(dir, `${key}.jpg`));
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function render(theme: string, memories: PdfMemory[], dates: { first: string; last: string }, subjects: Record<string, unknown> = {}) {
    const file = path.join(dir, `${theme}.pdf`);
    const kinds: PageKind[] = [];
    const pictures: { page: number; id: string }[] = [];
    const breathers: { page: number; id: string }[] = [];
    const lines: { page: number; id: string; size: number; long: boolean }[] = [];
    const drawn: number[] = [];
    const opens = new Map<number, string>();
    const cards: { page: number; id: string; top: number; photo: { y: number; h: number }; subject: { y: number; h: number } | null }[] = [];
    await renderPdfBook({
      title: 'Our year',
      subtitle: '',
      theme,
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {}, subject: subjects[key] }),
      output: createWriteStream(file),
      dates,
      trace: {
        page: (n, kind) => (kinds[n - 1] = kind),
        line: (n, id, l) => (lines.push({ page: n, id, size: l.size, long: l.long }), opens.has(n) || opens.set(n, id)),
        illustration: (n) => drawn.push(n),
        picture: (n, id) => (pictures.push({ page: n, id }), opens.has(n) || opens.set(n, id)),
        breather: (n, id) => breathers.push({ page: n, id }),
        card: (n, id, c) => cards.push({ page: n, id, ...c }),
      },
    });
    const text = async (n: number) => (await run('pdftotext', ['-f', String(n), '-l', String(n), '-enc', 'UTF-8', file, '-'])).stdout.replace(/\s+/g, ' ');
    const fonts = async (n: number) => (await run('pdffonts', ['-f', String(n), '-l', String(n), file])).stdout;
    return { kinds, pictures, breathers, lines, opens, text, cards, drawn, fonts };
  }

  it.each(['storybook', 'baby_first_year'])('%s: a memory with a photo opens a page with its picture over its words; held photos a page each', async (theme) => {
    const memories = [
      memory('letter', '2026-05-01T10:00:00Z', words(40, 'summer'), []),
      memory('short', '2026-05-02T10:00:00Z', 'Thank you for every story.', ['a']),
      memory('note', '2026-05-03T10:00:00Z', 'We love you.', []),
      memory('three', '2026-05-04T10:00:00Z', words(4, 'lake'), ['a', 'b', 'c']),
    ];
    const { kinds, pictures, breathers, lines, opens } = await render(theme, memories, { first: memories[0].date, last: memories.at(-1)!.date });
    for (const id of ['short', 'three']) {
      const page = Math.min(...pictures.filter((x) => x.id === id).map((x) => x.page));
      expect(opens.get(page), `${id}'s photo on page ${page}: ${kinds.join(' ')} ${JSON.stringify(lines.filter((l) => l.page === page))}`).toBe(id);
      expect(lines.find((l) => l.id === id)?.page, `${id}'s words`).toBe(page);
    }
    // Its two held photos: a page each, after it.
    const held = breathers.filter((b) => b.id === 'three').map((b) => b.page);
    expect(held.length).toBe(2);
    expect(new Set(held).size).toBe(2);
    expect(Math.min(...held)).toBeGreaterThan(Math.max(...pictures.filter((x) => x.id === 'three').map((x) => x.page)));
  }, 60_000);

  it('baby_first_year: a book spanning months opens each month with a chapter page, its number large', async () => {
    const memories = [
      memory('jan', '2026-01-10T10:00:00Z', 'First smile.', ['a']),
      memory('jan2', '2026-01-20T10:00:00Z', words(6, 'giggle'), []),
      memory('mar', '2026-03-05T10:00:00Z', 'First tooth!', []),
      memory('apr', '2026-04-15T10:00:00Z', 'First steps in the garden.', ['b']),
    ];
    const { kinds, lines, pictures, text } = await render('baby_first_year', memories, { first: memories[0].date, last: memories.at(-1)!.date });
    const first = (id: string) => Math.min(...[...lines, ...pictures].filter((x) => x.id === id).map((x) => x.page));
    for (const [id, number, name] of [['jan', 1, 'January 2026'], ['mar', 3, 'March 2026'], ['apr', 4, 'April 2026']] as const) {
      const chapter = first(id) - 1;
      expect(kinds[chapter - 1], `page ${chapter}, before ${id}: ${kinds.join(' ')}`).toBe('quote');
      const words = await text(chapter);
      expect(words).toContain('MONTH');
      expect(words).toContain(name);
      expect(words.split(' ')).toContain(String(number));
      // Its memory carries no heading of the month again.
      expect(await text(first(id))).not.toContain(name);
    }
    expect(kinds[first('jan2') - 2], 'no chapter page within a month').not.toBe('quote');
  }, 60_000);

  it('baby_first_year: a note pasted on a print covers at most its foot (a fifth of it), never a face', async () => {
    // Stored findings (as a processed photo's media row has them): a face high in one photo, one low in another.
    const face = (y: number) => ({ version: 1, faces: [{ x: 0.42, y, w: 0.16, h: 0.2, score: 0.9 }], attention: null });
    const subjects = { a: face(0.15), b: face(0.7) };
    const memories = [
      memory('high', '2026-05-01T10:00:00Z', 'Your first smile, the morning the sun came out.', ['a']),
      memory('low', '2026-05-02T10:00:00Z', 'Sitting up on the blanket in the garden.', ['b']),
      memory('none', '2026-05-03T10:00:00Z', 'Bath time, and all the bubbles.', ['c']),
    ];
    const { cards } = await render('baby_first_year', memories, { first: memories[0].date, last: memories.at(-1)!.date }, subjects);
    expect(cards.map((c) => c.id).sort()).toEqual(['high', 'low', 'none']);
    for (const c of cards) {
      const foot = c.photo.y + c.photo.h;
      const covered = Math.max(0, foot - c.top) / c.photo.h;
      expect(covered, `${c.id}: the card covers ${Math.round(covered * 100)}% of its photo`).toBeLessThanOrEqual(0.2);
      if (c.subject) expect(c.top, `${c.id}: the card starts above the face's foot`).toBeGreaterThanOrEqual(c.photo.y + (c.subject.y + c.subject.h) * c.photo.h);
    }
    // Pasted on, not set apart: where the face allows, the card reaches a little way up the print.
    expect(cards.find((c) => c.id === 'high')!.top).toBeLessThan(cards.find((c) => c.id === 'high')!.photo.y + cards.find((c) => c.id === 'high')!.photo.h);
  }, 60_000);

  it('storybook: a long letter without photos is read aloud in large type, a drawn picture on all but one spread in a row', async () => {
    const memories = [memory('letter', '2026-05-01T10:00:00Z', words(160, 'summer'), [])];
    const { lines, drawn } = await render('storybook', memories, { first: memories[0].date, last: memories[0].date });
    const letter = lines.filter((l) => l.id === 'letter');
    expect(Math.min(...letter.map((l) => l.size))).toBeGreaterThanOrEqual(16);
    // Spreads (a verso and the recto facing it) from the letter's first to its last: a drawn picture on all but one in a row.
    const [first, last] = [letter[0].page, letter.at(-1)!.page];
    let run = 0;
    let longest = 0;
    for (let verso = first - (first % 2); verso <= last; verso += 2) {
      run = drawn.includes(verso) || drawn.includes(verso + 1) ? 0 : run + 1;
      longest = Math.max(longest, run);
    }
    expect(drawn.length).toBeGreaterThan(0);
    expect(longest, `drawn pictures on pages ${drawn.join(', ')} of ${first}–${last}`).toBeLessThanOrEqual(1);
  }, 60_000);

  it('daily_journal: a long entry is read in a book face at 10 pt or more, the hand kept for its day and name', async () => {
    const memories = [memory('entry', '2026-05-01T10:00:00Z', words(30, 'garden'), []), memory('note', '2026-05-02T10:00:00Z', 'See you on Sunday!', [])];
    const { lines, fonts } = await render('daily_journal', memories, { first: memories[0].date, last: memories[1].date });
    const entry = lines.filter((l) => l.id === 'entry');
    expect(entry.every((l) => l.long && l.size >= 10)).toBe(true);
    const used = await fonts(entry[0].page);
    expect(used).toMatch(/Lora/);
    expect(used).toMatch(/PatrickHand/);
  }, 60_000);
});
