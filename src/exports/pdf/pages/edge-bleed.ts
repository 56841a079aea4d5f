/**
 * A breather bled off the edges its pixels reach (a theme's `bleedEdges`: a magazine, a Swiss book). A photo
 * too small to fill the whole page at 200 ppi may still be wide enough to run across the page's width, or
 * tall enough to run down its height: it then bleeds off the head and both sides (a band across the top of
 * the page) or off the head, the foot and the fore-edge (a column at the outer side), never narrower than a
 * designer's bleed would be, and its caption sits on the paper left beside it.
 */
import { holdsSubject } from '../../../media-tools/cell-shape.js';
import type { Box } from '../geometry.js';

/** The most of the page's height a band takes (the paper under it keeps room for the caption), and of its width a column. */
export const EDGE_BLEED_MOST = 0.72;
/** The least: a sliver of a photo across the page is a stripe, not a bleed. */
export const EDGE_BLEED_LEAST = 0.3;

export interface EdgeBleed {
  /** Which edges it runs off: `head` a band across the page's top (head, and both sides), `fore-edge` a column on the outer side (head, foot, outer side). */
  side: 'head' | 'fore-edge';
  /** Its size on the page, points (including the bleed): its place depends on the page's side (see edgeBleedBox). */
  w: number;
  h: number;
}

/**
 * The edge bleed a photo of `size` pixels takes on a page `page` points square (trim and bleed), printing at
 * no less than `minPpi`; null when it has the pixels for neither, or the crop would cut its subject (`subject`,
 * fractions of the photo).
 */
export function edgeBleed(size: { w: number; h: number }, page: number, minPpi: number, subject: Box | null): EdgeBleed | null {
  const needed = (page / 72) * minPpi;
  const aspect = size.w / size.h;
  if (aspect >= 1 && size.w >= needed) {
    // Its own shape, unless taller than the band allows: then cropped to it, if that keeps its subject.
    const h = Math.min(page / aspect, page * EDGE_BLEED_MOST);
    if (h < page * EDGE_BLEED_LEAST || !holdsSubject(aspect, subject, page / h)) return null;
    return { side: 'head', w: page, h };
  }
  if (aspect < 1 && size.h >= needed) {
    const w = Math.min(page * aspect, page * EDGE_BLEED_MOST);
    if (w < page * EDGE_BLEED_LEAST || !holdsSubject(aspect, subject, w / page)) return null;
    return { side: 'fore-edge', w, h: page };
  }
  return null;
}

/** Where an edge bleed goes on a page `page` points square: a band at its top; a column against the fore-edge (right on a recto, left on a verso). */
export function edgeBleedBox(bleed: EdgeBleed, page: number, recto: boolean): Box {
  if (bleed.side === 'head') return { x: 0, y: 0, w: page, h: bleed.h };
  return { x: recto ? page - bleed.w : 0, y: 0, w: bleed.w, h: page };
}

/**
 * The paper beside an edge bleed where its caption goes (within the live area `live`): under a band, or
 * beside a column, at the foot on the fold's side.
 */
export function edgeBleedCaptionBox(box: Box, live: Box, recto: boolean, gap: number): Box {
  if (box.w >= live.x + live.w) return { x: live.x, y: box.y + box.h + gap, w: live.w, h: live.y + live.h - (box.y + box.h + gap) };
  const [x0, x1] = recto ? [live.x, box.x - gap] : [box.x + box.w + gap, live.x + live.w];
  return { x: x0, y: live.y, w: Math.max(0, x1 - x0), h: live.h };
}
