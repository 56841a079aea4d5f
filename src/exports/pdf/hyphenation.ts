/**
 * Hyphenation for long memories, in their language: Liang's patterns (the
 * ones TeX uses) from the `hyphen` package, picked by a simple guess at the
 * text's language from its script, its letters and its commonest words.
 * English is the default; a language without patterns is not hyphenated.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Splits a word into the pieces between which it may be hyphenated. */
export type Hyphenator = (word: string) => string[];

/** Pattern modules of the `hyphen` package by language. */
const MODULES: Record<string, string> = {
  en: 'hyphen/en-us',
  de: 'hyphen/de',
  fr: 'hyphen/fr',
  es: 'hyphen/es',
  it: 'hyphen/it',
  nl: 'hyphen/nl',
  pt: 'hyphen/pt',
  pl: 'hyphen/pl',
  sv: 'hyphen/sv',
  tr: 'hyphen/tr',
  cs: 'hyphen/cs',
  ru: 'hyphen/ru',
  uk: 'hyphen/uk',
  el: 'hyphen/el',
};

/** A few of each language's commonest words: enough to tell languages of one script apart. */
const COMMON: Record<string, string[]> = {
  en: ['the', 'and', 'of', 'to', 'you', 'was', 'we', 'with', 'my', 'is'],
  de: ['und', 'der', 'die', 'das', 'ich', 'nicht', 'mit', 'ist', 'du', 'wir'],
  fr: ['le', 'la', 'les', 'et', 'des', 'est', 'une', 'nous', 'pour', 'avec'],
  es: ['el', 'los', 'las', 'y', 'que', 'una', 'con', 'por', 'para', 'muy'],
  it: ['il', 'che', 'di', 'e', 'una', 'per', 'sono', 'con', 'non', 'gli'],
  nl: ['het', 'een', 'en', 'van', 'ik', 'je', 'niet', 'met', 'zijn', 'wij'],
  pt: ['os', 'uma', 'não', 'com', 'para', 'você', 'muito', 'que', 'em', 'do'],
  pl: ['i', 'w', 'się', 'nie', 'na', 'że', 'jest', 'to', 'z', 'jak'],
  sv: ['och', 'att', 'det', 'som', 'är', 'jag', 'med', 'för', 'inte', 'vi'],
  tr: ['ve', 'bir', 'bu', 'çok', 'için', 'ile', 'ben', 'sen', 'da', 'de'],
  cs: ['a', 'je', 'se', 'na', 'že', 'jsem', 'to', 've', 'jsi', 'byl'],
  ru: ['и', 'в', 'не', 'на', 'я', 'что', 'ты', 'мы', 'с', 'как'],
  uk: ['і', 'в', 'не', 'на', 'я', 'що', 'ти', 'ми', 'з', 'як'],
};

/**
 * Letters only one of the Latin-script languages with patterns writes: a text made of words not in COMMON (a
 * Polish letter of names and nouns) is still told by them, rather than hyphenated by English patterns
 * ("dz-iękujemy").
 */
const OWN_LETTERS: Record<string, RegExp> = {
  pl: /[ąęłńśźż]/gu,
  cs: /[ěřůťď]/gu,
  tr: /[ğış]/gu,
  de: /ß/gu,
  sv: /å/gu,
  pt: /[ãõ]/gu,
  es: /[ñ¿¡]/gu,
  fr: /[œëîû]/gu,
};
/** The share of a text's Latin letters that are one language's own for its letters to settle the language. */
const OWN_LETTERS_SHARE = 0.01;

/** The text's language (a code of MODULES), or null when it is one without patterns (Vietnamese, CJK, Arabic…). */
export function guessLanguage(text: string): string | null {
  const sample = text.slice(0, 4000).toLowerCase();
  const letters = (re: RegExp) => (sample.match(re) ?? []).length;
  const latin = letters(/\p{Script=Latin}/gu);
  const cyrillic = letters(/\p{Script=Cyrillic}/gu);
  const greek = letters(/\p{Script=Greek}/gu);
  const other = letters(/\p{L}/gu) - latin - cyrillic - greek;
  const top = Math.max(latin, cyrillic, greek, other);
  if (top === 0) return 'en';
  if (top === greek) return 'el';
  if (top === other) return null;
  // Vietnamese: its tone marks on vowels are its own.
  if (latin && letters(/[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđơư]/gu) > latin * 0.03) return null;
  const words = sample.split(/[^\p{L}]+/u).filter(Boolean);
  if (top === latin) {
    // (A few borrowed names do not: their letters must be a real share of the text.)
    const [own, hits] = Object.entries(OWN_LETTERS).map(([lang, re]) => [lang, letters(re)] as const).reduce((a, b) => (b[1] > a[1] ? b : a));
    if (hits > latin * OWN_LETTERS_SHARE) return own;
  }
  const candidates = top === cyrillic ? ['ru', 'uk'] : Object.keys(COMMON).filter((l) => l !== 'ru' && l !== 'uk');
  let best = top === cyrillic ? 'ru' : 'en';
  let bestScore = 0;
  for (const lang of candidates) {
    const common = new Set(COMMON[lang]);
    const score = words.reduce((n, w) => n + (common.has(w) ? 1 : 0), 0);
    if (score > bestScore) [best, bestScore] = [lang, score];
  }
  // Letters only one language of the candidates writes settle it.
  if (top === cyrillic && letters(/[іїєґ]/gu) > 0) return 'uk';
  return best;
}

const SOFT = '\u00AD';
const loaded = new Map<string, Hyphenator>();

/** The hyphenator for a language (patterns loaded once), or null when there are none for it. */
export function hyphenatorFor(lang: string | null): Hyphenator | null {
  if (!lang || !MODULES[lang]) return null;
  let h = loaded.get(lang);
  if (!h) {
    const mod = require(MODULES[lang]) as { hyphenateSync(text: string, options?: { hyphenChar?: string; minWordLength?: number }): string };
    const cache = new Map<string, string[]>();
    h = (word) => {
      let parts = cache.get(word);
      if (!parts) {
        if (cache.size > 20_000) cache.clear();
        // Only words of letters (with punctuation around them): never numbers, addresses or mixed tokens.
        parts = /^\p{P}*\p{L}[\p{L}\p{M}’']*\p{L}\p{P}*$/u.test(word) ? mod.hyphenateSync(word, { hyphenChar: SOFT, minWordLength: 6 }).split(SOFT) : [word];
        cache.set(word, parts);
      }
      return parts;
    };
    loaded.set(lang, h);
  }
  return h;
}
