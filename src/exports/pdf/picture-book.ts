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

/** The most of a photo's height a card pasted over its foot covers (a note on a print, never over it). */
export const CARD_OVER_SHARE = 0.2;
/** How far a card pasted over a photo reaches up it when the photo allows, and the least that still reads as pasted on. */
const CARD_OVER = (8 * 72) / 25.4;
const CARD_OVER_LEAST = (3 * 72) / 25.4;

/**
 * Where a card pasted over a photo's foot starts (PdfLook.cardOverlap), points, given the photo as drawn (`y`, `h`)
 * and its subject (the heads' box, fractions of the printed picture, when known): a little up the photo, never more
 * than CARD_OVER_SHARE of it, never over its subject; when the subject reaches the foot, just under the photo instead.
 */
export function cardTopOver(photo: { y: number; h: number }, subject: { y: number; h: number } | null | undefined): number {
  const foot = photo.y + photo.h;
  const clear = subject ? foot - (photo.y + Math.min(1, subject.y + subject.h) * photo.h) - CARD_OVER_LEAST : Infinity;
  const over = Math.min(CARD_OVER, photo.h * CARD_OVER_SHARE, clear);
  return over >= CARD_OVER_LEAST ? foot - over : foot + CARD_OVER_LEAST;
}
