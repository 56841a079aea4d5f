/**
 * Emoji print as people send them, read back from the PDF: a skin-toned thumbs-up, a family (a ZWJ
 * sequence of three people) and a flag each print as one colour picture (Twemoji's, from its npm
 * package) inline with the text, and the text layer (pdftotext) still holds the characters as written.
 * The pictures are extracted with pdfimages and compared, pixel for pixel, with the Twemoji picture of the
 * whole sequence: the toned thumb, not the yellow one; one family, not three people.
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
import { emojiPicture, twemojiName } from '../../../src/media-tools/emoji-pictures.js';

const run = promisify(execFile);

const THUMB = '👍🏽';
const FAMILY = '👩‍👧‍👦';
const FLAG = '🇫🇷';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

/** The RGB of a picture (its colour, alpha left out), as raw bytes at the size it has. */
async function rgbOf(file: string | Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(file).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe('emoji in colour', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-emoji-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names the Twemoji files as the set does (no U+FE0F outside ZWJ sequences)', () => {
    expect(twemojiName(THUMB)[0]).toBe('1f44d-1f3fd');
    expect(twemojiName(FAMILY)[0]).toBe('1f469-200d-1f467-200d-1f466');
    expect(twemojiName('❤️')[0]).toBe('2764');
    expect(emojiPicture('a')).toBeNull();
  });

  for (const theme of ['modern_editorial', 'editorial_noir'] as const) {
    it(`${theme}: a toned thumb, a family and a flag print as one colour picture each, and copy as written`, async () => {
      const memories: PdfMemory[] = [
        {
          id: 'm1',
          text: `Happy birthday Grandma ${THUMB} from all of us, the whole ${FAMILY} and the cousins in ${FLAG}.`,
          signature: 'Ana',
          date: '2026-05-01T10:00:00Z',
          pinned: false,
          pictures: [],
          recordings: [],
        },
      ];
      const file = path.join(dir, `${theme}.pdf`);
      await renderPdfBook({
        title: 'Emoji',
        subtitle: '',
        theme,
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: 1,
        memories: iterate(memories),
        openPicture: async () => {
          throw new Error('this book has no pictures');
        },
        output: createWriteStream(file),
      });

      // The text layer has each sequence whole.
      const { stdout: text } = await run('pdftotext', ['-enc', 'UTF-8', file, '-']);
      expect(text).toContain(THUMB);
      expect(text).toContain(FAMILY);
      expect(text).toContain(FLAG);
      expect(text).toContain('Emoji by Twemoji'); // the credit its licence asks for, in the colophon

      // Every picture drawn is one of the three sequences' own, each drawn once (on the memory's page).
      const out = path.join(dir, theme);
      await run('pdfimages', ['-png', file, out]);
      const drawn = (await readdir(dir)).filter((n) => n.startsWith(`${theme}-`) && n.endsWith('.png')).sort();
      const { stdout: list } = await run('pdfimages', ['-list', file]);
      const rows = list.split('\n').slice(2).map((l) => l.trim().split(/\s+/)).filter((f) => f.length > 3);
      const images = rows.filter((f) => f[2] === 'image');
      expect(images.length).toBe(3);
      const wanted = new Map<string, Awaited<ReturnType<typeof rgbOf>>>();
      for (const e of [THUMB, FAMILY, FLAG]) wanted.set(e, await rgbOf(emojiPicture(e)!));
      const found = new Set<string>();
      for (const [i, f] of rows.entries()) {
        if (f[2] !== 'image') continue;
        const got = await rgbOf(path.join(dir, drawn[i]));
        // Colour, not a monochrome glyph: some pixels well away from grey.
        let coloured = 0;
        for (let k = 0; k < got.data.length; k += 3) if (Math.max(got.data[k], got.data[k + 1], got.data[k + 2]) - Math.min(got.data[k], got.data[k + 1], got.data[k + 2]) > 60) coloured++;
        expect(coloured).toBeGreaterThan(200);
        for (const [e, want] of wanted) if (want.width === got.width && want.height === got.height && want.data.equals(got.data)) found.add(e);
      }
      expect([...found].sort()).toEqual([THUMB, FAMILY, FLAG].sort());
    });
  }
});
