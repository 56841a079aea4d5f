/**
 * Fallback faces matched to the theme's type, read back from print: in every theme, a line of Latin
 * lower case followed by Cyrillic (and one followed by Hebrew) is set with the book's own typesetting,
 * printed to PDF and rasterised (pdftoppm, 600 dpi); the ink height of the Latin x's and of the other
 * script's x-height letters (х, ס) must agree within 8%. Where the theme face lacks the script, the
 * fallback (Noto Sans, EB Garamond, Noto Sans Hebrew) is scaled to the theme's x-height; unscaled, Hebrew
 * stood 30% taller than the handwriting face's lower case (Cyrillic 14%) and 58% taller than Cormorant's.
 * The fallback's weight follows the theme face's.
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
