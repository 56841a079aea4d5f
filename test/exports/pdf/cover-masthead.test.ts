/**
 * editorial_noir's photo cover sets its masthead where the photo's subject is not: a marked subject (a face
 * ringed in magenta) high, in the middle and low in the frame, each rendered as the book's cover and read
 * back from the page (at 30 dpi): the whole ring shows at full strength, no band darkening any of it.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mastheadPlace } from '../../../src/exports/pdf/covers/magazine.js';
import { renderPdfBook } from '../../../src/exports/pdf/pdf-book.js';
import { makeMarkedPhoto } from '../../helpers/marked-photos.js';

const run = promisify(execFile);

/** The bright magenta on a rendered page: its bounding box (pixels), or null. */
async function ring(png: string): Promise<{ x0: number; y0: number; x1: number; y1: number } | null> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let [x0, y0, x1, y1, n] = [info.width, info.height, -1, -1, 0];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * info.channels;
      if (data[i] > 180 && data[i + 1] < 100 && data[i + 2] > 180) [x0, y0, x1, y1, n] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y), n + 1];
    }
  }
  return n >= 8 ? { x0, y0, x1, y1 } : null;
}

describe("editorial_noir's cover masthead", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-masthead-'));
  });
  afterAll(async () => {
    if (process.env.MEMORYBOOK_KEEP_PDFS) await cp(dir, path.join(process.env.MEMORYBOOK_KEEP_PDFS, 'masthead'), { recursive: true });
    await rm(dir, { recursive: true, force: true });
  });

  it('places the bands by where the subject is', () => {
    const trim = { x: 0, y: 0, w: 600, h: 600 };
    expect(mastheadPlace(trim, trim, 150, 100, null)).toBe('top');
    expect(mastheadPlace(trim, trim, 150, 100, { x: 0.4, y: 0.4, w: 0.2, h: 0.2 })).toBe('top');
    expect(mastheadPlace(trim, trim, 150, 100, { x: 0.4, y: 0.05, w: 0.2, h: 0.2 })).toBe('foot');
    expect(mastheadPlace(trim, trim, 150, 100, { x: 0.4, y: 0.75, w: 0.2, h: 0.2 })).toBe('head');
  });

  for (const [where, fy] of [['high', 0.16], ['in the middle', 0.48], ['low', 0.8]] as const) {
    it(`leaves a subject ${where} in the frame clear of the title and cover line`, async () => {
      const photo = path.join(dir, `subject-${fy}.jpg`);
      await makeMarkedPhoto(photo, 1900, 1900, 0.42, fy);
      const file = path.join(dir, `cover-${fy}.pdf`);
      await renderPdfBook({
        title: 'Grandma Rose turns 90: a book of memories from all of us',
        subtitle: '',
        theme: 'editorial_noir',
        bleedMm: 0,
        gutterMm: 0,
        memoryCount: 1,
        memories: (async function* () {
          yield { id: 'm1', text: 'The lake, the pier and the long drive home.', signature: 'Sam', date: '2026-05-01T10:00:00Z', pinned: false, pictures: [], recordings: [] };
        })(),
        openPicture: async () => ({ path: photo, release: async () => {} }),
        output: createWriteStream(file),
        coverPicture: 'cover',
      });
      await run('pdftoppm', ['-r', '30', '-f', '1', '-l', '1', '-png', file, path.join(dir, `cover-${fy}`)]);
      const box = await ring(path.join(dir, `cover-${fy}-1.png`));
      expect(box, 'the ring shows').not.toBeNull();
      // The ring (as wide as it is tall) shows whole at full strength: no band shortens it.
      const [w, h] = [box!.x1 - box!.x0 + 1, box!.y1 - box!.y0 + 1];
      expect(h / w, `ring ${w}×${h} px`).toBeGreaterThan(0.85);
      expect(h / w).toBeLessThan(1.18);
    }, 60_000);
  }
});
