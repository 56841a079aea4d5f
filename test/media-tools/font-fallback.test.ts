import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { directionOf, fallbackFaces, faceCovers, fontChain, splitRuns, visualOrder } from '../../src/media-tools/font-fallback.js';
import { fontFilePath, THEME_STYLES, THEMES } from '../../src/media-tools/themes.js';
import { breakLines, TextMeasurer, type TextStyle } from '../../src/exports/pdf/text-layout.js';
import { SCRIPTS } from '../helpers/scripts.js';


describe('the fallback chain', () => {
  it('draws every character of every script with some face, for every theme face', () => {
    for (const theme of THEMES) {
      const s = THEME_STYLES[theme];
      for (const face of [s.quote, s.title, s.body]) {
        const chain = fontChain(face);
        const has = (i: number, cp: number) => faceCovers(chain[i])(cp);
        for (const [script, line] of Object.entries(SCRIPTS)) {
          const runs = splitRuns(line, has, chain.length);
          expect(runs.map((r) => r.text).join(''), `${theme} ${script}`).toBe(line);
          for (const r of runs) {
            for (const ch of r.text) {
              const cp = ch.codePointAt(0)!;
              if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x1f3fb && cp <= 0x1f3ff) || /\s/.test(ch)) continue;
              expect(has(r.face, cp), `${theme} ${face.family} ${script} ${ch} in ${chain[r.face].family}`).toBe(true);
            }
          }
        }
      }
    }
  });

  it('sets a word the theme face draws only partly in one fallback face, whole', () => {
    const chain = fontChain(THEME_STYLES.editorial_noir.quote);
    const has = (i: number, cp: number) => faceCovers(chain[i])(cp);
    const runs = splitRuns('Hương', has, chain.length);
    expect(runs).toHaveLength(1);
    // (DM Serif Display lacks Vietnamese: its companion, a display serif as dark, sets the word.)
    expect(chain[runs[0].face].family).toBe('Playfair Display');
  });

  it('puts emoji in the emoji face even where a text face has a glyph for the code point', () => {
    const chain = fontChain(THEME_STYLES.modern_clean.quote);
    const has = (i: number, cp: number) => faceCovers(chain[i])(cp);
    const runs = splitRuns('ok ❤️', has, chain.length);
    expect(chain[runs[runs.length - 1].face].family).toBe('Noto Emoji');
  });

  it('sets Greek and Cyrillic of a serif face in a serif (EB Garamond, its style matched), of a sans face in Noto Sans', () => {
    const faceOf = (face: (typeof THEME_STYLES)[keyof typeof THEME_STYLES]['quote'], text: string) => {
      const chain = fontChain(face);
      const runs = splitRuns(text, (i, cp) => faceCovers(chain[i])(cp), chain.length);
      return runs.map((r) => `${chain[r.face].family} ${chain[r.face].style}`);
    };
    expect(faceOf(THEME_STYLES.elegant_classic.quote, 'Γιαγιά')).toEqual(['EB Garamond italic']);
    expect(faceOf(THEME_STYLES.elegant_classic.title, 'Γιαγιά')).toEqual(['EB Garamond normal']);
    expect(faceOf(THEME_STYLES.wedding_album.quote, 'Γιαγιά')).toEqual(['EB Garamond italic']);
    // DM Sans's companion (Inter, for the Vietnamese it lacks) has Greek too; Fredoka's (Nunito) has not.
    expect(faceOf(THEME_STYLES.editorial_noir.body, 'Γιαγιά')).toEqual(['Inter normal']);
    expect(faceOf(THEME_STYLES.storybook.quote, 'Γιαγιά')).toEqual(['Noto Sans normal']);
    expect(faceOf(THEME_STYLES.wedding_album.title, 'Γιαγιά')).toEqual(['EB Garamond italic']);
    // Whatever a theme face lacks of Greek and Cyrillic: a serif's in a serif, a sans face's in a sans.
    for (const theme of THEMES) {
      for (const face of [THEME_STYLES[theme].quote, THEME_STYLES[theme].title, THEME_STYLES[theme].body]) {
        for (const word of ['Γιαγιά', 'Бабушка']) {
          const used = faceOf(face, word).map((f) => f.split(' ').slice(0, -1).join(' '));
          // A formal script (Great Vibes) falls back to a book italic, as a serif does.
          const serif = ['Playfair Display', 'Lora', 'Cormorant Garamond', 'Libre Baskerville', 'Fraunces', 'EB Garamond', 'DM Serif Display', 'Great Vibes'].includes(face.family);
          expect(used, `${theme} ${face.family} ${word}`).not.toContain(serif ? 'Noto Sans' : 'EB Garamond');
        }
      }
    }
  });

  it('picks a bold fallback for a bold face', () => {
    expect(fallbackFaces({ weight: 700, style: 'normal' })[1].file).toContain('Bold');
    expect(fallbackFaces({ weight: 400, style: 'italic' })[1].file).toContain('Italic');
  });
});

describe('right to left', () => {
  it('orders runs visually: right-to-left words reversed, numbers and Latin kept in their order', () => {
    const runs = ['שלום', ' ', 'John', ' ', '42', ' ', 'עולם'];
    expect(visualOrder(runs, directionOf, 'rtl')).toEqual(['עולם', ' ', 'John', ' ', '42', ' ', 'שלום']);
    expect(visualOrder(['Hi', ' ', 'שלום', ' ', 'עולם', ' ', 'there'], directionOf, 'ltr')).toEqual(['Hi', ' ', 'עולם', ' ', 'שלום', ' ', 'there']);
  });

  it('lays out Arabic shaped (joined forms, not the isolated letters) and marks its lines right to left', () => {
    const doc = new PDFDocument({ autoFirstPage: false });
    const face = THEME_STYLES.elegant_classic.quote;
    doc.registerFont('quote', fontFilePath(face));
    const names = fallbackFaces(face).map((f, i) => {
      doc.registerFont(`fb${i}`, fontFilePath(f));
      return `fb${i}`;
    });
    const style: TextStyle = { face: 'quote', fallbacks: names, size: 12, leading: 1.4 };
    const lines = breakLines(new TextMeasurer(doc), SCRIPTS.arabic, style, 400);
    expect(lines[0].dir).toBe('rtl');
    const arabicRun = lines[0].runs.find((r) => r.dir === 'rtl')!;
    const naskh = `fb${fallbackFaces(face).findIndex((f) => f.family === 'Noto Naskh Arabic')}`;
    expect(arabicRun.face).toBe(naskh);
    doc.font(naskh);
    const fk = (doc as unknown as { _font: { font: { layout(t: string): { glyphs: { id: number }[] }; glyphForCodePoint(cp: number): { id: number } } } })._font.font;
    const shaped = fk.layout('شكرا').glyphs.map((g) => g.id);
    const isolated = [...'شكرا'].map((c) => fk.glyphForCodePoint(c.codePointAt(0)!).id).reverse();
    expect(shaped).not.toEqual(isolated);
  });
});
