/**
 * A theme's page grid made concrete on a page: the live area inside its margins, the text column (or two)
 * its measure sets and where the theme places it, and the cells its photos take, a breather's too. The
 * renderer sets every page from it, and its trace reports it (the read-back test compares themes by it).
 */
import type { BookGeometry, Box } from './geometry.js';
import { photoLayout, type Cell } from './photo-layout.js';
import type { PdfLook } from './themes/design.js';

/** The space between a magazine's two columns, points (6 mm). */
export const COLUMN_GAP = (6 * 72) / 25.4;
/** The space between photos in a memory's block, points. */
export const PHOTO_GAP = 16;

export interface PageGrid {
  /** The live area: inside the margins (and the gutter). */
  live: Box;
  /** The text columns of a long memory (one or two), across the live area's height. */
  text: Box[];
  /** The box the text columns span together: short memories, bylines and codes are set in it. */
  column: Box;
  /** Where a memory's photos go: the live area, or the text column. */
  photos: Box;
  /** The cells of one landscape photo, one portrait, and two side by side, in the photo box (offsets from its top left). */
  cells: { landscape: Cell[]; portrait: Cell[]; pair: Cell[] };
  /** A breather: one photo alone on its page (its caption under it), or a plate bled off the page. */
  breather: Box;
}

/** Page types and their cells, as the trace reports a grid. */
export type GridCells = Record<'live' | 'text' | 'photo-landscape' | 'photo-portrait' | 'photo-pair' | 'breather', Box[]>;

/**
 * The grid on page n. `charWidth`: the average width of a character of the theme's text face at its long
 * size, points (the measure is so many of them).
 */
export function pageGrid(look: PdfLook, g: BookGeometry, n: number, charWidth: number): PageGrid {
  const live = g.content(n);
  const cols = look.longColumns;
  const gaps = (cols - 1) * COLUMN_GAP;
  const each = Math.min((live.w - gaps) / cols, look.longMeasure * charWidth);
  const w = each * cols + gaps;
  // 'inner' sits against the gutter: the left of a recto, the right of a verso.
  const towardsLeft = look.column === 'centre' ? null : (look.column === 'inner') === g.isRecto(n);
  const x = towardsLeft === null ? live.x + (live.w - w) / 2 : towardsLeft ? live.x : live.x + live.w - w;
  const column = { x, y: live.y, w, h: live.h };
  const text = Array.from({ length: cols }, (_, i) => ({ x: x + i * (each + COLUMN_GAP), y: live.y, w: each, h: live.h }));
  const photos = look.photoWidth === 'column' ? column : live;
  const layout = (aspects: number[]) => photoLayout(aspects, photos.w, live.h * look.photoShare, PHOTO_GAP).cells;
  const breather = look.breather === 'plate' ? { x: 0, y: 0, w: g.page, h: g.page } : { x: live.x, y: live.y, w: live.w, h: live.h * 0.86 };
  return { live, text, column, photos, cells: { landscape: layout([1.5]), portrait: layout([0.75]), pair: layout([1.5, 1.5]) }, breather };
}

/** A grid as the trace reports it: each page type's cells on the page, points. */
export function gridCells(grid: PageGrid): GridCells {
  const at = (cells: Cell[]) => cells.map((c) => ({ x: grid.photos.x + c.x, y: grid.live.y + c.y, w: c.w, h: c.h }));
  return {
    live: [grid.live],
    text: grid.text,
    'photo-landscape': at(grid.cells.landscape),
    'photo-portrait': at(grid.cells.portrait),
    'photo-pair': at(grid.cells.pair),
    breather: [grid.breather],
  };
}
