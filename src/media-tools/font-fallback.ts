import { createRequire } from 'node:module';
import type { FontFace, FontWeight } from './themes.js';
import { EMOJI_FONT, fontFilePath } from './themes.js';

/**
 * Every script a contributor may write in prints as itself: after the
 * theme's own face come Noto faces (OFL-1.1, shipped in npm packages, so no
 * system font is needed) for Latin with every diacritic, Greek and Cyrillic
 * (after EB Garamond for a serif face, so its Greek is a serif too);
 * Arabic; Hebrew; Devanagari; Chinese; Japanese (its own face, for text
 * with kana); Korean; and emoji (monochrome, so it takes the text colour).
 *
 * The run splitter picks the face per grapheme: the theme's face when it
 * draws it, otherwise the first fallback that does. The PDF renderer and the
 * share cards both use it, so a name prints the same everywhere.
 */

const EMBEDPDF = '@embedpdf/';

function noto(pkg: string, family: string, file: string, weight: FontWeight, style: 'normal' | 'italic' = 'normal'): FontFace {
  return { family, weight, style, package: pkg, file };
}

const WEIGHT_NAMES: Record<FontWeight, string> = { 300: 'Light', 400: 'Regular', 500: 'Medium', 600: 'SemiBold', 700: 'Bold', 800: 'ExtraBold' };
/** Noto Sans in every weight: the theme face's own weight, so a Greek or Cyrillic word is as dark as the Latin around it. */
const latin = (weight: FontWeight, italic: boolean) =>
  noto(
    `${EMBEDPDF}fonts-latin`,
    'Noto Sans',
    `fonts/NotoSans-${weight === 400 ? (italic ? '' : 'Regular') : WEIGHT_NAMES[weight]}${italic ? 'Italic' : ''}.ttf`,
    weight,
    italic ? 'italic' : 'normal',
  );
const arabic = (bold: boolean) => noto(`${EMBEDPDF}fonts-arabic`, 'Noto Naskh Arabic', `fonts/NotoNaskhArabic-${bold ? 'Bold' : 'Regular'}.ttf`, bold ? 700 : 400);
const hebrew = (bold: boolean) => noto(`${EMBEDPDF}fonts-hebrew`, 'Noto Sans Hebrew', `fonts/NotoSansHebrew-${bold ? 'Bold' : 'Regular'}.ttf`, bold ? 700 : 400);
const devanagari = (weight: FontWeight) =>
  noto('@expo-google-fonts/noto-sans-devanagari', 'Noto Sans Devanagari', `${weight}${WEIGHT_NAMES[weight]}/NotoSansDevanagari_${weight}${WEIGHT_NAMES[weight]}.ttf`, weight);
/** Simplified Chinese, with kana: Chinese, and Japanese when nothing says the text is Japanese. */
const han = (bold: boolean) => noto(`${EMBEDPDF}fonts-sc`, 'Noto Sans SC', `fonts/NotoSansHans-${bold ? 'Bold' : 'Regular'}.otf`, bold ? 700 : 400);
/** Japanese: kanji in their Japanese forms (a Chinese face draws some of them differently), kana and Japanese punctuation. */
const japanese = (bold: boolean) => noto(`${EMBEDPDF}fonts-jp`, 'Noto Sans JP', `fonts/NotoSansJP-${bold ? 'Bold' : 'Regular'}.otf`, bold ? 700 : 400);
/** A book face for serif themes: Greek, Cyrillic and Vietnamese in a serif, with its italic, rather than in a sans that stands out. */
const garamond = (weight: FontWeight, italic: boolean) => {
  // EB Garamond comes in 400 to 800.
  const w = (Math.min(800, Math.max(400, weight)) as FontWeight);
  const variant = `${w}${WEIGHT_NAMES[w]}${italic ? '_Italic' : ''}`;
  return noto('@expo-google-fonts/eb-garamond', 'EB Garamond', `${variant}/EBGaramond_${variant}.ttf`, w, italic ? 'italic' : 'normal');
};
/** The theme faces with serifs: their Latin, Greek and Cyrillic fall back to a serif. */
const SERIF_FAMILIES = new Set(['Playfair Display', 'Lora', 'Cormorant Garamond', 'Libre Baskerville', 'Fraunces', 'EB Garamond', 'DM Serif Display']);
export const isSerif = (face: { family?: string }) => !!face.family && SERIF_FAMILIES.has(face.family);
/**
 * The formal script faces (a wedding album's title): what they lack falls back to a face as formal, a
 * book italic (EB Garamond's, whose Greek is calligraphic too), not an upright sans. Arabic already falls
 * back to Naskh, the formal book hand.
 */
