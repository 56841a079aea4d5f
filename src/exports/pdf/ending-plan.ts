/**
 * How the book's ending takes up the pages a book must have over: a bound book has an even number of
 * pages, a printed one a multiple of 4. Blank leaves after the colophon read as unfinished, so the pages
 * left over are absorbed before the ending, as designed pages of the book (a quote from it, its closing
 * photo on a page of its own; ruled notes pages in a theme meant for writing), and the colophon is the last
 * printed page: at most the back of its own leaf is left blank (a recto colophon has one).
 *
 * The ending itself: "With love from" (the contributors' index) ends on a verso, the colophon's page is the
 * recto facing it; the first filling page is the one that turns the ending onto that spread when it would
 * not otherwise fall there.
 */

export type FillPage = 'quote' | 'photo' | 'notes';

export interface EndingPlan {
  /** The designed pages before the ending, in order. */
  fill: FillPage[];
  /** Blank pages after the colophon: 0, or 1 (the back of its leaf). */
  blanks: number;
  /** Whether the closing photo went on a page of its own (then the colophon is set without it). */
  photoUsed: boolean;
}

/**
 * The ending's plan, the book being `pages` long when its last memory (and its held photos) are set.
 * `listPages`: the pages of "With love from"; `unit`: 2, or 4 for print; `ruled`: the theme writes on its
 * notes pages; `photo`: there is a closing photo.
 */
export function endingPlan(pages: number, listPages: number, unit: 2 | 4, ruled: boolean, photo: boolean): EndingPlan {
  const after = (extra: number) => (unit - ((pages + extra + listPages + 1) % unit)) % unit;
  let extra: number;
  if (listPages > 0) {
    // The index ends on a verso (even page), so the colophon is a recto and the back of its leaf stays
    // blank: whatever else the multiple asks for is filled before the ending, in pairs (keeping the spread).
    const turn = (pages + listPages) % 2;
    extra = turn + Math.max(0, after(turn) - 1);
  } else {
    // No index to face: the colophon goes wherever the pages put it, and is the last page.
    extra = after(0);
  }
  const blanks = after(extra);
  let photoUsed = false;
  const fill: FillPage[] = [];
  for (let i = 0; i < extra; i++) {
    if (ruled && !(listPages > 0 && i === 0 && (pages + listPages) % 2 === 1)) fill.push('notes');
    // A quote, then the closing photo on a page of its own, then quotes: never two photos, and no two
    // quote pages in a row when a photo can part them.
    else if (photo && !photoUsed && i >= 1 && fill.at(-1) === 'quote') {
      fill.push('photo');
      photoUsed = true;
    } else fill.push('quote');
  }
  return { fill, blanks, photoUsed };
}
