/**
 * modern_clean: a Swiss grid, asymmetric. Small sans type, ragged-right in a 62-character column set
 * nearer the fold than the fore-edge (the outer field under the hanging photo, never a block adrift); one large photo a memory, hanging from the top line towards the fore-edge over
 * the live area from where the type starts to the outer edge (photoHang: on the column's line), the rest later
 * one to a page on the same hanging line; every photo in one of the grid's two widths (the hanging box or the
 * measure), and a held photo wide or tall enough bled off the page's edges; names in spaced capitals, an accent bar beside short memories; no running head
 * (nothing to fight the flush-left grid), the folio at the foot's outer corner.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const modernClean: PdfLook = {
  // grid
  margins: { inner: 16, top: 18, outer: 30, bottom: 34 },
  longMeasure: 62,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.66,
  photoWidth: 'live',
  photoSpan: 0.72,
  photoAlign: 'outer',
  photoBeside: 0,
  photoHang: true,
  gridWidths: true,
  // type
  textFace: null,
  longSize: 10,
  longLeading: 1.55,
  quoteSize: 11,
  leading: 1.6,
  align: 'left',
  displayQuotes: true,
  captionSize: 8.5,
  captionCaps: true,
  quoteMark: 'bar',
  datedEntries: false,
  runningHead: false,
  folio: 'plain',
  folioAt: 'foot-outer',
  // pacing
  inlinePhotos: 1,
  breather: 'page',
  breatherSpan: 0.72,
  bleedEdges: true,
  onePerPage: false,
  textRun: 6,
  pullQuote: true,
  dropCap: false,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  plates: 'none',
  hangHeld: false,
  hungShare: 0.5,
  pictureOpens: false,
  illustrationRun: 0,
  breatherPairs: false,
  chapterPages: false,
  quotesApart: false,
  tailFill: false,
  // look
  paper: null,
  frontispiece: false,
  cornerOrnament: false,
  cards: false,
  cardOverlap: false,
  handCaptions: false,
  cover: 'editorial',
  coverFrame: 'none',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'plain',
  ornament: ORNAMENTS.bar,
  ornamentFlush: true,
  ornamentBetween: true,
  photoTilt: 0,
};
