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
});