const SCRIPT_FAMILIES = new Set(['Great Vibes']);
/** A face of an @expo-google-fonts family, by weight and style, as its package names its files. */
const google = (pkg: string, base: string, family: string, weight: FontWeight, italic = false): FontFace => {
  const variant = `${weight}${WEIGHT_NAMES[weight]}${italic ? '_Italic' : ''}`;
  return noto(`@expo-google-fonts/${pkg}`, family, `${variant}/${base}_${variant}.ttf`, weight, italic ? 'italic' : 'normal');
};

/**
 * Companions for theme faces whose Latin stops short (Fredoka has ł but no ż, ę, ś, ş or ế; DM Sans and DM
 * Serif Display have no Vietnamese): a face of the same make that has every Latin letter, at the
 * weight that prints as dark. Darkness was measured as the ink of "nonono" over its advance and x-height
 * band, both faces at one x-height: Fredoka 500 0.50 and 600 0.60 against Nunito 700 0.48 and 800 0.56
 * (Noto Sans Medium, the fallback before: 0.41, visibly lighter); DM Sans 400/500/700 0.36/0.41/0.51 against
 * Inter's 0.36/0.42/0.53; DM Serif Display 0.50 against Playfair Display 700 0.50 (Noto Sans Regular: 0.35).
 */
const COMPANIONS: Record<string, (weight: FontWeight, italic: boolean) => FontFace> = {
  Fredoka: (w) => google('nunito', 'Nunito', 'Nunito', Math.min(800, w + 200) as FontWeight),
  'DM Sans': (w, italic) => google('inter', 'Inter', 'Inter', w, italic),
  'DM Serif Display': (_w, italic) => google('playfair-display', 'PlayfairDisplay', 'Playfair Display', 700, italic),
};

/** The companion of a theme face (see COMPANIONS), for the Latin letters it lacks; none for a face that has them all. */
export function latinCompanion(face: Pick<FontFace, 'weight' | 'style'> & { family?: string }): FontFace | null {
  const make = face.family ? COMPANIONS[face.family] : undefined;
  return make ? make(face.weight, face.style === 'italic') : null;
}

const hangul = (bold: boolean) => noto(`${EMBEDPDF}fonts-kr`, 'Noto Sans KR', `fonts/NotoSansKR-${bold ? 'Bold' : 'Regular'}.otf`, bold ? 700 : 400);

/**
 * The faces tried after `face`, in order, in a weight and style close to it. For Japanese text the
 * Japanese face comes before the Chinese one, so its kanji take their Japanese forms (the Chinese
 * face still draws what the Japanese one lacks, such as simplified characters).
 */
export function fallbackFaces(face: Pick<FontFace, 'weight' | 'style'> & { family?: string }, o: { japanese?: boolean } = {}): FontFace[] {
  // Faces in every weight take the theme face's own; those in regular and bold only, the nearer of the two.
  const weight = face.weight;
  const bold = weight >= 600;
  const italic = face.style === 'italic';
  // Devanagari before Noto Sans, which has the letters but not all the conjuncts.
  const cjk = o.japanese ? [japanese(bold), han(bold)] : [han(bold)];
  // A serif face falls back to a serif first (Noto Sans still draws what it lacks); a sans face to Noto Sans.
  const formal = !!face.family && SCRIPT_FAMILIES.has(face.family);
  const alphabets = formal ? [garamond(weight, true), latin(weight, true)] : isSerif(face) ? [garamond(weight, italic), latin(weight, italic)] : [latin(weight, italic)];
  // A face's own companion first: a paragraph whose Latin it lacks is set in it (see latinFaceIndex).
  const companion = latinCompanion(face);
  return [...(companion ? [companion] : []), devanagari(weight), ...alphabets, arabic(bold), hebrew(bold), ...cjk, hangul(bold), EMOJI_FONT];
}

/** What x-height matching reads of a face (fontkit's font). */
export interface FaceMetrics {
  unitsPerEm: number;
  xHeight?: number;
  glyphForCodePoint(cp: number): { id: number; bbox: { maxY: number } };
}

/**
 * For each script whose fallback is matched in size: a letter with neither ascender nor descender, whose
 * top is that script's x-height (Hebrew letters stand on the baseline at one height, that of samekh).
 * Arabic, Devanagari, Chinese, Japanese, Korean and emoji have no x-height to match: they keep the size.
 */
const X_LETTERS: [RegExp, number][] = [
  [/\p{Script=Cyrillic}/u, 0x0445], // х
  [/\p{Script=Greek}/u, 0x03bf], // ο
  [/\p{Script=Hebrew}/u, 0x05e1], // ס
  [/\p{Script=Latin}/u, 0x78], // x
];

const primed = new WeakSet<FaceMetrics>();

