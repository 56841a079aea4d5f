/**
 * Line breaking for the PDF, done here rather than by PDFKit's own wrapper
 * so that each line is placed by us: a memory can flow across pages whose
 * left edge moves with the gutter, a line never straddles a page, and
 * characters the theme's typeface lacks (emoji, mostly) are set in the
 * fallback face, mid-line. Break opportunities come from Intl.Segmenter
 * (words, and ideographs and kana, which may break between any two
 * characters but for the punctuation kinsoku keeps off a line's start or end).
 */

import { EMOJI_ADVANCE, hasEmojiPicture } from '../../media-tools/emoji-pictures.js';
import { directionOf, latinFaceIndex, paragraphDirection, splitRuns, xHeightScale, type FaceMetrics } from '../../media-tools/font-fallback.js';
import type { Hyphenator } from './hyphenation.js';

/** What PDFKit offers for measuring and drawing; the document itself in practice. */
export interface TextDoc {
  font(name: string): unknown;
  fontSize(size: number): unknown;
  widthOfString(text: string, options?: { characterSpacing?: number; features?: string[] }): number;
}

export interface TextStyle {
  /** Registered PDFKit font names: the theme's face, and the fallbacks for what it lacks, in order (emoji last). */
  face: string;
  fallbacks: readonly string[];
  size: number;
  /** Line pitch as a multiple of the size. */
  leading: number;
  characterSpacing?: number;
  /** OpenType features for every run (titles and capitals ask for lining figures). */
  features?: readonly string[];
  /** Hyphenates a word that does not fit at the end of a line (long memories, in their language). */
  hyphenate?: Hyphenator | null;
  /**
   * The fallback that sets a paragraph's Latin letters when the theme's face lacks some of them (ż, ş, ế): set
   * per paragraph by breakLines, so a Polish or Vietnamese paragraph is one face throughout, not a patchwork.
   */
  latinFace?: string;
}

export interface Run {
  face: string;
  text: string;
  width: number;
  /** Right-to-left runs are shaped whole (so their words come out right to left), the others word by word. */
  dir: 'ltr' | 'rtl' | 'neutral';
  /** One emoji printed as its colour picture (emoji-pictures), its characters set invisibly under it. */
  emoji?: boolean;
  /** The size a fallback face is set at, when not the style's: matched to the theme face's x-height. */
  size?: number;
}

/** PDFKit shapes a run whole when given features (else word by word, in logical order). */
export const SHAPE_WHOLE: string[] = [];

export interface Line {
  runs: Run[];
  width: number;
  /** The first line of a paragraph after the first (a little space is kept above it). */
  paragraphStart: boolean;
  /** The paragraph's direction: a right-to-left line is set from the right and its runs reordered. */
  dir: 'ltr' | 'rtl';
  /** The last line of its paragraph (never stretched when justifying). */
  last?: boolean;
  /** It ends in a hyphen this layout added (the word goes on on the next line). */
  hyphenated?: boolean;
  /** It ends inside a word longer than the line, broken between two letters without a hyphen (a URL, or a word at display size in too narrow a column). */
  splitWord?: boolean;
  /** Set in from the column's start by so many points (beside a drop cap, see pages/drop-cap.ts). */
  indent?: number;
  /** A drop cap drawn at the column's start, its baseline on the last line it sinks into (its width includes the gap after it). */
  initial?: { text: string; face: string; size: number; width: number };
}

const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Chinese and Japanese writing (ideographs, kana, their punctuation and full-width forms): a line may
 * break between any two of its characters. Korean is written in words with spaces, and breaks there.
 */
export const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\u30fb\u30fc\uff00-\uffef]/u;
/**
 * Never at the start of a line (kinsoku, after JIS X 4051): closing brackets and quotes, stops, commas
 * and other dividing punctuation, middle dots, hyphens, iteration marks, the prolonged sound mark and
 * small kana.
 */
export const NO_START = /^[\p{Pe}\p{Pf}!%),.:;?\]}‐゠–〜～、。，．：；！？）」』】〉》〕］｝〙〗〟ー・ヽヾゝゞ々〻ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰ-ㇿ‼⁇⁈⁉…‥]/u;
/** Never at the end of a line: opening brackets and quotes (they go over with what they open). */
export const NO_END = /[\p{Ps}\p{Pi}]$/u;
const BREAK_AFTER = /[-‐‒–—/]$/;
/** No-break spaces (and the word joiner): a line never breaks at them, in ideographic text as in any other. */
const NO_BREAK_SPACE = /^[\u00A0\u2007\u202F\u2060\uFEFF]+$/;
const lastChar = (t: string) => t.slice(t.length - (t.length > 1 && /[\udc00-\udfff]/.test(t[t.length - 1]) ? 2 : 1));

