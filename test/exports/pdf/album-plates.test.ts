/**
 * Photo-led pages at print size, read back from the PDF (pdfimages -list gives each picture's pixels and
 * its printed ppi, so its printed size): a small book of marked photos (1,800 to 2,600 px, the sizes a phone
 * sends, and a 640 px one) in the two themes whose photos are the book's heart.
 * - wedding_album: a photo alone on its album page prints as large as its pixels allow at 200 ppi, or as its
 *   page does: bled off every edge, bled across the page's width (a landscape too small for the whole page),
 *   or filling its mat's window; an album's pair of prints are never thumbnails.
 * - heirloom_gallery: a catalogue plate is its page's subject: as large as its mat allows (not the pixels,
 *   when the photo has them), at least a third of the page.
 */
import { createWriteStream } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_PRINT_PPI, renderPdfBook, type PageKind, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import type { Theme } from '../../../src/media-tools/themes.js';
import { makeMarkedPhotos, type Marked } from '../../helpers/marked-photos.js';
import { printedImages } from '../../helpers/pdf-readback.js';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ['the', 'lake', 'in', 'August', 'grandma', 'bread', 'and', 'tea', 'we', 'sang'][(i * 7 + seed) % 10]).join(' ') + '.';

/** Memories with one photo each (an album's spreads, a catalogue's plates), and one that holds three more back. */
const SPECS: { photos: Marked[]; words: number }[] = [
  { photos: ['landscape'], words: 60 },
  { photos: [], words: 120 },
  { photos: ['portrait'], words: 40 },
  { photos: ['plate'], words: 90 },
  { photos: [], words: 30 },
  { photos: ['small'], words: 50 },
  { photos: ['square', 'landscape', 'portrait', 'panorama'], words: 8 },
  { photos: [], words: 200 },
];
const memories: PdfMemory[] = SPECS.map((s, i) => ({
  id: `m${i}`,
  text: words(s.words, i),
  signature: `Writer ${i}`,
  date: `2026-05-0${i + 1}T10:00:00Z`,
  pinned: false,
  pictures: s.photos.map((key) => ({ key, kind: 'photo' as const })),
  recordings: [],
}));

const MM = 25.4;
const TRIM_MM = 210;

/** The book in a theme (home: no bleed, a 10 mm gutter): each page's kind and the memories' pictures printed on it, with their printed size. */
async function render(dir: string, theme: Theme) {
  const file = path.join(dir, `${theme}.pdf`);
  const kinds: PageKind[] = [];
  const memoryPhotoPages = new Set<number>();
  await renderPdfBook({
    title: 'Album',
    subtitle: '',
    theme,
    bleedMm: 0,
    gutterMm: 10,
    memoryCount: memories.length,
    memories: iterate(memories),
    openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
    output: createWriteStream(file),
    trace: { page: (n, kind) => (kinds[n - 1] = kind), picture: (n) => memoryPhotoPages.add(n), breather: (n) => memoryPhotoPages.add(n) },
  });
  const images = (await printedImages(file))
    .filter((im) => memoryPhotoPages.has(im.page))
    .map((im) => ({ ...im, wMm: (im.width / im.xPpi) * MM, hMm: (im.height / im.yPpi) * MM }));
  return { kinds, images };
}

describe('photos as the book’s heart', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-album-'));
    await makeMarkedPhotos(dir);
  });
  afterAll(async () => {
    // MEMORYBOOK_KEEP_PDFS=dir keeps the books, to look at.
    if (process.env.MEMORYBOOK_KEEP_PDFS) await cp(dir, path.join(process.env.MEMORYBOOK_KEEP_PDFS, 'album-plates'), { recursive: true });
    await rm(dir, { recursive: true, force: true });
  });

  it('wedding_album: a photo alone on its page is as large as its pixels or its page allow, bled when sharp enough', async () => {
    const { kinds, images } = await render(dir, 'wedding_album');
    const problems: string[] = [];
    const alone = images.filter((im) => ['plate', 'breather'].includes(kinds[im.page - 1]) && images.filter((o) => o.page === im.page).length === 1);
    expect(alone.length).toBeGreaterThanOrEqual(5);
    for (const im of alone) {
      const ppi = Math.min(im.xPpi, im.yPpi);
      // As large as its pixels allow (printed near the floor), or bled, or filling its mat's window one way (the page
      // less 13 mm of page and 9 mm of mat a side, the print's mount, and under it a caption's line).
      const pixelBound = ppi < MIN_PRINT_PPI * 1.05;
      const bled = im.wMm >= TRIM_MM - 0.5;
      const fillsMat = Math.max(im.wMm, im.hMm) >= TRIM_MM - 2 * 22 - 9 - 16 - 1;
      if (!pixelBound && !bled && !fillsMat) problems.push(`page ${im.page}: a ${im.width}×${im.height} photo printed ${im.wMm.toFixed(0)}×${im.hMm.toFixed(0)} mm at ${ppi} ppi, alone on its page`);
    }
    // The 1,800 px landscape is too small for the whole page, wide enough for its width: bled across it, off the top.
    const across = alone.filter((im) => im.wMm >= TRIM_MM - 0.5 && im.hMm < TRIM_MM - 1);
    if (!across.length) problems.push('no photo bled across its page’s width');
    // Pairs of prints on an album page: each at least 60 mm on its longer side (not thumbnails), or as large as its pixels allow.
    for (const page of new Set(images.map((im) => im.page))) {
      const here = images.filter((im) => im.page === page);
      if (here.length < 2) continue;
      for (const im of here) if (Math.max(im.wMm, im.hMm) < 60 && Math.min(im.xPpi, im.yPpi) >= MIN_PRINT_PPI * 1.05) problems.push(`page ${page}: a print of ${im.wMm.toFixed(0)}×${im.hMm.toFixed(0)} mm, one of ${here.length}`);
    }
    expect(problems).toEqual([]);
  });

  it('heirloom_gallery: a plate is its page’s subject, as large as its mat allows', async () => {
    const { kinds, images } = await render(dir, 'heirloom_gallery');
    const plates = images.filter((im) => kinds[im.page - 1] === 'breather' && im.page % 2 === 1 && images.filter((o) => o.page === im.page).length === 1);
    expect(plates.length).toBeGreaterThanOrEqual(3);
    const problems: string[] = [];
    for (const im of plates) {
      const ppi = Math.min(im.xPpi, im.yPpi);
      const share = (im.wMm * im.hMm) / (TRIM_MM * TRIM_MM);
      // With the pixels for more, its mat limits it one way: across, 10 mm of page, the gutter and 12 mm of mat a side;
      // down, the page and the mat, and a line for its caption.
      const [across, down] = [TRIM_MM - 2 * 10 - 10 - 2 * 12, TRIM_MM - 2 * 10 - 2 * 12 - 16];
      if (ppi >= MIN_PRINT_PPI * 1.05 && im.wMm < across - 1 && im.hMm < down - 1) problems.push(`page ${im.page}: a plate of ${im.wMm.toFixed(0)}×${im.hMm.toFixed(0)} mm at ${ppi} ppi`);
      if (ppi >= MIN_PRINT_PPI * 1.05 && share < 1 / 3) problems.push(`page ${im.page}: a plate over ${(share * 100).toFixed(0)}% of the page`);
    }
    expect(problems).toEqual([]);
  });
});