function heightOf(font: FaceMetrics, cp: number): number {
  // A letter built from another (Greek ο from Latin o) loads its component with no code points, and fontkit
  // keeps the glyph as first loaded: printed later, that o would have nothing in the PDF's ToUnicode map. Basic
  // Latin is loaded by its code points first.
  if (!primed.has(font)) {
    primed.add(font);
    for (let c = 0x21; c < 0x7f; c++) font.glyphForCodePoint(c);
  }
  const glyph = font.glyphForCodePoint(cp);
  return glyph.id ? glyph.bbox.maxY / font.unitsPerEm : 0;
}

/** The theme face's x-height, as a share of the em: its x's top, else what its OS/2 table says (sxHeight). */
export function xHeightOf(font: FaceMetrics): number {
  return heightOf(font, 0x78) || (font.xHeight ?? 0) / font.unitsPerEm;
}

/** The most a fallback is scaled either way: past it, a face's metrics are more likely wrong than its design. */
const SCALE_LIMITS = [0.6, 1.4] as const;

/**
 * The size a fallback face is set at, as a multiple of the theme face's, so that `text` (a run in the
 * fallback) stands as tall as the theme's lower case: the theme's x-height over the fallback's x-height for
 * the run's script. 1 for scripts with no x-height to match, or when either face lacks the letters.
 */
export function xHeightScale(theme: FaceMetrics, fallback: FaceMetrics, text: string): number {
  const letter = X_LETTERS.find(([script]) => script.test(text))?.[1];
  if (letter === undefined) return 1;
  const want = xHeightOf(theme);
  const have = heightOf(fallback, letter);
  if (!want || !have) return 1;
  return Math.min(SCALE_LIMITS[1], Math.max(SCALE_LIMITS[0], want / have));
}

/** A face and its fallbacks: the chain the run splitter walks. */
export function fontChain(face: FontFace, o: { japanese?: boolean } = {}): FontFace[] {
  return [face, ...fallbackFaces(face, o)];
}

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * Whether text is Japanese, as far as the text itself tells: it has kana (hiragana or katakana),
 * which Chinese never uses. Kanji alone could be either; without kana they are set as Chinese.
 */
export function isJapanese(...texts: (string | null | undefined)[]): boolean {
  return texts.some((t) => !!t && KANA.test(t));
}

interface FkFont {
  hasGlyphForCodePoint(cp: number): boolean;
}
const require = createRequire(import.meta.url);
const coverage = new Map<string, (cp: number) => boolean>();

/** Whether a face draws a code point (read from its own cmap, once per process and file). */
export function faceCovers(face: FontFace): (cp: number) => boolean {
  const file = fontFilePath(face);
  let has = coverage.get(file);
  if (!has) {
    let font: FkFont | null = null;
    const seen = new Map<number, boolean>();
    has = (cp: number) => {
      let yes = seen.get(cp);
      if (yes === undefined) {
        font ??= (require('fontkit') as { openSync(f: string): FkFont }).openSync(file);
        yes = font.hasGlyphForCodePoint(cp);
        seen.set(cp, yes);
      }
      return yes;
    };
    coverage.set(file, has);
  }
  return has;
}

// Made on first use: a segmenter's first construction loads ICU's break data, which the start (this module is read
// for the pages' CSS) does not need.
let segmenter: Intl.Segmenter | undefined;
const graphemes = { segment: (text: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text) };

/** Invisible or layout-only code points that go with whatever face their grapheme has. */
export const isJoiner = (cp: number) =>
  cp === 0x200d || cp === 0x200c || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x20e3 || (cp >= 0x1f3fb && cp <= 0x1f3ff) || (cp >= 0xe0020 && cp <= 0xe007f);

const EMOJI_LOOK = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u;
/** Letters of the scripts the Latin fallback draws: a word of them is set in one face, not patched letter by letter. */
const ALPHABETIC = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{M}\p{P}\p{N}'’]+$/u;

export interface SplitRun {
  /** Index into the chain. */
  face: number;
  text: string;
}

/**
 * Splits text into runs by the face that draws each grapheme: the first in
 * the chain that has all its visible code points (emoji go to the emoji face
 * first). A word in an alphabet the theme face draws only partly (Vietnamese
 * in a face without its stacked accents) is set whole in the fallback, so a
 * word never changes face mid-way. `emoji` is the chain index of the emoji face.
 */
