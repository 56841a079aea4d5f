/**
 * An album's spread (a theme with `photoSpread`): a memory with one photo shows it alone on a page, facing the
 * page its words open on. The photo takes the left-hand page (a verso) with the words opening on the right, or,
 * when the words open on a left-hand page already begun, the right-hand page facing them.
 */

/** Where the page being set stands when a memory with one photo comes to be placed. */
export interface SpreadState {
  /** Nothing is on the page yet. */
  fresh: boolean;
  /** The page is a right-hand one (odd). */
  recto: boolean;
  /** What is on it would print as a page of memories mostly empty, were it turned now. */
  short: boolean;
  /** Turning it now would leave a quote page too soon after the last one (see quotePageAllowed). */
  quoteTooSoon: boolean;
  /** The memory's words open (its byline and first lines, a short one's all) in the room left on the page. */
  opensHere: boolean;
}

/**
 * How the spread is made:
 * - `here`: the photo on this page (a verso, nothing on it yet), the words opening on the recto facing it;
 * - `turn`: turn to the next verso first (this recto is well filled), then as `here`;
 * - `facing`: the words open on this verso, begun already; the photo has the recto facing it, at the turn;
 * - `inline`: no spread can be made without leaving a page mostly empty: the photo above the words, as in any theme.
 */
export type SpreadMove = 'here' | 'turn' | 'facing' | 'inline';

export function spreadMove(s: SpreadState): SpreadMove {
  if (s.fresh) return s.recto ? 'inline' : 'here';
  if (s.recto) return s.short || s.quoteTooSoon ? 'inline' : 'turn';
  return s.opensHere ? 'facing' : 'inline';
}

/**
 * Where a photo alone on its page goes: its mounted box centred across the live area and a little above the
 * middle of its height (the optical centre). Returns the picture's top-left corner.
 */
export function spreadPhotoAt(live: { x: number; y: number; w: number; h: number }, photo: { width: number; height: number }, pad: readonly [number, number, number, number]): { x: number; y: number } {
  const [top, right, bottom, left] = pad;
  const [w, h] = [photo.width + left + right, photo.height + top + bottom];
  return { x: live.x + (live.w - w) / 2 + left, y: live.y + Math.max(0, (live.h - h) * 0.45) + top };
}

/** An album page's mat: a board inset evenly from the trimmed page (13 mm all round), the print in its window. */
export const ALBUM_MAT_INSET_MM = 13;
export function albumMat(trim: { x: number; y: number; w: number; h: number }, inset: number): { x: number; y: number; w: number; h: number } {
  return { x: trim.x + inset, y: trim.y + inset, w: trim.w - 2 * inset, h: trim.h - 2 * inset };
}

/** The shapes a photo bled across an album page's width is cut to (a landscape band, never a sliver). */
const ACROSS_SHAPES = { least: 1.3, most: 1.6 } as const;

/**
 * An album's photo bled across its page (a landscape photo too small for the whole page but wide enough for its
 * width): the picture runs off the top and both sides into the bleed, cut to its own shape between 1.3:1 and
 * 1.6:1, its caption in the white under it. Returns its box (points, from the page's top left, `page` the full
 * page side, bleed included) when the photo of `size` pixels prints it at `ppi` or more, else null.
 */
export function bledAcross(size: { w: number; h: number }, page: number, ppi: number): { w: number; h: number } | null {
  const aspect = size.w / size.h;
  if (aspect < 1.2) return null;
  const shape = Math.min(ACROSS_SHAPES.most, Math.max(ACROSS_SHAPES.least, aspect));
  // (The pixels across the band: all of the width, or what the height leaves once cut to the shape.)
  const across = Math.min(size.w, size.h * shape);
  if ((across / page) * 72 < ppi) return null;
  return { w: page, h: page / shape };
}

/** The window an album page's photo (its mount and caption included) is centred in: its mat less an even margin inside the mat's rule. */
export function albumWindow(mat: { x: number; y: number; w: number; h: number }): { x: number; y: number; w: number; h: number } {
  const inside = ALBUM_WINDOW_MARGIN;
  return { x: mat.x + inside, y: mat.y + inside, w: mat.w - 2 * inside, h: mat.h - 2 * inside };
}

/** The white between an album mat's edge and the mount of the print on it, points (9 mm). */
export const ALBUM_WINDOW_MARGIN = (9 * 72) / 25.4;
