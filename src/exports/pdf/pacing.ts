import { normalizeText } from './text-layout.js';

/**
 * Pacing: a reader turning pages of words only wants something to look at every spread or two. A long
 * memory's own held photos are spread through its pages; where no photo is at hand, a sentence of the
 * memory being read is set as a quote page (variety, but still words: it does not end a run).
 *
 * Book-wide, as a designer paces a photo book: a memory keeps its first photos with it (those shown with its
 * words, and the first half of those it holds back); the rest join the book's reserve of breathers. A run of
 * pages of words reaching RUN_PAGES_BREATHER takes the next one from the reserve at its next turn of a page
 * (between memories, or at a page turn inside a long letter: a page of its own, or a theme's hung photo), captioned
 * with whose photos it comes from. When a memory would make such a run and the reserve is empty, the nearest
 * memory still to come lends one of the photos it holds back. The reserve is spent by the book's end: once it
 * holds as many photos as memories are left, one goes out after each memory.
 */

/**
 * Pages of words in a row (quote pages among them) after which a reserved photo breaks the run: three spreads,
 * so a reader never turns more than four spreads of words only (MAX_WORD_SPREADS in the test book's check).
 */
export const RUN_PAGES_BREATHER = 6;

/**
 * Breathers the reserve should hold for a run of `runPages` pages of words (estimated before it is set: the run
 * so far and the memory's own pages): one for every RUN_PAGES_BREATHER, two pages early (an estimate may fall short).
 */
export function breathersWanted(runPages: number): number {
  return Math.max(0, Math.floor((runPages + 2) / RUN_PAGES_BREATHER));
}

/** Of the photos a memory holds back, how many stay with it (after it, or through its pages): the first half, rounded up. */
export function keptHeld(count: number): number {
  return Math.ceil(count / 2);
}

/** Whether the reserve of breathers should give one out now, between memories: it holds as many as memories are left to set (none piles up at the end). */
export function reserveDue(reserved: number, memoriesLeft: number): boolean {
  return reserved > 0 && reserved >= memoriesLeft;
}

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