export function splitRuns(text: string, has: (face: number, cp: number) => boolean, faces: number, emoji = faces - 1, prefer = 0): SplitRun[] {
  let covered = true;
  for (const ch of text) {
    if (!has(prefer, ch.codePointAt(0)!)) {
      covered = false;
      break;
    }
  }
  if (covered) return text ? [{ face: prefer, text }] : [];
  // The preferred face (the one setting a paragraph's Latin, see latinFaceIndex) is tried first.
  const faceOrder = prefer ? [prefer, ...range(faces).filter((i) => i !== prefer)] : range(faces);
  const pick = (segment: string): number => {
    const cps = [...segment].map((c) => c.codePointAt(0)!).filter((cp) => !isJoiner(cp));
    if (!cps.length) return -1;
    const order = EMOJI_LOOK.test(segment) ? [emoji, ...faceOrder.filter((i) => i !== emoji)] : faceOrder;
    for (const i of order) if (cps.every((cp) => has(i, cp))) return i;
    // Nothing draws it all: the face that draws its base character, so at least the letter prints.
    for (const i of order) if (has(i, cps[0])) return i;
    return 0;
  };
  const runs: SplitRun[] = [];
  for (const word of text.split(/(\s+)/)) {
    if (!word) continue;
    let whole = -1;
    if (ALPHABETIC.test(word) && ![...word].every((c) => has(prefer, c.codePointAt(0)!))) {
      for (const i of faceOrder) if (i !== prefer && whole < 0 && [...word].every((c) => isJoiner(c.codePointAt(0)!) || has(i, c.codePointAt(0)!))) whole = i;
    }
    for (const { segment } of graphemes.segment(word)) {
      let face = whole >= 0 ? whole : pick(segment);
      const last = runs[runs.length - 1];
      if (face < 0) face = last?.face ?? 0;
      if (last && last.face === face) last.text += segment;
      else runs.push({ face, text: segment });
    }
  }
  return runs;
}

const LATIN = /\p{Script=Latin}/u;

/**
 * The face that sets a paragraph's Latin letters: 0 (the theme's) when it draws every Latin letter in the
 * text, with its accents; else the first fallback that does (below `faces`, the emoji face left out), so a
 * Polish, Turkish or Vietnamese paragraph is one face throughout rather than the theme's face with some
 * words patched in another. 0 when none does.
 */
export function latinFaceIndex(text: string, has: (face: number, cp: number) => boolean, faces: number): number {
  if (/^[\x00-\x7f]*$/.test(text)) return 0;
  const letters: number[][] = [];
  for (const { segment } of graphemes.segment(text)) {
    if (LATIN.test(segment)) letters.push([...segment].map((c) => c.codePointAt(0)!).filter((cp) => !isJoiner(cp)));
  }
  const drawsAll = (face: number) => letters.every((cps) => cps.every((cp) => has(face, cp)));
  if (drawsAll(0)) return 0;
  for (let i = 1; i < faces; i++) if (drawsAll(i)) return i;
  return 0;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Strong right-to-left letters (Hebrew, Arabic and their relatives). */
export const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
/** Any letter; tested after RTL, so what is left reads left to right. */
const LTR = /\p{L}/u;

/** The direction a paragraph reads in: that of its first strong letter. */
export function paragraphDirection(text: string): 'ltr' | 'rtl' {
  for (const ch of text) {
    if (RTL.test(ch)) return 'rtl';
    if (LTR.test(ch)) return 'ltr';
  }
  return 'ltr';
}

/**
 * The visual order of a line's runs (each run one direction or neutral),
 * after the Unicode bidi algorithm's essentials: neutrals take the
 * direction around them, or the paragraph's; numbers and left-to-right
 * words inside right-to-left text keep their own order (levels, rule L2).
 */
export function visualOrder<T>(runs: T[], dirOf: (run: T) => 'ltr' | 'rtl' | 'neutral', base: 'ltr' | 'rtl'): T[] {
  const dirs = runs.map(dirOf);
  const resolved = dirs.map((d, i) => {
    if (d !== 'neutral') return d;
    let before: 'ltr' | 'rtl' = base;
    let after: 'ltr' | 'rtl' = base;
    for (let j = i - 1; j >= 0; j--) if (dirs[j] !== 'neutral') { before = dirs[j] as 'ltr' | 'rtl'; break; }
    for (let j = i + 1; j < dirs.length; j++) if (dirs[j] !== 'neutral') { after = dirs[j] as 'ltr' | 'rtl'; break; }
    return before === after ? before : base;
  });
  const levels = resolved.map((d) => (base === 'ltr' ? (d === 'rtl' ? 1 : 0) : d === 'rtl' ? 1 : 2));
  const order = runs.map((_, i) => i);
  const max = Math.max(0, ...levels);
  for (let level = max; level >= 1; level--) {
    for (let i = 0; i < order.length; ) {
      if (levels[order[i]] < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < order.length && levels[order[j]] >= level) j++;
      order.splice(i, j - i, ...order.slice(i, j).reverse());
      i = j;
    }
  }
  return order.map((i) => runs[i]);
}

/** The direction of a piece of text for reordering: strong RTL, strong LTR (or digits), or neither. */
export function directionOf(text: string): 'ltr' | 'rtl' | 'neutral' {
  if (RTL.test(text)) return 'rtl';
  if (LTR.test(text) || /\p{N}/u.test(text)) return 'ltr';
  return 'neutral';
}
