/**
 * Portraits are never forced into landscape cells, read back from the PDF: memories whose layouts give
 * landscape cells (a 2 × 2 grid of 4:3, one large beside two stacked, rows of three) hold portrait photos
 * with a marked subject near their top among landscape ones. Every portrait must print in a cell that is
 * not landscape (it would cut more than a tenth of it) with its subject whole; the landscape photos stay
 * landscape. The pictures are extracted with pdfimages.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { makeMarkedPhotos, MARKED, subjectCut, type Marked } from '../../helpers/marked-photos.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

/** Layouts with landscape cells, each with portraits (portrait, tall, turned) among landscapes. */
const GROUPS: Marked[][] = [
  ['landscape', 'portrait', 'panorama', 'turned'],
  ['portrait', 'tall', 'landscape'],
  ['landscape', 'panorama', 'tall', 'landscape', 'portrait'],
];
/** MARKED gives each photo's upright size. */
const PORTRAITS = GROUPS.flat().filter((m) => MARKED[m][1] > MARKED[m][0]).length;

const memories: PdfMemory[] = GROUPS.map((photos, i) => ({
  id: `m${i}`,
  text: `Memory ${i}: the whole family on the steps, then the cousins by the water, and grandpa asleep in the deck chair.`,
  signature: `Writer ${i}`,
  date: `2026-05-0${i + 1}T10:00:00Z`,
  pinned: false,
  pictures: photos.map((key) => ({ key, kind: 'photo' as const })),
  recordings: [],
}));

describe('portraits keep a portrait cell', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-cells-'));
    await makeMarkedPhotos(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // (daily_journal holds photos beyond its two for breathers: their cells choose their shape as memory cells do.)
  for (const theme of ['modern_editorial', 'heirloom_gallery', 'daily_journal'] as const) {
    it(`${theme}: every portrait prints in a cell that is not landscape, its subject whole`, async () => {
      const file = path.join(dir, `${theme}.pdf`);
      await renderPdfBook({
        title: 'Cells',
        subtitle: '',
        theme,
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: memories.length,
        memories: iterate(memories),
        openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
        output: createWriteStream(file),
        // The cover and the closing photo are a landscape, so every upright picture printed is a memory's portrait.
        coverPicture: 'landscape',
      });
      const out = path.join(dir, theme);
      await run('pdfimages', ['-j', file, out]);
      const names = (await readdir(dir)).filter((n) => n.startsWith(`${theme}-`)).sort();
      const shapes = { portrait: 0, landscape: 0, square: 0 };
      const problems: string[] = [];
      for (const name of names) {
        const { width, height } = await sharp(path.join(dir, name)).metadata();
        const aspect = width! / height!;
        shapes[aspect < 0.98 ? 'portrait' : aspect > 1.02 ? 'landscape' : 'square']++;
        const cut = await subjectCut(path.join(dir, name));
        if (cut) problems.push(`${name}: ${cut}`);
      }
      expect(problems).toEqual([]);
      // Every portrait photo kept an upright or square cell (before, the grid and the side cells were 4:3 and
      // wider); a held photo may come back as a breather in the theme's own upright or square cell.
      expect(shapes.portrait + shapes.square, JSON.stringify(shapes)).toBeGreaterThanOrEqual(PORTRAITS);
      expect(shapes.landscape).toBeGreaterThanOrEqual(GROUPS.flat().length - PORTRAITS);
    });
  }
});
