/**
 * Photos cropped around their subject, read back from the PDF: a book of photos with a marked subject
 * (a face ringed in magenta, off the middle) in every orientation, one to five to a memory and a gallery
 * plate, rendered in every theme; every picture drawn is extracted (pdfimages) and must show the whole
 * ring, and print at 200 ppi or more (a 640-pixel original gets a smaller cell). The cover and the cover
 * wrap crop around the owner's focal point when one is given. The check itself is shown to catch what a
 * centre crop does to a subject near an edge.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCoverWrap } from '../../../src/exports/pdf/cover-wrap.js';
import { MIN_PRINT_PPI, renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { THEMES } from '../../../src/media-tools/themes.js';
import { makeMarkedPhotos, subjectCut, type Marked } from '../../helpers/marked-photos.js';
import { printedImages } from '../../helpers/pdf-readback.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const GROUPS: Marked[][] = [
  ['portrait'],
  ['landscape'],
  ['plate'],
  ['tall'],
  ['portrait', 'landscape'],
  ['square', 'tall', 'panorama'],
  ['small'],
  ['turned', 'portrait', 'square', 'landscape'],
  ['panorama'],
  ['landscape', 'portrait', 'tall', 'square', 'turned'],
  ['plate'],
  ['square'],
];

const memories: PdfMemory[] = GROUPS.map((photos, i) => ({
  id: `m${i}`,
  text: `Memory ${i}: the lake, the pier and the long drive home in the rain, with everyone singing in the back.`,
  signature: `Writer ${i}`,
  date: `2026-05-0${(i % 9) + 1}T10:00:00Z`,
  pinned: false,
  pictures: photos.map((key) => ({ key, kind: 'photo' as const })),
  recordings: [],
}));

/** Every picture drawn in a PDF, extracted, checked for its marked subject; what is wrong with each. */
async function cutSubjects(file: string, dir: string): Promise<string[]> {
  const out = path.join(dir, path.basename(file, '.pdf'));
  await run('pdfimages', ['-j', '-p', file, out]);
  const problems: string[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.startsWith(`${path.basename(out)}-`)).sort()) {
    const cut = await subjectCut(path.join(dir, name));
    if (cut) problems.push(`${name}: ${cut}`);
  }
  return problems;
}

