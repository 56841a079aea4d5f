/**
 * A long letter's drop cap (a theme's `dropCap`: a classic book's chapter opening): its first letter set large
 * in the display face, sunk into its first lines (its cap height from the first line's capitals down to the
 * last sunk line's baseline), the lines beside it indented by its width; the rest of the letter at the full
 * measure. Only for a letter that opens with a capital of an alphabet of capitals (Latin, Greek, Cyrillic), in
 * a paragraph long enough to run past it: a Chinese, Arabic or Hindi letter opens as it is.
 */
import { breakLines, normalizeText, type Line, type TextMeasurer, type TextStyle } from '../text-layout.js';

/** Lines the initial sinks into. */
export const DROP_LINES = 2;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const CAPITALS = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]$/u;

export interface DropCapFace {
  face: string;
  /** Its capitals' height as a share of its size (from the font's metrics). */
  capHeight: number;
}

/**
 * The letter's lines with its drop cap: the first DROP_LINES carry `indent` (the initial's width and a gap),
 * the first the initial itself (`initial`); null when the letter does not open so (see above), and its lines
 * are set as usual. The first of `faces` that has the letter sets it; the text face's cap height sets its size.
 */
export function dropCapLines(m: TextMeasurer, text: string, style: TextStyle, width: number, faces: DropCapFace[], textCapHeight: number): Line[] | null {
  const normalized = normalizeText(text);
  const [first, second] = [...graphemes.segment(normalized)].map((s) => s.segment);
  // (A capital: a letter written in lower case from its first word opens as it is.)
  if (!first || !second || !CAPITALS.test(first) || !/^\p{Lu}$/u.test(first) || !/\p{L}/u.test(second)) return null;
  // The display face, or the text face (or its fallback) where the display face has no such letter (a Greek or Cyrillic one).
  const cap = faces.find((f) => [...first].every((ch) => m.has(f.face, ch.codePointAt(0)!)));
  if (!cap) return null;
  const initial = first;
  const [opening, ...paragraphs] = normalized.split('\n');
  const pitch = style.size * style.leading;
  // From the first line's cap height to the last sunk line's baseline.
  const size = (style.size * textCapHeight + pitch * (DROP_LINES - 1)) / cap.capHeight;
  const indent = m.width(cap.face, size, initial) + style.size * 0.45;
  // (Not hyphenated beside the initial: the lines beside it are counted back into the text by their letters.)
  const beside = breakLines(m, opening.slice(first.length), { ...style, hyphenate: null }, width - indent);
  if (beside.length <= DROP_LINES) return null;
  const sunk = beside.slice(0, DROP_LINES);
  // What those lines set, letter by letter (spaces aside), found in the paragraph: the rest goes on at the full measure.
  let letters = sunk.reduce((n, l) => n + l.runs.reduce((k, r) => k + r.text.replace(/\s+/g, '').length, 0), 0);
  const rest = opening.slice(first.length);
  let at = 0;
  while (at < rest.length && letters > 0) {
    if (!/\s/.test(rest[at])) letters--;
    at++;
  }
  const after = breakLines(m, [rest.slice(at).trimStart(), ...paragraphs].join('\n'), style, width);
  if (!after.length) return null;
  return [
    ...sunk.map((l, i) => ({ ...l, indent, last: false, ...(i === 0 ? { initial: { text: initial, face: cap.face, size, width: indent } } : {}) })),
    { ...after[0], paragraphStart: false },
    ...after.slice(1),
  ];
}
