/**
 * A cover photo never prints below 200 ppi: in every cover design (each theme's window, mat, frame or bleed) a
 * small original is set in a smaller box at 200 ppi, read back from the cover wrap with pdfimages; a large one
 * fills the design's box as before.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCoverWrap, spineWidthMm } from '../../../src/exports/pdf/cover-wrap.js';
import { coverPhotoBox, type Panel } from '../../../src/exports/pdf/covers.js';
import { mm, TRIM_MM } from '../../../src/exports/pdf/geometry.js';
import { THEMES, themeStyle, type Theme } from '../../../src/media-tools/themes.js';
import { makeMarkedPhoto } from '../../helpers/marked-photos.js';
import { printedImages } from '../../helpers/pdf-readback.js';

const [BLEED_MM, PAGES, CALIPER_MM] = [3, 120, 0.06];

describe('cover photo resolution', () => {
  let dir: string;
  const photos = { small: '', large: '' };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cover-ppi-'));
    photos.small = path.join(dir, 'small.jpg');
    photos.large = path.join(dir, 'large.jpg');
    await makeMarkedPhoto(photos.small, 600, 400, 0.5, 0.4);
    await makeMarkedPhoto(photos.large, 4000, 3000, 0.5, 0.4);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The cover wrap with the photo; the cover photo as printed (the largest picture on the sheet) and the design's box on the front, points. */
  async function wrap(theme: Theme, photo: string) {
    const file = path.join(dir, `${theme}-${path.basename(photo, '.jpg')}.pdf`);
    const result = await renderCoverWrap({ title: 'Grandma turns 90', subtitle: 'Lakes and songs', theme, bleedMm: BLEED_MM, pageCount: PAGES, caliperMm: CALIPER_MM, memoryCount: 30, photo: { path: photo }, output: createWriteStream(file) });
    const [b, T, S] = [mm(BLEED_MM), mm(TRIM_MM), mm(spineWidthMm(PAGES, CALIPER_MM))];
    const front: Panel = { trim: { x: b + T + S, y: b, w: T, h: T }, bleed: { top: b, right: b, bottom: b, left: 0 } };
    const box = coverPhotoBox(themeStyle(theme).theme, front);
    const [printed] = (await printedImages(file)).sort((x, y) => y.width * y.height - x.width * x.height);
    return { result, box, printed, size: { w: (printed.width / printed.xPpi) * 72, h: (printed.height / printed.yPpi) * 72 } };
  }

  it.each(THEMES.map((t) => [t]))('%s: a 600×400 photo prints at 200 ppi in a smaller box; a 4000×3000 one fills the box', async (theme) => {
    const small = await wrap(theme as Theme, photos.small);
    expect(Math.min(small.printed.xPpi, small.printed.yPpi), 'the small photo prints at 200 ppi or more').toBeGreaterThanOrEqual(200);
    // As large as its pixels allow at 200 ppi: a smaller box, not a stamp.
    expect(Math.min(small.printed.xPpi, small.printed.yPpi)).toBeLessThanOrEqual(205);
    expect(small.size.w).toBeLessThan(small.box.w);
    expect(small.result.photoPpi).toBeGreaterThanOrEqual(200);

    const large = await wrap(theme as Theme, photos.large);
    expect(Math.min(large.printed.xPpi, large.printed.yPpi)).toBeGreaterThanOrEqual(200);
    expect(large.size.w, 'the large photo fills the design box across').toBeCloseTo(large.box.w, -1);
    expect(large.size.h, 'and down').toBeCloseTo(large.box.h, -1);
  }, 120_000);
});
