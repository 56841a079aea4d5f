/**
 * elegant_classic: a hardback novel's page. A single justified column of 66 characters (wide enough to justify
 * without rivers) centred on a generous page, margins in the classic progression; a memory's one photo set
 * within the text column (never wider than the words), the others later as plates, one to a page, mounted
 * and captioned as a gift book's tipped-in plates; a long letter opens with a drop cap; memories run on,
 * several to a page, parted by a flourish; the folio centred at the foot between dashes, no running head, no
 * page frame (the double frame is the cover's).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const elegantClassic: PdfLook = {
  // grid
  margins: { inner: 18, top: 22, outer: 28, bottom: 36 },
  longMeasure: 66,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.5,
  photoWidth: 'column',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 11,
  longLeading: 1.5,
  quoteSize: 12.5,
  leading: 1.55,
  align: 'center',
  displayQuotes: true,
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-centre',
  // pacing
  inlinePhotos: 1,
  breather: 'page',
  breatherSpan: 1,
  bleedEdges: false,
  onePerPage: false,
  textRun: 5,
  pullQuote: true,
  dropCap: true,
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
  cover: 'classic',
  coverFrame: 'double',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.flourish,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
