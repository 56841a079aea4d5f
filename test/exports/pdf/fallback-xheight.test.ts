/**
 * Fallback faces matched to the theme's type, read back from print: in every theme, a line of Latin
 * lower case followed by Cyrillic (and one followed by Hebrew) is set with the book's own typesetting,
 * printed to PDF and rasterised (pdftoppm, 600 dpi); the ink height of the Latin x's and of the other
 * script's x-height letters (х, ס) must agree within 8%. Where the theme face lacks the script, the
 * fallback (Noto Sans, EB Garamond, Noto Sans Hebrew, or Frank Ruhl Libre in serif themes) is scaled to the
 * theme's x-height; unscaled, Hebrew stood 30% taller than the handwriting face's lower case (Cyrillic 14%)
 * and 58% taller than Cormorant's. The fallback's weight follows the theme face's (see fallback-weight).
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakLines, type TextStyle } from '../../../src/exports/pdf/text-layout.js';
import { drawLine, registerThemeFaces } from '../../../src/exports/pdf/typeset.js';
import { fallbackFaces } from '../../../src/media-tools/font-fallback.js';
import { textFaceOf, THEMES, themeStyle } from '../../../src/media-tools/themes.js';

const run = promisify(execFile);
const SIZE = 24;
const LINES = { cyrillic: 'xxxxxx хххххх', hebrew: 'xxxxxx סססססס' };

/** The ink height (pixels) of the left and the right word of a one-line picture, split at the widest blank gap. */
async function inkHeights(png: string): Promise<[number, number]> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const inkCol = (x: number) => {
    for (let y = 0; y < h; y++) if (data[y * w + x] < 128) return true;
    return false;
  };
  const cols = Array.from({ length: w }, (_, x) => inkCol(x));
  const first = cols.indexOf(true);
  const last = cols.lastIndexOf(true);
  // The gap between the words: the longest run of blank columns inside the ink.
  let [gapStart, gapLen, runStart] = [0, 0, -1];
  for (let x = first; x <= last; x++) {
    if (!cols[x] && runStart < 0) runStart = x;
    if (cols[x] && runStart >= 0) {
      if (x - runStart > gapLen) [gapStart, gapLen] = [runStart, x - runStart];
      runStart = -1;
    }
  }
  const height = (x0: number, x1: number) => {
    let [top, bottom] = [h, -1];
    for (let y = 0; y < h; y++) {
      for (let x = x0; x < x1; x++) {
        if (data[y * w + x] < 128) {
          top = Math.min(top, y);
          bottom = Math.max(bottom, y);
          break;
        }
      }
    }
    return bottom - top + 1;
  };
  return [height(first, gapStart), height(gapStart + gapLen, last + 1)];
}

describe('fallback faces stand as tall as the theme’s lower case', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-xheight-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the theme face’s weight where the fallback has it', () => {
    expect(fallbackFaces({ weight: 500, style: 'normal' }).map((f) => f.file)).toContain('fonts/NotoSans-Medium.ttf');
    expect(fallbackFaces({ weight: 600, style: 'italic', family: 'Lora' }).map((f) => f.file)).toContain('600SemiBold_Italic/EBGaramond_600SemiBold_Italic.ttf');
    expect(fallbackFaces({ weight: 400, style: 'normal' }).map((f) => f.file)).toContain('fonts/NotoSans-Regular.ttf');
  });

  for (const theme of THEMES) {
    it(`${theme}: Cyrillic and Hebrew x-heights within 8% of the Latin`, async () => {
      const style = themeStyle(theme);
      const ratios: Record<string, number> = {};
      for (const [script, text] of Object.entries(LINES)) {
        const file = path.join(dir, `${theme}-${script}.pdf`);
        const doc = new PDFDocument({ size: [500, 60], margin: 0 });
        const out = createWriteStream(file);
        doc.pipe(out);
        const { faces, fallbacks, measure } = registerThemeFaces(doc, style);
        const s: TextStyle = { face: faces.text, fallbacks: fallbacks.text, size: SIZE, leading: 1.3 };
        const [line, more] = breakLines(measure, text, s, 480);
        expect(more).toBeUndefined();
        drawLine(doc, line, 10, 40, s, '#000000');
        doc.end();
        await finished(out);
        await run('pdftoppm', ['-r', '600', '-gray', '-png', '-singlefile', file, file.replace(/\.pdf$/, '')]);
        const [latin, other] = await inkHeights(file.replace(/\.pdf$/, '.png'));
        ratios[script] = other / latin;
      }
      // The body face of the theme (long text is set in it) names what was matched, for the failure message.
      const at = `${theme} (${textFaceOf(style.body).family}): ${JSON.stringify(ratios)}`;
      for (const r of Object.values(ratios)) expect(Math.abs(r - 1), at).toBeLessThanOrEqual(0.08);
    });
  }
});

