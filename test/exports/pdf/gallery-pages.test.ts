/**
 * Three designs, read back from small books: editorial_noir bleeds a held photo off the edges its pixels reach
 * (a wide one across the page's head, corner to corner, at 200 ppi or more); modern_clean prints its photos in
 * a few fixed widths on its grid's lines (four at most), whatever their pixels; elegant_classic opens a long letter with a
 * drop cap sunk into its first two lines, the lines beside it set in.
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
import type { Theme } from '../../../src/media-tools/themes.js';
import { writing } from '../../helpers/test-book.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const SIZES: Record<string, [number, number]> = { wide: [1800, 600], landscape: [1200, 800], portrait: [800, 1200], square: [900, 900], tall: [560, 1200], small: [700, 470] };

describe('gallery themes: bleeds, grid widths, drop caps', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-gallery-'));
    for (const [name, [w, h]] of Object.entries(SIZES)) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#3d85c6"/><rect y="${h * 0.7}" width="${w}" height="${h * 0.3}" fill="#38761d"/></svg>`;
      await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toFile(path.join(dir, `${name}.jpg`));
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function render(theme: Theme, memories: PdfMemory[]) {
    const file = path.join(dir, `${theme}.pdf`);
    const kinds: PageKind[] = [];
    const pictures: { page: number; id: string; x?: number; w?: number }[] = [];
    const breathers: { page: number; id: string }[] = [];
    await renderPdfBook({
      title: 'Gallery',
      subtitle: '',
      theme,
      bleedMm: 0,
      gutterMm: 0,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
      output: createWriteStream(file),
      trace: {
        page: (n, kind) => (kinds[n - 1] = kind),
        picture: (n, id, box) => pictures.push({ page: n, id, x: box?.x, w: box?.w }),
        breather: (n, id) => breathers.push({ page: n, id }),
      },
    });
    return { file, kinds, pictures, breathers };
  }

  const memory = (id: string, text: string, photos: string[] = []): PdfMemory => ({
    id,
    text,
    signature: `Writer ${id}`,
    date: '2026-05-01T10:00:00Z',
    pinned: false,
    pictures: photos.map((key) => ({ key, kind: 'photo' as const })),
    recordings: [],
  });

  it('editorial_noir: a held wide photo bleeds across the page’s head, corner to corner, and prints at 200 ppi or more', async () => {
    const { file, kinds, breathers } = await render('editorial_noir', [
      memory('a', writing('english', 60, 3), ['landscape', 'square', 'wide']),
      memory('b', writing('english', 300, 5)),
    ]);
    const wide = breathers.map((b) => b.page).find((n) => kinds[n - 1] === 'plate');
    expect(wide, `a held photo bled as a plate (pages: ${kinds.join(', ')})`).toBeDefined();
    // The page's top corners are the photo's sky, not the paper; its foot is paper.
    const { stdout } = await run('pdftoppm', ['-png', '-r', '20', '-f', String(wide), '-l', String(wide), file], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 });
    const { data, info } = await sharp(stdout).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    for (const [x, y] of [
      [0, 0],
      [info.width - 1, 0],
    ]) {
      const [r, g, b] = at(x, y);
      expect(b - r, `page ${wide} at ${x},${y}: rgb ${r},${g},${b} (the photo's sky)`).toBeGreaterThan(60);
    }
    const [r, g, b] = at(Math.floor(info.width / 2), info.height - 2);
    expect(Math.max(r, g, b) - Math.min(r, g, b), `the foot of page ${wide} is paper`).toBeLessThan(30);
    // 1800 px across 210 mm: 218 ppi.
    const { stdout: list } = await run('pdfimages', ['-list', '-f', String(wide), '-l', String(wide), file]);
    const ppi = list.split('\n').slice(2).filter(Boolean).map((l) => Number(l.trim().split(/\s+/)[12]));
    expect(Math.min(...ppi)).toBeGreaterThanOrEqual(200);
  }, 60_000);

  it('modern_clean: photos of any pixel size print in no more than four widths, each on the grid', async () => {
    const photos = ['landscape', 'portrait', 'square', 'tall', 'small', 'wide'];
    const { pictures } = await render(
      'modern_clean',
      photos.map((p, i) => memory(`m${i}`, writing('english', 40, 7 + i), [p])),
    );
    const widths = pictures.filter((p) => p.w !== undefined).map((p) => p.w!);
    expect(widths.length).toBe(photos.length);
    const distinct = widths.reduce<number[]>((ws, w) => (ws.some((x) => Math.abs(x - w) < 0.5) ? ws : [...ws, w]), []);
    expect(distinct.length, `widths ${widths.map((w) => w.toFixed(1)).join(', ')} pt`).toBeLessThanOrEqual(4);
  }, 60_000);

  it('elegant_classic: a long letter opens with a drop cap two lines deep, the lines beside it set in', async () => {
    const letter = ['Wanda', writing('english', 400, 11)].join(' ');
    const { file } = await render('elegant_classic', [memory('letter', letter)]);
    const { stdout } = await run('pdftotext', ['-bbox', file, '-'], { maxBuffer: 16 * 1024 * 1024 });
    const words = [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
      x0: Number(m[1]),
      y0: Number(m[2]),
      x1: Number(m[3]),
      y1: Number(m[4]),
      text: m[5],
    }));
    const initial = words.find((w) => w.text === 'W');
    expect(initial, 'the letter’s W set apart as an initial').toBeDefined();
    const rest = words.find((w) => w.text.startsWith('anda'))!;
    expect(rest, 'the rest of its first word beside it').toBeDefined();
    const lineHeight = rest.y1 - rest.y0;
    // Two lines deep, and the words beside it start right of it.
    expect(initial!.y1 - initial!.y0).toBeGreaterThan(1.8 * lineHeight);
    expect(rest.x0).toBeGreaterThan(initial!.x1);
    // The third line is back at the column's edge, under the initial.
    const below = words.filter((w) => w.y0 > initial!.y1 + 2 && w.y0 < initial!.y1 + 2 * lineHeight);
    expect(Math.min(...below.map((w) => w.x0))).toBeLessThan(initial!.x0 + 2);
  }, 60_000);
});
