/**
 * A theme's page grid made concrete on a page: the live area inside its margins, the text column (or two)
 * its measure sets and where the theme places it, and the cells its photos take, a breather's too. The
 * renderer sets every page from it, and its trace reports it (the read-back test compares themes by it).
 */
import type { BookGeometry, Box } from './geometry.js';
import { photoLayout, type Cell } from './photo-layout.js';
import { BAR_INDENT, hangingBox } from './swiss-grid.js';
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
  /** Where a memory's photos go: the live area or the text column, or a share of it (a mat, a hanging picture). */
  photos: Box;
  /**
   * The cells of one landscape photo, one portrait, and a memory's two (side by side; one when the theme shows
   * one photo with a memory, the other held for later), in the photo box (offsets from its top left).
   */
  cells: { landscape: Cell[]; portrait: Cell[]; pair: Cell[] };
  /** A breather: one photo alone on its page (its caption under it), or a plate bled off the page. */
  breather: Box;
  /** A memory's card (a baby book's pasted-in note): the text column and a margin round it; null without cards. */
  card: Box | null;
  /** The frame drawn round a page of memories; null in a theme that frames only its cover. */
  frame: Box | null;
  /** Where a frame goes on this page (round a page of memories, or round one short memory's page). */
  frameBox: Box;
  /** The page number's centre and baseline. */
  folio: { x: number; y: number };
  /** The running head's centre, baseline and widest line; null in a theme without one. */
  head: { x: number; y: number; w: number } | null;
}

/** Page types and their cells, as the trace reports a grid (a folio or running head as a box 10 mm wide round its point). */
export type GridCells = Record<'live' | 'text' | 'photo-landscape' | 'photo-portrait' | 'photo-pair' | 'breather' | 'card' | 'frame' | 'folio' | 'head', Box[]>;

/** A card's margin round its words, points (5 mm). */
export const CARD_PAD = (5 * 72) / 25.4;

const mm = (v: number) => (v * 72) / 25.4;

/**
 * The grid on page n. `charWidth`: the average width of a character of the theme's text face at its long
 * size, points (the measure is so many of them).
 */
export function pageGrid(look: PdfLook, g: BookGeometry, n: number, charWidth: number): PageGrid {
  const live = g.content(n);
  const t = g.trimmed();
  const cols = look.longColumns;
  const gaps = (cols - 1) * COLUMN_GAP;
  const each = Math.min((live.w - gaps) / cols, look.longMeasure * charWidth);
  const w = each * cols + gaps;
  // 'inner' sits against the gutter: the left of a recto, the right of a verso.
  const outerOnRight = g.isRecto(n);
  const spare = live.w - w;
  // The share of the room the column leaves that goes to the gutter's side: 'book' splits it as the theme's
  // margins are (inner to outer), so the column's own margins grow from the fold to the fore-edge.
  const towardsFold = { inner: 0, centre: 0.5, outer: 1, book: look.margins.inner / (look.margins.inner + look.margins.outer) }[look.column];
  const x = live.x + spare * (outerOnRight ? towardsFold : 1 - towardsFold);
  const column = { x, y: live.y, w, h: live.h };
  const text = Array.from({ length: cols }, (_, i) => ({ x: x + i * (each + COLUMN_GAP), y: live.y, w: each, h: live.h }));
  // A box `share` as wide as `within`, centred in it or flush with its outer edge.
  const placed = (within: Box, share: number, h: number): Box => {
    const bw = within.w * share;
    const bx = look.photoAlign === 'centre' ? within.x + (within.w - bw) / 2 : outerOnRight ? within.x + within.w - bw : within.x;
    return { x: bx, y: within.y, w: bw, h };
  };
  const hangIndent = look.quoteMark === 'bar' ? BAR_INDENT : 0;
  const photos = look.photoHang ? hangingBox(live, column, outerOnRight, live.h, hangIndent) : placed(look.photoWidth === 'column' ? column : live, look.photoSpan, live.h);
  const layout = (aspects: number[]) => photoLayout(aspects, photos.w, live.h * look.photoShare, PHOTO_GAP).cells;
  const breather = look.breather === 'plate' ? { x: 0, y: 0, w: g.page, h: g.page } : look.photoHang ? hangingBox(live, column, outerOnRight, live.h * 0.86, hangIndent) : placed(live, look.breatherSpan, live.h * 0.86);
  const card = look.cards ? { x: column.x - CARD_PAD, y: live.y - CARD_PAD, w: column.w + 2 * CARD_PAD, h: live.h + 2 * CARD_PAD } : null;
  // The frame is centred on the live area (which the gutter moves), not on the trimmed page.
  const frameBox = { x: live.x - mm(11), y: t.y + mm(7), w: live.w + mm(22), h: t.h - mm(14) };
  const frame = look.pageFrame === 'none' ? null : frameBox;
  const outerEdge = outerOnRight ? live.x + live.w - mm(4) : live.x + mm(4);
  const folio =
    look.folioAt === 'foot-centre'
      ? { x: live.x + live.w / 2, y: t.y + t.h - mm(13) }
      : look.folioAt === 'foot-outer'
        ? { x: outerEdge, y: t.y + t.h - mm(13) }
        : { x: outerEdge, y: live.y - mm(7.5) };
  // A running head over the text column (not over the photos' side of a Swiss grid), clear of a folio at the head.
  const head = look.runningHead ? { x: column.x + column.w / 2, y: live.y - mm(7.5), w: column.w } : null;
  return {
    live,
    text,
    column,
    photos,
    cells: { landscape: layout([1.5]), portrait: layout([0.75]), pair: layout(look.inlinePhotos >= 2 ? [1.5, 1.5] : [1.5]) },
    breather,
    card,
    frame,
    frameBox,
    folio,
    head,
  };
}

/** A grid as the trace reports it: each page type's cells on the page, points. */
export function gridCells(grid: PageGrid): GridCells {
  const at = (cells: Cell[]) => cells.map((c) => ({ x: grid.photos.x + c.x, y: grid.live.y + c.y, w: c.w, h: c.h }));
  const mark = (p: { x: number; y: number }) => ({ x: p.x - mm(5), y: p.y - mm(3), w: mm(10), h: mm(4) });
  return {
    live: [grid.live],
    text: grid.text,
    'photo-landscape': at(grid.cells.landscape),
    'photo-portrait': at(grid.cells.portrait),
    'photo-pair': at(grid.cells.pair),
    breather: [grid.breather],
    card: grid.card ? [grid.card] : [],
    frame: grid.frame ? [grid.frame] : [],
    folio: [mark(grid.folio)],
    head: grid.head ? [mark(grid.head)] : [],
  };
}
