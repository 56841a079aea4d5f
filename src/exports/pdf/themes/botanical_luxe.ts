/**
 * botanical_luxe: a botanical print folio. Very wide margins with sprigs in the outer corners, text flush
 * left and ragged in a 56-character column nearer the fold than the fore-edge (the margins' proportion), photos bordered within that column (two with
 * a memory, never out into the wide outer margin), a breather a plate-sized print; the folio centred
 * between dashes.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const botanicalLuxe: PdfLook = {
  // grid
  margins: { inner: 26, top: 31, outer: 37, bottom: 45 },
  longMeasure: 52,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.6,
  photoWidth: 'live',
  photoSpan: 0.9,
  photoAlign: 'outer',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  longSize: 11.5,
  longLeading: 1.55,
  quoteSize: 14,
  leading: 1.6,
  align: 'left',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-centre',
  // pacing
  inlinePhotos: 1,
  breather: 'page',
  breatherSpan: 0.8,
  bleedEdges: false,
  onePerPage: false,
  textRun: 5,
  pullQuote: true,
  dropCap: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  fullBleed: true,
  plates: 'none',
  hangHeld: true,
  pictureOpens: false,
  breatherPairs: true,
  chapterPages: false,
  quotesApart: false,
  tailFill: false,
  // look
  cornerOrnament: false,
  cards: false,
  cardOverlap: false,
  handCaptions: false,
  cover: 'classic',
  coverFrame: 'corners',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.sprig,
  ornamentFlush: false,
  ornamentBetween: false,
  photoTilt: 0,
};
