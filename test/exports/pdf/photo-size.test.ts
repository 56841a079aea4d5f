/**
 * Photos as large as they are sharp, read back from the PDF (pdfimages: each picture's pixels and the
 * resolution it prints at, so its printed size): a phone's panorama held for a page of its own keeps a
 * strip of its own shape (2:1) across the page rather than a 3:2 crop that throws away half its pixels and
 * prints at half the width; and in a plate theme (wedding_album) a portrait without the pixels for a whole-page
 * plate stays inside the album's mat and the live area instead of running off the page.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookGeometry } from '../../../src/exports/pdf/geometry.js';
import { MIN_PRINT_PPI, renderPdfBook } from '../../../src/exports/pdf/pdf-book.js';
import { ALBUM_MAT_INSET_MM } from '../../../src/exports/pdf/pages/album-spread.js';
import { PDF_LOOKS } from '../../../src/exports/pdf/pdf-themes.js';
import type { Theme } from '../../../src/media-tools/themes.js';
import { printedImages } from '../../helpers/pdf-readback.js';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

/** Photos of a phone's sizes: a 3:1 panorama, a 3:2 landscape and a 2:3 portrait of 1,920 px (not enough for a 210 mm plate at 200 ppi). */
const PHOTOS = { panorama: [1920, 640], landscape: [1920, 1280], portrait: [1280, 1920], first: [1600, 1200] } as const;
type Key = keyof typeof PHOTOS;
/** Found when the photos were processed (no face: the middle), so the render looks for none. */
const SUBJECT = { version: 1, faces: [], attention: { x: 0.5, y: 0.5 } };

describe('photos as large as they are sharp', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-photo-size-'));
    for (const [key, [width, height]] of Object.entries(PHOTOS)) {
      await sharp({ create: { width, height, channels: 3, background: '#4a7fb0' } }).jpeg().toFile(path.join(dir, `${key}.jpg`));
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A one-memory book with two photos (`first`, then `second`): each printed photo's page and size, mm, and the pages of held photos. */
  async function book(theme: Theme, second: Key) {
    const file = path.join(dir, `${theme}-${second}.pdf`);
    const breathers: number[] = [];
    await renderPdfBook({
      title: 'Sizes',
      subtitle: '',
      theme,
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: 1,
      memories: iterate([{ id: 'm', text: 'The summer at the lake, all of us on the pier at dusk.', signature: 'Ada', date: '2026-05-01T10:00:00Z', pinned: false, pictures: [{ key: 'first', kind: 'photo' as const }, { key: second, kind: 'photo' as const }], recordings: [] }]),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), subject: SUBJECT, release: async () => {} }),
      output: createWriteStream(file),
      trace: { breather: (n) => breathers.push(n) },
    });
    // (Photos only: the cover's and the closing page's are the first photo again.)
    const photos = (await printedImages(file)).filter((im) => im.width >= 600);
    for (const im of photos) expect(Math.min(im.xPpi, im.yPpi), `page ${im.page}`).toBeGreaterThanOrEqual(MIN_PRINT_PPI - 0.5);
    return { breathers, photos: photos.map((im) => ({ page: im.page, w: (im.width / im.xPpi) * 25.4, h: (im.height / im.yPpi) * 25.4 })) };
  }

  it('a held panorama prints as a 2:1 strip across the page, not a 3:2 crop of half its pixels', async () => {
    const { breathers, photos } = await book('baby_first_year', 'panorama');
    expect(breathers.length, 'the panorama held for a page of its own').toBe(1);
    const [held] = photos.filter((p) => p.page === breathers[0]);
    // A 3:2 crop keeps 960 × 640 px: 122 mm at 200 ppi. A 2:1 strip keeps 1,280 px: up to 162 mm.
    expect(held.w / held.h).toBeCloseTo(2, 1);
    expect(held.w).toBeGreaterThan(140);
  });

  // (A landscape wide enough is bled across the page's width on purpose: see pages/album-spread.ts.)
  it.each(['portrait'] as const)('wedding_album: a %s photo without the pixels for a plate stays inside the album mat and the live area', async (second) => {
    const { photos } = await book('wedding_album', second);
    const live = bookGeometry(3, 10, PDF_LOOKS.wedding_album.margins).content(3);
    const matMm = 210 - 2 * ALBUM_MAT_INSET_MM;
    expect(photos.length).toBeGreaterThanOrEqual(2);
    for (const p of photos) {
      expect(p.w, `page ${p.page}: narrower than the mat`).toBeLessThan(matMm);
      expect(p.h, `page ${p.page}: no taller than the live area`).toBeLessThanOrEqual((live.h / 72) * 25.4 + 0.5);
    }
  });
});