/**
 * Latin with every accent, in one face: Fredoka (storybook) lacks ż, ę, ś and ş, DM Sans and DM Serif Display
 * (editorial_noir) lack Vietnamese. A paragraph with such words is set whole in the face's companion (of the
 * same make, at the weight that prints as dark), so each line reads back from the PDF in one font (pdffonts),
 * and that face's lower case is as dark as the theme face's (ink over the box of "nonono", within 12%).
 */
describe('Polish, Turkish and Vietnamese words in the face of the words around them', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-latin-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** One line of `text` in a theme's face for `role`, printed to a one-page PDF; its path. */
  async function printLine(theme: (typeof THEMES)[number], role: 'quote' | 'title' | 'body' | 'text', text: string, name: string): Promise<string> {
    const file = path.join(dir, `${theme}-${role}-${name}.pdf`);
    const doc = new PDFDocument({ size: [900, 60], margin: 0 });
    const out = createWriteStream(file);
    doc.pipe(out);
    const { faces, fallbacks, measure } = registerThemeFaces(doc, themeStyle(theme));
    const s: TextStyle = { face: faces[role], fallbacks: fallbacks[role], size: SIZE, leading: 1.3 };
    const [line, more] = breakLines(measure, text, s, 880);
    expect(more).toBeUndefined();
    drawLine(doc, line, 10, 40, s, '#000000');
    doc.end();
    await finished(out);
    return file;
  }

  const fontsOf = async (file: string) => {
    const { stdout } = await run('pdffonts', [file]);
    return stdout.split('\n').slice(2).filter(Boolean).map((l) => l.split(/\s+/)[0].replace(/^[A-Z]{6}\+/, ''));
  };

  /** Ink over the box of the right-hand word of a one-line picture (its darkness: the face's weight). */
  async function darkness(file: string): Promise<number> {
    await run('pdftoppm', ['-r', '600', '-gray', '-png', '-singlefile', file, file.replace(/\.pdf$/, '')]);
    const { data, info } = await sharp(file.replace(/\.pdf$/, '.png')).greyscale().raw().toBuffer({ resolveWithObject: true });
    const { width: w, height: h } = info;
    const inkCol = (x: number) => {
      for (let y = 0; y < h; y++) if (data[y * w + x] < 128) return true;
      return false;
    };
    const cols = Array.from({ length: w }, (_, x) => inkCol(x));
    // The right word starts after the last gap wider than a letter's counter (a space).
    let start = cols.lastIndexOf(true);
    for (let blank = 0; start > 0 && blank < 40; start--) blank = cols[start] ? 0 : blank + 1;
    start += 40;
    const end = cols.lastIndexOf(true);
    let [top, bottom, ink] = [h, -1, 0];
    for (let y = 0; y < h; y++) {
      for (let x = start; x <= end; x++) {
        const v = 255 - data[y * w + x];
        if (v > 127) [top, bottom] = [Math.min(top, y), Math.max(bottom, y)];
        ink += v / 255;
      }
    }
    return ink / ((end - start + 1) * (bottom - top + 1));
  }

  it('wedding_album: what the script title face lacks falls back to a face as formal (a book italic, Naskh), not an upright sans', async () => {
    const fonts = await fontsOf(await printLine('wedding_album', 'title', 'Anna & Αλέξανδρος · آمنة', 'formal'));
    expect(fonts.some((f) => /^EBGaramond-.*Italic$/.test(f)), fonts.join(', ')).toBe(true);
    expect(fonts.some((f) => /^NotoNaskhArabic/.test(f)), fonts.join(', ')).toBe(true);
    expect(fonts.filter((f) => /^NotoSans-/.test(f)), fonts.join(', ')).toEqual([]);
  });

  const LINE = 'Zażółć gęślą jaźń, dedim: Şükrü, Tiếng Việt';
  for (const theme of ['storybook', 'editorial_noir'] as const) {
    for (const role of ['quote', 'title', 'body', 'text'] as const) {
      it(`${theme} ${role}: one face for the whole line, as dark as the theme's`, async () => {
        const fonts = await fontsOf(await printLine(theme, role, LINE, 'accented'));
        expect(fonts, `${theme} ${role}: ${fonts.join(', ')}`).toHaveLength(1);
        const own = await fontsOf(await printLine(theme, role, 'With love, from all of us', 'plain'));
        // A line the theme's face draws whole stays in it.
        expect(own).toHaveLength(1);
        const [theirs, ours] = [await darkness(await printLine(theme, role, 'ż nonono', 'companion')), await darkness(await printLine(theme, role, 'a nonono', 'theme'))];
        expect(Math.abs(theirs / ours - 1), `${theme} ${role}: ${fonts[0]} ${theirs.toFixed(3)} against ${own[0]} ${ours.toFixed(3)}`).toBeLessThanOrEqual(0.12);
      });
    }
  }
});
