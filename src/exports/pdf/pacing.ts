import { normalizeText } from './text-layout.js';

/**
 * Pacing: a reader turning pages of words only wants something to look at every spread or two. A long
 * memory's own held photos are spread through its pages; where no photo is at hand, a sentence of the
 * memory being read is set as a quote page.
 */

/** Pages of words only in a row after which a quote page breaks the run (two spreads: one breather at least every other spread). */
export const WORD_PAGES_MAX = 4;
/** Pages of its words between a long memory's held photos at most (a spread). */
const WORD_PAGES_BETWEEN_PHOTOS = 2;

/**
 * After how many pages of its words a long memory's next page of held photos comes: its pages of words shared
 * out evenly among them (a page or two each), so its photos fall through it rather than all at its end.
 * Null when it is too short to carry any within it (its photos follow it, as any memory's).
 */
export function photoInterval(wordPages: number, photoPages: number): number | null {
  if (photoPages <= 0 || wordPages < 3) return null;
  return Math.max(1, Math.min(WORD_PAGES_BETWEEN_PHOTOS, Math.floor(wordPages / photoPages)));
}

/** Sentences a quote page may set, in the memory's order, without quotation marks: readable at display size (shorter ones in writing without spaces). */
export function quotableSentences(text: string): string[] {
  const plain = normalizeText(text).replace(/\s+/g, ' ').trim();
  const spaced = plain.includes(' ');
  const [least, most] = spaced ? [40, 150] : [14, 60];
  return plain
    .split(/(?<=[.!?\u3002\uff01\uff1f])\s*/u)
    .map((x) => x.trim())
    .filter((x) => x.length >= least && x.length <= most);
}

/**
 * Whether page n may be a quote page, the last one having been on page `last` (0: none yet): at most one in
 * every `every` pages (2: never two in a row), so quote pages break runs of words rather than make runs of their own.
 */
export function quotePageAllowed(n: number, last: number, every: number): boolean {
  return last <= 0 || n - last >= Math.max(2, every);
}
