/**
 * A memory of a word or two ("Every.") is never display type, in any theme: between two letters it is not a quote
 * page, nor set large under a letter's tail, nor a page of its own. It is set with a neighbour's words on its page.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type PageKind, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { THEMES } from '../../../src/media-tools/themes.js';
import { writing } from '../../helpers/test-book.js';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const memory = (i: number, text: string): PdfMemory => ({
  id: `m${i}`,
  text,
  signature: `Writer ${i}`,
  date: `2026-05-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
  pinned: false,
  pictures: [],
  recordings: [],
});

describe('a memory of a word or two', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-tiny-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const theme of THEMES) {
    it(`${theme}: "Every." between two letters shares its page with another memory's words, never a quote page`, async () => {
      // (Letters of a few lengths: their tails leave more or less of their last page to the one word.)
      for (const words of [500, 650, 800, 950]) await tiny(theme, words);
    }, 60_000);
  }

  async function tiny(theme: (typeof THEMES)[number], words: number) {
      const list = [memory(0, writing('english', words, 41)), memory(1, 'Every.'), memory(2, writing('english', 400, 43))];
      const kinds: PageKind[] = [];
      const lines: { page: number; id: string; baseline: number }[] = [];
      const bylines: { page: number; id: string; baseline: number }[] = [];
      await renderPdfBook({
        title: 'For Margaret',
        subtitle: 'Thirty years',
        theme,
        bleedMm: 0,
        gutterMm: 0,
        memoryCount: list.length,
        memories: iterate(list),
        openPicture: async () => {
          throw new Error('no pictures in this book');
        },
        output: createWriteStream(path.join(dir, `${theme}.pdf`)),
        dates: { first: list[0].date, last: list[2].date },
        trace: {
          page: (n, kind) => (kinds[n - 1] = kind),
          line: (n, id, l) => lines.push({ page: n, id, baseline: l.baseline }),
          signature: (n, id, l) => bylines.push({ page: n, id, baseline: l.baseline }),
        },
      });
      const word = lines.find((l) => l.id === 'm1');
      expect(word, 'the one word is set').toBeDefined();
      expect(kinds[word!.page - 1], `${words} words: page ${word!.page} of the one word`).not.toBe('quote');
      const others = new Set(lines.filter((l) => l.page === word!.page && l.id !== 'm1').map((l) => l.id));
      expect(others.size, `${words} words: page ${word!.page}, another memory's words with the one word`).toBeGreaterThan(0);
      // Set as an ordinary memory, its byline first (display type puts the words first, then who said them).
      const byline = bylines.find((l) => l.id === 'm1');
      expect(byline?.page, `${words} words: its byline on its page`).toBe(word!.page);
      expect(byline!.baseline, `${words} words: its byline above the word`).toBeLessThan(word!.baseline);
  }
});
