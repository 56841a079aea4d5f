/**
 * editorial_noir: a magazine. Narrow margins (the outer still wider than the inner, so text never runs off the page), long pieces in two
 * ragged columns of about 50 characters across the whole live area, large display type flush left with a red bar, photos big and unmounted
 * across both columns (two with a memory, the others one to a page, bled off the page as plates,
 * or off the edges they reach when too small for the whole page at 200 ppi: a band across the head, a column at the fore-edge), every long piece
 * opening with a pull quote; a short running head, the folio at the foot's outer corner.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const editorialNoir: PdfLook = {
  // grid
  margins: { inner: 8, top: 11, outer: 14, bottom: 19 },
  longMeasure: 52,
  longColumns: 2,
  column: 'book',
  justify: false,
  photoShare: 0.8,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 10.5,
  longLeading: 1.5,
  quoteSize: 18,
  leading: 1.28,
  align: 'left',
  displayQuotes: true,
  captionSize: 9,
  captionCaps: true,
  quoteMark: 'bar',
  datedEntries: false,
  runningHead: true,
  folio: 'plain',
  folioAt: 'foot-outer',
  // pacing
  inlinePhotos: 2,
  breather: 'plate',
  breatherSpan: 1,
  bleedEdges: true,
  onePerPage: false,
  textRun: 5,
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
  cover: 'magazine',
  coverFrame: 'none',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'plain',
  ornament: ORNAMENTS.rule,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
