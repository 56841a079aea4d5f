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
 * The width a Swiss grid gives a photo that may be at most `most` wide: the widest of its few fixed widths
 * that fits (the photo box, across the type and the outer field; the type's own measure; three quarters or half of it), so
 * photos stacked or on facing pages share the grid's lines rather than each its own odd width. A photo
 * narrower than half the measure keeps its own (it has no pixels for more).
 */
export function gridWidth(most: number, box: Box, column: Box, indent: number): number {
  const measure = column.w - indent;
  return [box.w, measure, (measure * 3) / 4, measure / 2].find((w) => w <= most + 0.5) ?? most;
}
