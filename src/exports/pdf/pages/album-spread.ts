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
