/**
 * A title as a cover sets it: split into title and subtitle where it has a natural break (a colon, a dash),
 * lines that never end or start on a dash nor leave one word alone, and lines as even as their count allows.
 */
import { breakLines, IDEOGRAPHIC, keepNumbersWithWords, type Line, type TextMeasurer, type TextStyle } from '../text-layout.js';

/**
 * Where a title breaks into title and subtitle: a colon followed by a space (or a full-width colon, which
 * takes none), a dash between spaces, an em dash or a Chinese double dash between words. A dash between
 * two numbers is a range ("1934 – 2024"), not a break.
 */
const NATURAL_BREAK = /\s*[:\uFE55]\s+|\s*\uFF1A\s*|(?<!\p{Nd})\s+(?:--|[—–-])\s+|\s+(?:--|[—–-])\s+(?!\p{Nd})|(?<=\p{L})(?:—|\u2014\u2014)(?=\p{L})|\s*\u2014\u2014\s*/u;

/** Letters, or at least two characters of an ideographic script: enough to stand as a title or a subtitle. */
const standsAlone = (part: string) => /\p{L}/u.test(part) && [...part].length >= (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(part) ? 2 : 3);

/**
 * A title and its subtitle as a cover sets them: a title with no subtitle that has a natural break is split
 * at its first one, “Grandma Rose turns 90: a book of memories from all of us” into “Grandma Rose turns 90”
 * and “A book of memories from all of us”. Both parts must stand alone (see standsAlone), else it stays whole.
 */
export function splitTitle(title: string, subtitle: string): { title: string; subtitle: string } {
  if (subtitle.trim()) return { title, subtitle };
  const parts = naturalBreak(title);
  if (!parts) return { title, subtitle };
  const [head, rest] = parts;
  return { title: head, subtitle: rest[0].toLocaleUpperCase() + rest.slice(1) };
}

/** A title's two parts either side of its first natural break, when both stand alone; else null. */
export function naturalBreak(title: string): [string, string] | null {
  const whole = title.trim();
  const m = NATURAL_BREAK.exec(whole);
  if (!m || m.index === 0) return null;
  const [head, rest] = [whole.slice(0, m.index).trim(), whole.slice(m.index + m[0].length).trim()];
  return standsAlone(head) && standsAlone(rest) ? [head, rest] : null;
}

/**
 * A title's text ready to break: numbers kept with their words, a spaced dash tied to the words on both
 * sides (a line never ends or starts with it), and the last two words tied when short (no word alone on
 * the last line).
 */
export function titleText(title: string, o: { tieLastWords?: boolean } = {}): string {
  const tied = keepNumbersWithWords(title.replace(/\s+/g, ' ').trim()).replace(/ ((?:--|[—–-])) /g, '\u00a0$1\u00a0');
  const words = tied.split(' ');
  // Only with two more words to go before them: tied in a title of three, the first would stand alone.
  if (o.tieLastWords === false || words.length < 4) return tied;
  const [before, last] = words.slice(-2);
  // Two long words tied would make one unbreakable chunk wider than some covers' measure.
  if ([...before].length + [...last].length > 18) return tied;
  return `${words.slice(0, -2).join(' ')} ${before}\u00a0${last}`;
}

/** The widest piece of text that must not be broken (a word, or words tied together); ideographs may break anywhere. */
export function widestWord(measure: TextMeasurer, text: string, s: TextStyle): number {
  let widest = 0;
  for (const word of text.split(' ')) {
    if (!word || IDEOGRAPHIC.test(word)) continue;
    widest = Math.max(widest, breakLines(measure, word, s, Number.MAX_SAFE_INTEGER)[0]?.width ?? 0);
  }
  return widest;
}

/**
 * Text broken into as few lines as fit `maxWidth`, then set at the narrowest width that still gives that
 * many without breaking a word: the lines come out about as long as each other, rather than a full line
 * and a short one.
 */
export function balancedLines(measure: TextMeasurer, text: string, s: TextStyle, maxWidth: number): Line[] {
  const lines = breakLines(measure, text, s, maxWidth);
  const widest = widestWord(measure, text, s);
  if (lines.length < 2 || widest >= maxWidth) return lines;
  let [lo, hi] = [Math.max(maxWidth / 2, widest), maxWidth];
  for (let i = 0; i < 12; i++) {
    const mid = (lo + hi) / 2;
    if (breakLines(measure, text, s, mid).length > lines.length) lo = mid;
    else hi = mid;
  }
  // Even lines may leave a word alone ("Grandma | Rose turns 90"): a little wider, the same count may not.
  for (let width = hi; width <= maxWidth; width += maxWidth / 50) {
    const candidate = breakLines(measure, text, s, width);
    if (candidate.length === lines.length && !candidate.some(isLoneWord)) return candidate;
  }
  return breakLines(measure, text, s, hi);
}

/** A line of one word (ideographs aside, which have no spaces). */
export function isLoneWord(line: Line): boolean {
  const text = line.runs.map((r) => r.text).join('').trim();
  return !!text && !/[ \u00a0]/.test(text) && !IDEOGRAPHIC.test(text);
}
