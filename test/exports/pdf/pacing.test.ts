/**
 * Pacing, read back from the PDF: a long letter's photos fall through its pages rather than all at its head
 * or tail, and a stretch of letters with no photo at hand is broken by a quote page of a sentence of the
 * letter being read (its words printed on that page), never by a blank page.
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

/** A letter of `sentences` sentences, each naming the letter and its place (`Letter 3 says thing 12 ...`), in paragraphs of six. */
function letter(n: number, sentences: number): string {
  const said = Array.from({ length: sentences }, (_, i) => `Letter ${n} says thing ${i} about the summer we spent at the lake with everyone.`);
  const paragraphs: string[] = [];
  for (let i = 0; i < said.length; i += 6) paragraphs.push(said.slice(i, i + 6).join(' '));
  return paragraphs.join('\n\n');
}

describe('pacing', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-pacing-'));
    for (const [key, hue] of [['a', '#6a9fd8'], ['b', '#c8794a'], ['c', '#4f8a3c'], ['d', '#a35ca8'], ['e', '#d8c04a']] as const) {
      await sharp({ create: { width: 2400, height: 1800, channels: 3, background: hue } }).jpeg().toFile(path.join(dir, `${key}.jpg`));
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['elegant_classic', 'memorial_service', 'editorial_noir'])('%s: a long letter carries its photos through its pages; letters without photos are broken by quote pages', async (theme) => {
    const memories: PdfMemory[] = [
      // A 1,500-word letter with five photos, then three long letters with none.
      { id: 'rose', text: letter(0, 100), signature: 'Rose & Tom', date: '2026-05-01T10:00:00Z', pinned: false, pictures: ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key, kind: 'photo' as const })), recordings: [] },
      ...[1, 2, 3].map((n) => ({ id: `plain${n}`, text: letter(n, 60), signature: `Writer ${n}`, date: '2026-05-02T10:00:00Z', pinned: false, pictures: [], recordings: [] })),
    ];
    const file = path.join(dir, `${theme}.pdf`);
    const kinds: PageKind[] = [];
    const linePages = new Map<string, number[]>();
    const photoPages: number[] = [];
    const result = await renderPdfBook({
      title: 'Pacing',
      subtitle: '',
      theme,
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
      output: createWriteStream(file),
      trace: {
        page: (n, kind) => (kinds[n - 1] = kind),
        line: (n, id) => linePages.set(id, [...(linePages.get(id) ?? []), n]),
        picture: (n, id) => id === 'rose' && photoPages.push(n),
        breather: (n, id) => id === 'rose' && photoPages.push(n),
      },
    });
    expect(result.memories).toBe(memories.length);
    const rose = linePages.get('rose')!;
    const [first, last] = [Math.min(...rose), Math.max(...rose)];
    // Its photos: some between its first and last page of words, and never more than two pages of its words between two of them.
    const pages = [...new Set(photoPages)].sort((a, b) => a - b);
    expect(pages.filter((p) => p > first && p < last).length, `photos on ${pages.join(', ')}, words on ${first}–${last}`).toBeGreaterThan(0);
    const wordOnly = [...new Set(rose)].filter((p) => !pages.includes(p));
    let [from, most] = [first - 1, 0];
    for (const to of [...pages.filter((p) => p >= first && p <= last), last + 1]) {
      most = Math.max(most, wordOnly.filter((p) => p > from && p < to).length);
      from = to;
    }
    expect(most, `photos on ${pages.join(', ')}, words on ${first}–${last}`).toBeLessThanOrEqual(3);

    // No more than four pages of words in a row anywhere; what breaks them after the letter is a quote page, with a sentence of a letter on it.
    const breaks = new Set(['quote', 'breather', 'plate']);
    let runOfWords = 0;
    let longest = 0;
    for (const [i, kind] of kinds.entries()) {
      const pictured = photoPages.includes(i + 1) || breaks.has(kind);
      runOfWords = kind === 'memories' && !pictured ? runOfWords + 1 : 0;
      longest = Math.max(longest, runOfWords);
    }
    expect(longest, kinds.join(' ')).toBeLessThanOrEqual(4);
    const quotes = kinds.flatMap((k, i) => (k === 'quote' && i + 1 > last ? [i + 1] : []));
    expect(quotes.length, kinds.join(' ')).toBeGreaterThan(0);
    for (const n of quotes) {
      const { stdout } = await run('pdftotext', ['-f', String(n), '-l', String(n), '-enc', 'UTF-8', file, '-']);
      expect(stdout.replace(/\s+/g, ' '), `quote page ${n}`).toMatch(/Letter [1-3] says thing \d+ about/);
    }
    expect(kinds.slice(0, kinds.indexOf('end')), 'no blank page inside the book').not.toContain('blank');
  }, 120_000);

  it.each(['elegant_classic', 'botanical_luxe'])('%s: a memory\'s spare photos break the runs of long letters around it, before and after, captioned with whose they are', async (theme) => {
    // Three long letters without photos, a short note with five photos, three more long letters without.
    const plain = (n: number): PdfMemory => ({ id: `plain${n}`, text: letter(n, 45), signature: `Writer ${n}`, date: '2026-05-02T10:00:00Z', pinned: false, pictures: [], recordings: [] });
    const memories: PdfMemory[] = [
      ...[1, 2, 3].map(plain),
      { id: 'ana', text: 'Five photos from the lake, the summer we all came.', signature: 'Ana', date: '2026-05-03T10:00:00Z', pinned: false, pictures: ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key, kind: 'photo' as const })), recordings: [] },
      ...[4, 5, 6].map(plain),
    ];
    const file = path.join(dir, `${theme}-reserve.pdf`);
    const kinds: PageKind[] = [];
    const anaPhotos: number[] = [];
    const anaWords: number[] = [];
    let lastWords = 0;
    await renderPdfBook({
      title: 'Pacing',
      subtitle: '',
      theme,
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
      output: createWriteStream(file),
      trace: {
        page: (n, kind) => (kinds[n - 1] = kind),
        line: (n, id) => ((lastWords = Math.max(lastWords, n)), id === 'ana' && anaWords.push(n)),
        picture: (n, id) => id === 'ana' && anaPhotos.push(n),
        breather: (n, id) => id === 'ana' && anaPhotos.push(n),
      },
    });
    // Each of its photos printed once, some before its memory and some after it, away from its page.
    const [first, last] = [Math.min(...anaWords), Math.max(...anaWords)];
    // (A photo of its own bled off the page before its words, a plate, is not traced as one of its pictures.)
    const ownPlate = kinds[first - 2] === 'plate' && !anaPhotos.includes(first - 1) ? 1 : 0;
    expect(anaPhotos.length + ownPlate, `photos on ${anaPhotos.join(', ')}: ${kinds.join(' ')}`).toBe(5);
    const away = anaPhotos.filter((n) => n < first - 1 || n > last + 2);
    expect(anaPhotos.filter((n) => n < first).length, `photos on ${anaPhotos.join(', ')}, its words on ${first}`).toBeGreaterThan(0);
    expect(anaPhotos.filter((n) => n > last + 2).length, `photos on ${anaPhotos.join(', ')}, its words on ${last}`).toBeGreaterThan(0);
    // Away from its memory, a photo says whose it is.
    for (const n of away) {
      const { stdout } = await run('pdftotext', ['-f', String(n), '-l', String(n), '-enc', 'UTF-8', file, '-']);
      expect(stdout.replace(/\s+/g, ' ').toUpperCase(), `page ${n}`).toContain('FROM ANA’S PHOTOS');
    }
    // As a reader counts: no more than four spreads in a row without a photo (a quote page is words).
    const pictured = new Set([...anaPhotos, ...kinds.flatMap((k, i) => (k === 'breather' || k === 'plate' ? [i + 1] : []))]);
    let [spreads, longest] = [0, 0];
    for (let s = 2; s <= lastWords; s += 2) {
      spreads = pictured.has(s) || pictured.has(s + 1) ? 0 : spreads + 1;
      longest = Math.max(longest, spreads);
    }
    expect(longest, `${kinds.join(' ')}; photos on ${[...pictured].join(', ')}`).toBeLessThanOrEqual(4);
  }, 120_000);
});
