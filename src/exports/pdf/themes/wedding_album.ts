/**
 * wedding_album: an album. Photos lead, one to a page: a memory with one photo has it alone on a page facing
 * the page its words open on, bled off every edge when it has the pixels for the whole page, bled across the
 * page's width when it has them for that (a landscape), else as large as its pixels allow on a white mat; its
 * other photos a page each the same way (or two on one mat, one caption under them). The words centred
 * under a quote mark; a long letter in a justified 56-character column at 12 pt, open leading and deep margins
 * (an album sets few words a page); no frame on the pages (the cover's corner brackets are the album's only
 * ornament).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const weddingAlbum: PdfLook = {
  // grid
  margins: { inner: 17, top: 24, outer: 27, bottom: 36 },
  longMeasure: 56,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.72,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 12,
  longLeading: 1.6,
  quoteSize: 13.5,
  leading: 1.45,
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
  breather: 'plate',
  breatherSpan: 1,
  bleedEdges: false,
  onePerPage: false,
  textRun: 4,
  pullQuote: true,
  dropCap: false,
  fullBleed: true,
  quoteEvery: 2,
  photoSpread: true,
  perPage: 2,
  tailQuote: true,
  plates: 'none',
  hangHeld: false,
  hungShare: 0.5,
  pictureOpens: false,
  illustrationRun: 0,
  breatherPairs: true,
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
  coverFrame: 'corners',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'mat',
  ornament: ORNAMENTS.rings,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
