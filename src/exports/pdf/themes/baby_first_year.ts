/**
 * baby_first_year: a baby's first year, pasted in. Tight margins, big friendly type flush left and ragged
 * in a 50-character column set as a book's text block (nearer the fold than the fore-edge), each memory on a rounded card cut to that column (a margin
 * the same all round its words). Photo-led: a memory with a photo opens a page with it, large, in a rounded frame across the page, its card
 * pasted over the photo's foot; its other photos a page each; the shortest run of words before a photo; page numbers in a disc at the foot's outer corner.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const babyFirstYear: PdfLook = {
  // grid
  margins: { inner: 14, top: 16, outer: 28, bottom: 30 },
  longMeasure: 50,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.75,
  photoWidth: 'live',
  photoSpan: 0.9,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 13,
  longLeading: 1.45,
  quoteSize: 17,
  leading: 1.35,
  align: 'left',
  displayQuotes: true,
  captionSize: 11,
  captionCaps: false,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'disc',
  folioAt: 'foot-outer',
  // pacing
  inlinePhotos: 1,
  breather: 'page',
  breatherSpan: 1,
  bleedEdges: false,
  onePerPage: false,
  textRun: 4,
  pullQuote: false,
  dropCap: false,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: true,
  plates: 'none',
  hangHeld: false,
  hungShare: 0.5,
  pictureOpens: true,
  illustrationRun: 3,
  breatherPairs: false,
  chapterPages: true,
  quotesApart: false,
  tailFill: false,
  // look
  paper: null,
  frontispiece: false,
  cornerOrnament: false,
  cards: true,
  cardOverlap: true,
  handCaptions: true,
  cover: 'nursery',
  coverFrame: 'rounded',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'rounded',
  ornament: ORNAMENTS.hearts,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
