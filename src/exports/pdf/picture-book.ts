/**
 * A picture book's pages (storybook, baby_first_year): a memory with a photo opens a page of its own with the
 * photo over its words, each held photo is a page of its own, and a few words that would sit small under a
 * letter's last lines are set large in the room below them.
 */
import { breatherPages } from './held-photos.js';

/**
 * How a memory's held photos go onto pages: two to a page from three (see breatherPages), or each a page of its
 * own; that too when they follow a memory and are more than two (more pages would leave them far from it), unless
 * they come `through` a long memory's pages.
 */
export function heldPageSizes(count: number, pairs: boolean, through = false): number[] {
  return pairs || (count > 2 && !through) ? breatherPages(count) : Array.from({ length: Math.max(0, count) }, () => 1);
}

/** A letter's last lines that leave this share of the live area or more below them are followed by a short memory set large. */
export const TAIL_QUOTE_ROOM = 0.38;

/**
 * The room under a letter's last lines where a short memory is set as display type (see PdfLook.tailQuote): from
 * `gap` under the lines to the foot of the live area; null when they leave too little of the page for it (then the
 * page is full enough as it is), or the memory's ordinary setting (`natural`, points, with `gap` above and below
 * for its ornaments) would not fit there.
 */
export function tailQuoteRoom(live: { y: number; h: number }, tailBottom: number, natural: number, gap: number): { y: number; h: number } | null {
  const y = tailBottom + gap;
  const h = live.y + live.h - y;
  if (h < live.h * TAIL_QUOTE_ROOM || h < natural + 2 * gap) return null;
  return { y, h };
}

/** Which month of the book `date` falls in, counting the month of `first` as the first (a baby book's "month 3"). */
export function monthOfBook(first: string, date: string): number {
  const [a, b] = [new Date(first), new Date(date)];
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
}

/**
 * How far a memory's photo moves sideways to sit centred over the card pasted across its foot (PdfLook.cardOverlap):
 * the card is cut to the text column, which a book's text block sets nearer the fold; the photo stays in the live area.
 */
export function centreOverCard(pic: { x: number; w: number }, column: { x: number; w: number }, live: { x: number; w: number }): number {
  const want = column.x + column.w / 2 - (pic.x + pic.w / 2);
  return Math.min(live.x + live.w - (pic.x + pic.w), Math.max(live.x - pic.x, want));
}
