/**
 * A Swiss grid's hanging photos (modern_clean's `photoHang`): a memory's photos and a breather hang on the
 * text column's line, not adrift in the live area. Their box runs from the text column's inner edge (the
 * fold's side) to the live area's outer edge, so its edges are the grid's own lines; a block narrower than
 * the box starts on the text column's left edge (flush with the flush-left type above and below it), and its
 * caption is set flush left under it, in the grid.
 */
import type { Box } from './geometry.js';

/** How far a theme with an accent bar beside its words sets them in from the column's edge, points (the bar hangs in it). */
export const BAR_INDENT = 16;

/**
 * The box photos hang in: from the text column's edge nearer the fold (on a recto, where its type starts:
 * `indent` in from the column, past an accent bar) to the live area's outer edge.
 */
export function hangingBox(live: Box, column: Box, outerOnRight: boolean, h: number, indent: number): Box {
  const x = column.x + indent;
  return outerOnRight ? { x, y: live.y, w: live.x + live.w - x, h } : { x: live.x, y: live.y, w: column.x + column.w - live.x, h };
}

/**
 * Where a block `w` wide starts in a hanging box: where the text column's type starts (`indent` in from its
 * left edge) when it fits there, else flush with the box's right edge (a verso's column edge), never outside the box.
 */
export function hangingX(box: Box, column: Box, w: number, indent: number): number {
  return Math.max(box.x, Math.min(column.x + indent, box.x + box.w - w));
}

/**
 * The box a Swiss grid gives a photo whose own box is `box` (its cell, as large as its pixels allow): one of
 * the grid's two fixed widths, the type's measure or the whole hanging box, never a small box of its own. It
 * widens to the nearer of them at the same height (the photo cropped to the wider shape) when its pixels
 * print that wide at `minPpi` and the crop keeps its subject (`holds`); else it narrows to the measure at its
 * own shape; a photo too small even for that keeps its box.
 */
export function gridBox(box: { w: number; h: number }, hanging: Box, column: Box, indent: number, pixelsWide: number, minPpi: number, holds: (aspect: number) => boolean): { w: number; h: number } {
  const widths = [column.w - indent, hanging.w];
  const up = widths.find((w) => w >= box.w - 0.5);
  if (up !== undefined && (pixelsWide / up) * 72 >= minPpi && holds(up / box.h)) return { w: up, h: box.h };
  const down = [...widths].reverse().find((w) => w <= box.w + 0.5);
  return down === undefined ? box : { w: down, h: (box.h * down) / box.w };
}