/** Measures text per face and size, with a cache (memories repeat their words a lot). */
export class TextMeasurer {
  private readonly widths = new Map<string, number>();
  private readonly coverage = new Map<string, (cp: number) => boolean>();

  constructor(private readonly doc: TextDoc) {}

  width(face: string, size: number, text: string, characterSpacing = 0, rtl = false, features?: readonly string[]): number {
    const key = `${face}\u0000${size}\u0000${characterSpacing}\u0000${features?.join(',') ?? ''}\u0000${rtl ? 'r' : ''}${text}`;
    let w = this.widths.get(key);
    if (w === undefined) {
      if (this.widths.size > 50_000) this.widths.clear();
      this.doc.font(face);
      this.doc.fontSize(size);
      // PDFKit counts the spacing between characters only (n - 1); drawn, it follows every character, the last
      // one too, so pieces measured apart and set side by side (words, spaces, runs) add up to the line as drawn.
      w = this.doc.widthOfString(text, rtl || features ? { characterSpacing, features: [...(features ?? SHAPE_WHOLE)] } : { characterSpacing }) + (text ? characterSpacing : 0);
      this.widths.set(key, w);
    }
    return w;
  }

  private readonly scales = new Map<string, number>();

  /** The size factor for `text` set in the fallback `face` beside the theme's `primary` (see xHeightScale). */
  scale(primary: string, face: string, text: string): number {
    if (primary === face) return 1;
    const script = /\p{Script=Cyrillic}/u.test(text) ? 'c' : /\p{Script=Greek}/u.test(text) ? 'g' : /\p{Script=Hebrew}/u.test(text) ? 'h' : /\p{Script=Latin}/u.test(text) ? 'l' : '';
    if (!script) return 1;
    const key = `${primary}\u0000${face}\u0000${script}`;
    let k = this.scales.get(key);
    if (k === undefined) {
      const fk = (name: string) => (this.doc.font(name) as { _font?: { font?: FaceMetrics } })._font?.font;
      const [theme, fallback] = [fk(primary), fk(face)];
      k = theme && fallback ? xHeightScale(theme, fallback, text) : 1;
      this.scales.set(key, k);
    }
    return k;
  }

  /** Whether the face draws this code point (PDFKit's embedded fonts carry their fontkit font). */
  has(face: string, cp: number): boolean {
    let known = this.coverage.get(face);
    if (!known) {
      const font = this.doc.font(face) as { _font?: { font?: { hasGlyphForCodePoint?(cp: number): boolean } } };
      const fk = font._font?.font;
      const seen = new Map<number, boolean>();
      known = (c: number) => {
        let yes = seen.get(c);
        if (yes === undefined) {
          yes = fk?.hasGlyphForCodePoint ? fk.hasGlyphForCodePoint(c) : true;
          seen.set(c, yes);
        }
        return yes;
      };
      this.coverage.set(face, known);
    }
    return known(cp);
  }
}

/** Splits a piece of text into runs by the face that can draw each grapheme (see font-fallback). */
export function runsOf(m: TextMeasurer, text: string, style: TextStyle): Run[] {
  const chain = [style.face, ...style.fallbacks];
  const emojiFace = chain.length - 1;
  const prefer = style.latinFace ? Math.max(0, chain.indexOf(style.latinFace)) : 0;
  return splitRuns(text, (i, cp) => m.has(chain[i], cp), chain.length, emojiFace, prefer).flatMap(({ face, text: t }) => {
    // Emoji go one by one: each that has a colour picture takes an em and a little room, as drawn.
    const pieces = face === emojiFace ? Array.from(graphemes.segment(t), (g) => g.segment) : [t];
    return pieces.map((piece): Run => {
      if (face === emojiFace && hasEmojiPicture(piece)) return { face: chain[face], text: piece, dir: 'neutral', width: style.size * EMOJI_ADVANCE + (style.characterSpacing ?? 0), emoji: true };
      const dir = directionOf(piece);
      // A fallback's letters stand as tall as the theme's lower case (its x-height), on the same baseline.
      const k = face === 0 ? 1 : m.scale(chain[0], chain[face], piece);
      const size = style.size * k;
      return { face: chain[face], text: piece, dir, width: m.width(chain[face], size, piece, style.characterSpacing, dir === 'rtl', style.features), ...(k !== 1 ? { size } : {}) };
    });
  });
}

/** Text as it is laid out: CRLF to LF, tabs and runs of spaces to one space, at most one empty line in a row. */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\t\f\v\u2000-\u200a\u205f]+/g, ' ')
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, '')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/ {2,}/g, ' ')
    .trim();
}

interface Unit {
  text: string;
  space: boolean;
}