describe('photos cropped around their subject', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-subjects-'));
    await makeMarkedPhotos(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the check catches a subject cut by a centre crop (a portrait into a landscape cell)', async () => {
    const centre = await sharp(path.join(dir, 'portrait.jpg')).resize(600, 400, { fit: 'cover', position: 'centre' }).jpeg().toBuffer();
    expect(await subjectCut(centre)).toMatch(/cut|no subject/);
    expect(await subjectCut(path.join(dir, 'portrait.jpg'))).toBeNull();
  });

  for (const theme of THEMES) {
    it(`${theme}: every subject whole in its crop, every photo at ${MIN_PRINT_PPI} ppi or more`, async () => {
      const file = path.join(dir, `${theme}.pdf`);
      const result = await renderPdfBook({
        title: 'Subjects',
        subtitle: 'every one whole',
        theme,
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: memories.length,
        memories: iterate(memories),
        openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
        output: createWriteStream(file),
        coverPicture: 'plate',
      });
      expect(result.lowResolution).toEqual([]);
      const problems = await cutSubjects(file, dir);
      const images = await printedImages(file);
      // The cover photo, and every memory's photo (the plates count once each).
      expect(images.length).toBeGreaterThanOrEqual(1 + GROUPS.flat().length - 2);
      for (const im of images) if (Math.min(im.xPpi, im.yPpi) < MIN_PRINT_PPI - 0.5) problems.push(`page ${im.page}: ${im.width}×${im.height} at ${Math.min(im.xPpi, im.yPpi)} ppi`);
      expect(problems).toEqual([]);
    });
  }

  it('the cover wrap crops around the focal point it is given (the owner’s), not the detected subject', async () => {
    // The subject is at the portrait's top; a focal point at its foot must crop the ring away.
    const wrapAt = async (name: string, focal: { x: number; y: number } | null) => {
      const file = path.join(dir, `${name}.pdf`);
      await renderCoverWrap({ title: 'Subjects', subtitle: '', theme: 'modern_editorial', bleedMm: 3, pageCount: 48, caliperMm: 0.1, memoryCount: 12, photo: { path: path.join(dir, 'tall.jpg') }, photoFocal: focal, output: createWriteStream(file) });
      return cutSubjects(file, dir);
    };
    expect(await wrapAt('wrap-detected', null)).toEqual([]);
    expect((await wrapAt('wrap-focal', { x: 0.5, y: 0.95 })).length).toBeGreaterThan(0);
  });

  it('crops around the subject stored with a photo (found when it was processed), and looks again only when there is none of this version', async () => {
    // A stored subject that says the subject is at the portrait's foot: a crop that follows it cuts the ring away.
    const bookWith = async (name: string, subject: unknown) => {
      const file = path.join(dir, `${name}.pdf`);
      await renderPdfBook({
        title: 'Subjects',
        subtitle: '',
        theme: 'modern_editorial',
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: 1,
        memories: iterate([{ ...memories[0], pictures: [{ key: 'tall', kind: 'photo' as const }] }]),
        openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {}, subject }),
        output: createWriteStream(file),
      });
      return { cut: await cutSubjects(file, dir), images: (await printedImages(file)).length };
    };
    const stored = await bookWith('stored-subject', { version: 1, faces: [], attention: { x: 0.5, y: 0.95 } });
    expect(stored.images).toBeGreaterThan(0);
    expect(stored.cut.length).toBe(stored.images);
    // A subject stored by an older detector, or none: found again, the ring whole.
    expect((await bookWith('old-subject', { version: 0, faces: [], attention: { x: 0.5, y: 0.95 } })).cut).toEqual([]);
    expect((await bookWith('no-subject', null)).cut).toEqual([]);
  });

  it('a held photo (its own page after its memory) takes its cell shape from the subject stored with it', async () => {
    // A tall photo whose stored faces run down most of it: 4:5 (a breather's usual shape for it) would cut them,
    // so it is set 2:3. The photo itself is plain (a detector finds no face in it): only the stored subject says so.
    const file = path.join(dir, 'held-subject.pdf');
    for (const key of ['held-a', 'held-b']) await sharp({ create: { width: 700, height: 1500, channels: 3, background: key === 'held-a' ? '#3a6ea5' : '#a5763a' } }).jpeg().toFile(path.join(dir, `${key}.jpg`));
    const subject = { version: 1, faces: [{ x: 0.3, y: 0.1, w: 0.4, h: 0.55, score: 0.9 }], attention: null };
    const breathers: number[] = [];
    await renderPdfBook({
      title: 'Subjects',
      subtitle: '',
      theme: 'elegant_classic',
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: 1,
      memories: iterate([{ ...memories[0], pictures: [{ key: 'held-a', kind: 'photo' as const }, { key: 'held-b', kind: 'photo' as const }] }]),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {}, subject }),
      output: createWriteStream(file),
      trace: { breather: (n) => breathers.push(n) },
    });
    expect(breathers.length, 'the second photo held for a page of its own').toBe(1);
    const held = (await printedImages(file)).filter((im) => im.page === breathers[0]);
    expect(held.length).toBe(1);
    expect(held[0].width / held[0].height).toBeCloseTo(2 / 3, 1);
  });

  it('the book’s cover crops around coverFocal when given', async () => {
    const file = path.join(dir, 'cover-focal.pdf');
    await renderPdfBook({
      title: 'Subjects',
      subtitle: '',
      theme: 'modern_editorial',
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: 0,
      memories: iterate([]),
      openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), release: async () => {} }),
      output: createWriteStream(file),
      coverPicture: 'tall',
      coverFocal: { x: 0.5, y: 0.95 },
    });
    // The cover, and the closing photo (the cover's, cropped around the same point).
    const images = await printedImages(file);
    expect(images.length).toBe(2);
    expect((await cutSubjects(file, dir)).length).toBe(images.length);
  });
});
