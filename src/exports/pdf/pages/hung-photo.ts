/**
 * A photo hung at the top of a page of a long letter's words (a theme whose `hangHeld` is set): its held
 * photos come through its pages this way, each on a page its words go on beneath, rather than on pages of
 * their own. The photo hangs from the live area's top line in the theme's photo box (on the outer side of
 * an asymmetric grid), no taller than a share of the live area, so the words keep most of the page.
 */
import type { Box } from '../geometry.js';

/** The most of the live area's height a hung photo takes. */
export const HUNG_SHARE = 0.5;

/**
 * Where a photo of w × h points (its prepared size) hangs on a page: scaled to the photo box's width and at
 * most `share` (HUNG_SHARE unless the theme says) of the live area's height (never enlarged), flush with the box's outer edge (the fore-edge's
 * side: the right of a recto, the left of a verso) or centred in it, its top on the live area's.
 */
export function hungBox(photo: { w: number; h: number }, photos: Box, live: Box, recto: boolean, pad: { top: number; right: number; left: number }, centre = false, share = HUNG_SHARE): Box {
  const k = Math.min(1, (photos.w - pad.left - pad.right) / photo.w, (live.h * share) / photo.h);
  const [w, h] = [photo.w * k, photo.h * k];
  const x = centre ? photos.x + (photos.w - w) / 2 : recto ? photos.x + photos.w - pad.right - w : photos.x + pad.left;
  return { x, y: live.y + pad.top, w, h };
}