/** The pieces of a paragraph between which a line may break (spaces are their own pieces). */
function unitsOf(paragraph: string): Unit[] {
  // Without ideographs, breaks are at spaces and after dashes (not before a no-break space: a title's tied dash
  // stays with its words): no need for the (slow) word segmenter.
  if (!IDEOGRAPHIC.test(paragraph)) {
    const units: Unit[] = [];
    for (const piece of paragraph.split(/( )/)) {
      if (!piece) continue;
      if (piece === ' ') units.push({ text: ' ', space: true });
      else for (const part of piece.split(/(?<=[^-‐‒–—/][-‐‒–—/]+)(?=[^-‐‒–—/\p{P}\s])/u)) units.push({ text: part, space: false });
    }
    return units;
  }
  const units: Unit[] = [];
  let prev = '';
  for (const { segment } of words.segment(paragraph)) {
    if (/^\s+$/.test(segment) && !NO_BREAK_SPACE.test(segment)) {
      units.push({ text: ' ', space: true });
      prev = ' ';
      continue;
    }
    if (NO_BREAK_SPACE.test(segment)) {
      // A no-break space (10\u00A0km, 第3\u00A0章) ties the pieces either side of it: glued to both, never a break.
      const last = units[units.length - 1];
      if (last && !last.space) last.text += segment;
      else units.push({ text: segment, space: false });
      prev = segment;
      continue;
    }
    // A word of ideographs or kana may break between any two of its characters.
    const pieces = IDEOGRAPHIC.test(segment) ? Array.from(graphemes.segment(segment), (g) => g.segment) : [segment];
    for (const piece of pieces) {
      const last = units[units.length - 1];
      const breaks = (BREAK_AFTER.test(prev) || IDEOGRAPHIC.test(lastChar(prev)) || IDEOGRAPHIC.test(piece)) && !NO_START.test(piece) && !NO_END.test(prev) && !NO_BREAK_SPACE.test(prev);
      if (last && !last.space && !breaks) last.text += piece; // no break allowed here: glue to the previous piece
      else units.push({ text: piece, space: false });
      prev = piece;
    }
  }
  return units;
}

/** Breaks normalised text into lines no wider than `maxWidth`. */
export function breakLines(m: TextMeasurer, text: string, given: TextStyle, maxWidth: number): Line[] {
  const lines: Line[] = [];
  // Widths carry the spacing after every character: a line's ink ends one spacing before its last advance.
  const spacing = given.characterSpacing ?? 0;
  const fits = (width: number) => width - spacing <= maxWidth;
  const paragraphs = normalizeText(text).split('\n');
  paragraphs.forEach((paragraph, p) => {
    if (!paragraph) return; // an empty line between paragraphs: the paragraph spacing stands for it
    const style = withLatinFace(m, paragraph, given);
    // Spaces in the face that sets the paragraph's words, at its size (scaled to the theme's x-height).
    const spaceFace = style.latinFace ?? style.face;
    const spaceSize = style.size * m.scale(style.face, spaceFace, 'x');
    const spaceWidth = m.width(spaceFace, spaceSize, ' ', style.characterSpacing, false, style.features);
    const dir = paragraphDirection(paragraph);
    let line: Line = { runs: [], width: 0, paragraphStart: p > 0, dir };
    let pendingSpace = false;
    const push = () => {
      if (line.runs.length) lines.push({ ...line, width: line.width - spacing });
      line = { runs: [], width: 0, paragraphStart: false, dir };
      pendingSpace = false;
    };
    const append = (runs: Run[], width: number) => {
      if (pendingSpace && line.runs.length) {
        const last = line.runs[line.runs.length - 1];
        if (last.face === spaceFace && last.dir !== 'rtl') {
          last.text += ' ';
          last.width += spaceWidth;
        } else line.runs.push({ face: spaceFace, text: ' ', width: spaceWidth, dir: 'neutral', ...(spaceSize !== style.size ? { size: spaceSize } : {}) });
        line.width += spaceWidth;
      }
      pendingSpace = false;
      for (const r of runs) {
        const last = line.runs[line.runs.length - 1];
        // Runs of one face join up, except across a change of direction (and right-to-left ones, shaped word by word).
        // In a right-to-left paragraph neutrals stay apart, as their place depends on their neighbours. An emoji
        // picture is a run of its own.
        const joins = !last?.emoji && !r.emoji && (dir === 'ltr' ? last?.dir !== 'rtl' && r.dir !== 'rtl' : last?.dir === 'ltr' && r.dir === 'ltr');
        if (last && last.face === r.face && joins) {
          last.text += r.text;
          last.width += r.width;
          if (r.dir === 'ltr') last.dir = 'ltr';
        } else line.runs.push({ ...r });
      }
      line.width += width;
    };
    for (const unit of unitsOf(paragraph)) {
      if (unit.space) {
        pendingSpace = line.runs.length > 0;
        continue;
      }
      const runs = runsOf(m, unit.text, style);
      const width = runs.reduce((n, r) => n + r.width, 0);
      const gap = pendingSpace && line.runs.length ? spaceWidth : 0;
      if (fits(line.width + gap + width)) {
        append(runs, width);
        continue;
      }
      if (line.runs.length && style.hyphenate) {
        // The longest start of the word that fits here with a hyphen ends this line; the rest starts the next.
        const parts = style.hyphenate(unit.text);
        let rest = '';
        for (let k = parts.length - 1; k >= 1; k--) {
          const head = runsOf(m, `${parts.slice(0, k).join('')}-`, style);
          const w = head.reduce((n, r) => n + r.width, 0);
          if (fits(line.width + gap + w)) {
            append(head, w);
            line.hyphenated = true;
            rest = parts.slice(k).join('');
            break;
          }
        }
        if (rest) {
          push();
          const tail = runsOf(m, rest, style);
          const tw = tail.reduce((n, r) => n + r.width, 0);
          if (fits(tw)) {
            append(tail, tw);
            continue;
          }
          unit.text = rest;
        }
      }
      if (line.runs.length) push();
      if (fits(width)) {
        append(runs, width);
        continue;
      }
      // Longer than a whole line (a URL, a long word): broken between graphemes.
      for (const { segment } of graphemes.segment(unit.text)) {
        const piece = runsOf(m, segment, style);
        const w = piece.reduce((n, r) => n + r.width, 0);
        if (!fits(line.width + w) && line.runs.length) {
          line.splitWord = true;
          push();
        }
        append(piece, w);
      }
    }
    push();
    if (lines.length) lines[lines.length - 1].last = true;
  });
  return lines;
}

