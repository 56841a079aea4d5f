/**
 * What every cover design draws with: the document and the theme's faces (the kit), the panel a cover is
 * drawn on, and the title's typesetting (the largest size that fits, lines balanced).
 */
import type { ThemeStyle } from '../../../media-tools/themes.js';
import type { BookWords } from '../book-words.js';
import type { Box } from '../geometry.js';
import type { Pen } from '../pdf-themes.js';
import { breakLines, LINING_FIGURES, type Line, type TextStyle } from '../text-layout.js';
import { baselineOffset, drawLine, type registerThemeFaces } from '../typeset.js';
import { balancedLines, isLoneWord, naturalBreak, titleText, widestWord } from './title.js';

export interface CoverKit extends ReturnType<typeof registerThemeFaces> {
  doc: Pen;
  style: ThemeStyle;
  title: string;
  subtitle: string;
  memoryCount: number;
  /** The book's own words in its language (see book-words); English when not given. */
  words?: BookWords;
}

/** A cover's trimmed face, and how far the sheet runs past each of its edges (the bleed; nothing at a fold). */
export interface Panel {
  trim: Box;
  bleed: { top: number; right: number; bottom: number; left: number };
}

/** The panel with its bleed: what a background or a full-bleed photo covers. */
export const bled = ({ trim: t, bleed: b }: Panel): Box => ({ x: t.x - b.left, y: t.y - b.top, w: t.w + b.left + b.right, h: t.h + b.top + b.bottom });

export const countLine = (n: number) => (n === 1 ? '1 memory' : `${n.toLocaleString('en-GB')} memories`);

/** Drawing helpers bound to one document and theme. */
export function typesetter(kit: CoverKit) {
  const { doc, faces, fallbacks, measure, style } = kit;
  const title = (size: number): TextStyle => ({ face: faces.title, fallbacks: fallbacks.title, size, leading: 1.15, characterSpacing: style.titleUppercase ? size * 0.06 : 0, features: LINING_FIGURES });
  return {
    /** The title at the largest size that fits in `maxLines`, its lines balanced (no word left alone on the last one). */
    fitTitle(maxWidth: number, maxLines: number, from: number, to: number): { lines: Line[]; style: TextStyle } {
      const raw = style.titleUppercase ? kit.title.toUpperCase() : kit.title;
      // A title with a subtitle of its own keeps its natural break (a spaced dash, a colon): the line turns
      // there, the dash dropped, rather than leave it at a line's end ("Bà nội 90 —" / "奶奶 — جدتي").
      const parts = naturalBreak(raw);
      const atDash = parts && /[—–-]/.test(raw.slice(raw.indexOf(parts[0]) + parts[0].length, raw.lastIndexOf(parts[1])));
      const broken = parts && atDash ? [`${titleText(parts[0])}\n${titleText(parts[1])}`] : [];
      // The last two words tied (no word alone on the last line) when that still fits; never a word broken.
      const texts = [...broken, titleText(raw), titleText(raw, { tieLastWords: false })];
      const fits = (text: string, s: TextStyle) => widestWord(measure, text, s) <= maxWidth && breakLines(measure, text, s, maxWidth).length <= maxLines;
      // The largest size whose lines leave no word alone; failing that, the largest that fits.
      for (const strict of [true, false]) {
        for (let size = from; size >= to; size -= 2) {
          for (const text of texts.filter((t) => fits(t, title(size)))) {
            const lines = balancedLines(measure, text, title(size), maxWidth);
            if (!strict || !lines.some(isLoneWord)) return { lines, style: title(size) };
          }
        }
      }
      // Too long for `maxLines` even at the smallest size: more lines, but smaller still if a word is wider than the measure.
      let size = to;
      while (size > 8 && widestWord(measure, texts[1], title(size)) > maxWidth) size -= 1;
      return { lines: balancedLines(measure, texts[1], title(size), maxWidth), style: title(size) };
    },
    /** Lines set in a column: returns the y below the last line. */
    block(lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, align: 'left' | 'center', colour: string): number {
      let at = top;
      for (const line of lines) {
        drawLine(doc, line, align === 'center' ? box.x + (box.w - line.width) / 2 : box.x, at + baselineOffset(s), s, colour);
        at += s.size * s.leading;
      }
      return at;
    },
    /** One line centred on x (or starting or ending at it), shrunk to `maxWidth` if need be. */
    line(text: string, s: TextStyle, x: number, baseline: number, colour: string, maxWidth: number, align: 'left' | 'center' | 'right' = 'center') {
      const flat = text.replace(/\s+/g, ' ');
      let [l] = breakLines(measure, flat, s, Number.MAX_SAFE_INTEGER);
      if (!l) return;
      let used = s;
      if (l.width > maxWidth) {
        used = { ...s, size: Math.max(5, (s.size * maxWidth) / l.width) };
        [l] = breakLines(measure, flat, used, Number.MAX_SAFE_INTEGER);
      }
      drawLine(doc, l, align === 'center' ? x - l.width / 2 : align === 'right' ? x - l.width : x, baseline, used, colour);
    },
    lines: (text: string, s: TextStyle, width: number, max = 99) => breakLines(measure, text, s, width).slice(0, max),
    /** The subtitle's lines, as even as the title's (at most `max`). */
    subtitleLines: (s: TextStyle, width: number, max = 99) => balancedLines(measure, titleText(kit.subtitle), s, width).slice(0, max),
    subtitle: (size = 15): TextStyle => ({ face: faces.quote, fallbacks: fallbacks.quote, size, leading: 1.35 }),
    smallCaps: (size = 9): TextStyle => ({ face: faces.body, fallbacks: [], size, leading: 1, characterSpacing: size * 0.18, features: LINING_FIGURES }),
  };
}

export type Typesetter = ReturnType<typeof typesetter>;
