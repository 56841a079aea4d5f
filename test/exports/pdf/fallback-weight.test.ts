/**
 * Fallback faces matched to the theme's type in style and weight: serif themes fall back to serif faces
 * (Noto Serif SC and JP, Frank Ruhl Libre), sans themes to sans ones (Noto Sans SC and JP, Noto Sans
 * Hebrew), Arabic to Naskh in both, read back from the PDF (pdffonts); and each fallback prints as
 * dark as the theme's Latin, read from the faces' outlines: the stem of 十 (Chinese), of Hebrew's roof
 * (scaled to the theme's x-height, as it is set), of Arabic's joining stroke and of Devanagari's bar
 * against the theme's l.
 * A Chinese title line in Cormorant Garamond SemiBold capitals was set in Noto Sans SC Bold (stem 130
 * against 82); it is now Noto Serif SC Medium (85).
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakLines, type TextStyle } from '../../../src/exports/pdf/text-layout.js';
import { drawLine, registerThemeFaces } from '../../../src/exports/pdf/typeset.js';
import { FALLBACK_FAMILIES, faceCovers, fallbackFaces, isSerif, xHeightOf, type FaceMetrics } from '../../../src/media-tools/font-fallback.js';
import { STEM_LETTERS, stemOf, type Outlined } from '../../../src/media-tools/stems.js';
import { fontFilePath, textFaceOf, THEMES, themeStyle, type FontFace } from '../../../src/media-tools/themes.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
type Font = Outlined & FaceMetrics;
const opened = new Map<string, Font>();
const open = (f: FontFace): Font => {
  const file = fontFilePath(f);
  if (!opened.has(file)) opened.set(file, (require('fontkit') as { openSync(f: string): Font }).openSync(file));
  return opened.get(file)!;
};
const stem = (font: Font, script: keyof typeof STEM_LETTERS) => {
  const [cp, at, across] = STEM_LETTERS[script];
  return stemOf(font, cp, at, across);
};
const SCRIPT_OF: Record<string, keyof typeof STEM_LETTERS> = Object.fromEntries(Object.values(FALLBACK_FAMILIES).map((f) => [f.family, f.script]));

describe('fallback faces as dark as the theme’s Latin, in its style', () => {
  it('the stems the picker knows are those of the font files', () => {
    for (const family of Object.values(FALLBACK_FAMILIES)) {
      for (const cut of family.cuts as { weight: number; stem: number; file: string; xh?: number }[]) {
        const font = open({ family: family.family, weight: cut.weight as FontFace['weight'], style: 'normal', package: family.pkg, file: cut.file });
        expect(stem(font, family.script) * 1000, `${family.family} ${cut.file}`).toBeCloseTo(cut.stem, -0.5);
        if (cut.xh) expect(font.glyphForCodePoint(0x05e1).bbox.maxY / font.unitsPerEm).toBeCloseTo(cut.xh, 2);
      }
    }
  });

  for (const theme of THEMES) {
    it(`${theme}: each script's fallback within 25% of the theme's stem, or the family's nearest end`, () => {
      const style = themeStyle(theme);
      for (const [role, face] of [['title', style.title], ['quote', style.quote], ['body', style.body], ['text', textFaceOf(style.body)]] as const) {
        const theirs = open(face);
        const want = stem(theirs, 'latin');
        for (const fb of fallbackFaces(face, { japanese: true })) {
          const script = SCRIPT_OF[fb.family];
          if (!script) continue;
          const font = open(fb);
          const scale = script === 'hebrew' ? Math.min(1.4, Math.max(0.6, xHeightOf(theirs) / (font.glyphForCodePoint(0x05e1).bbox.maxY / font.unitsPerEm))) : 1;
          const ratio = (stem(font, script) * scale) / want;
          const family = Object.values(FALLBACK_FAMILIES).find((f) => f.family === fb.family)!;
          const weights = family.cuts.map((c) => c.weight);
          const atEnd = (ratio < 1 && fb.weight === Math.max(...weights)) || (ratio > 1 && fb.weight === Math.min(...weights));
          const at = `${theme} ${role} (${face.family} ${face.weight}): ${fb.family} ${fb.weight} stem ${ratio.toFixed(2)}× the Latin`;
          if (!atEnd) expect(Math.abs(ratio - 1), at).toBeLessThanOrEqual(0.25);
          // Serif faces fall back to serifs, sans faces to sans (Korean and Devanagari have a sans only).
          if (['han', 'hebrew'].includes(script) && fb.family !== 'Noto Sans KR') {
            const serif = isSerif(face) || face.family === 'Great Vibes';
            expect(/Serif|Ruhl|Naskh/.test(fb.family), at).toBe(serif);
          }
        }
      }
    });
  }
});

describe('title lines in Chinese, Hebrew and Arabic read back from the PDF in the theme’s style and weight', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-weight-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** One line in a theme's face for `role`, printed to a one-page PDF; the fonts pdffonts reads back from it. */
  async function fontsOfLine(theme: (typeof THEMES)[number], role: 'title' | 'text', text: string): Promise<string[]> {
    const file = path.join(dir, `${theme}-${role}.pdf`);
    const doc = new PDFDocument({ size: [900, 60], margin: 0 });
    const out = createWriteStream(file);
    doc.pipe(out);
    const { faces, fallbacks, measure } = registerThemeFaces(doc, themeStyle(theme));
    const s: TextStyle = { face: faces[role], fallbacks: fallbacks[role], size: 24, leading: 1.3 };
    const [line] = breakLines(measure, text, s, 880);
    drawLine(doc, line, 10, 40, s, '#000000');
    doc.end();
    await finished(out);
    const { stdout } = await run('pdffonts', [file]);
    return stdout.split('\n').slice(2).filter(Boolean).map((l) => l.split(/\s+/)[0].replace(/^[A-Z]{6}\+/, ''));
  }

  for (const theme of THEMES) {
    it(`${theme}: the title's and the text's Chinese and Hebrew in the theme's style, in the cut matched to it`, async () => {
      const style = themeStyle(theme);
      for (const [role, face] of [['title', style.title], ['text', textFaceOf(style.body)]] as const) {
        const fonts = await fontsOfLine(theme, role, 'Rose 玫瑰 רוזה');
        const serif = isSerif(face) || face.family === 'Great Vibes';
        const chain = fallbackFaces(face);
        // The PostScript name of the cut picked, from its file (NotoSerifSC_500Medium.ttf: NotoSerifSC-Medium).
        const named = (family: string) => chain.find((c) => c.family === family)!.file.split('/').pop()!.replace(/\.(ttf|otf)$/, '').replace(/_\d+/, '-');
        // (A script the theme's own face draws is set in it: Fredoka has Hebrew.)
        const own = faceCovers(face);
        const want = [serif ? named('Noto Serif SC') : named('Noto Sans SC'), ...(own(0x05e8) ? [] : [serif ? named('Frank Ruhl Libre') : named('Noto Sans Hebrew')])];
        const at = `${theme} ${role}: ${fonts.join(', ')} (want ${want.join(', ')})`;
        for (const w of want) expect(fonts.some((f) => f === w || f === w.replace(/-Regular$/, '')), at).toBe(true);
      }
    });
  }

  const CASES = [
    ['memorial_service', /^NotoSerifSC-Medium$/, /^FrankRuhlLibre-Medium$/, /^NotoNaskhArabic(-Regular)?$/],
    ['heirloom_gallery', /^NotoSerifSC-SemiBold$/, /^FrankRuhlLibre-SemiBold$/, /^NotoNaskhArabic-Bold$/],
    ['modern_clean', /^NotoSansHans-Bold$/, /^NotoSansHebrew-Bold$/, /^NotoNaskhArabic-Bold$/],
    ['daily_journal', /^NotoSansHans-Regular$/, /^NotoSansHebrew(-Regular)?$/, /^NotoNaskhArabic(-Regular)?$/],
  ] as const;
  for (const [theme, han, hebrew, arabic] of CASES) {
    it(`${theme}: 玫瑰, רוזה and وردة beside the title's capitals`, async () => {
      const file = path.join(dir, `${theme}.pdf`);
      const doc = new PDFDocument({ size: [900, 60], margin: 0 });
      const out = createWriteStream(file);
      doc.pipe(out);
      const { faces, fallbacks, measure } = registerThemeFaces(doc, themeStyle(theme));
      const s: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: 24, leading: 1.3 };
      const [line] = breakLines(measure, 'ROSE 玫瑰 רוזה وردة', s, 880);
      drawLine(doc, line, 10, 40, s, '#000000');
      doc.end();
      await finished(out);
      const { stdout } = await run('pdffonts', [file]);
      const fonts = stdout.split('\n').slice(2).filter(Boolean).map((l) => l.split(/\s+/)[0].replace(/^[A-Z]{6}\+/, ''));
      for (const want of [han, hebrew, arabic]) expect(fonts.some((f) => want.test(f)), `${theme}: ${fonts.join(', ')}`).toBe(true);
    });
  }
});