/**
 * The style for one paragraph: when the theme's face lacks some of its Latin letters (a Polish word in a
 * face without ż, a Vietnamese one in a face without ế), the first fallback that draws them all sets the
 * paragraph's Latin, so its words share one face (a face matched to the theme's: see fallbackFaces).
 */
function withLatinFace(m: TextMeasurer, paragraph: string, style: TextStyle): TextStyle {
  const chain = [style.face, ...style.fallbacks];
  const index = latinFaceIndex(paragraph, (i, cp) => m.has(chain[i], cp), chain.length - 1);
  return index > 0 ? { ...style, latinFace: chain[index] } : style;
}

/** Figures as tall as capitals, for titles and text set in capitals (some faces default to old-style figures). */
export const LINING_FIGURES: readonly string[] = ['lnum'];

/**
 * A title whose numbers stay with their words: a no-break space ties a number to the word before it
 * (to the word after it when it opens the title), so "Grandma Rose turns 90" never leaves "90" alone on a line.
 */
export function keepNumbersWithWords(title: string): string {
  return title
    .replace(/(\S) +(?=\p{Nd}[\p{Nd}\p{L}\p{P}\p{S}]*(?: |$))/gu, '$1\u00a0')
    .replace(/^([\p{P}\p{S}]*\p{Nd}[\p{Nd}\p{P}\p{S}]*) +/u, '$1\u00a0');
}

/**
 * The narrowest measure that still gives as many lines: the lines even out, none left with a word or two. Never so
 * narrow that a word no longer fits a line and is split between its letters without a hyphen ("świętowali / śmy"
 * on a quote page set large).
 */
export function evenLines(m: TextMeasurer, text: string, s: TextStyle, width: number): Line[] {
  const lines = breakLines(m, text, s, width);
  if (lines.length < 2) return lines;
  const splits = (ls: Line[]) => ls.filter((l) => l.splitWord).length;
  const splitAtWidth = splits(lines);
  let [lo, hi] = [width / 2, width];
  for (let i = 0; i < 10; i++) {
    const mid = (lo + hi) / 2;
    const at = breakLines(m, text, s, mid);
    if (at.length > lines.length || splits(at) > splitAtWidth) lo = mid;
    else hi = mid;
  }
  return breakLines(m, text, s, hi);
}

/**
 * Typewriter punctuation as a typesetter would set it: curly quotes and
 * apostrophes, dashes for double hyphens, an ellipsis for three dots.
 */
export function smartPunctuation(text: string): string {
  return text
    .replace(/(^|[\s([{\u2014\u2013-])"/gu, '$1\u201C')
    .replace(/"/g, '\u201D')
    .replace(/(^|[\s([{\u2014\u2013-])'/gu, '$1\u2018')
    .replace(/'/g, '\u2019')
    .replace(/(\s)--(\s)/g, '$1\u2013$2')
    .replace(/--/g, '\u2014')
    .replace(/\.\.\./g, '\u2026');
}
