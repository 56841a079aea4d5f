/**
 * heirloom_gallery: a gallery catalogue. Every photo a print on a museum mat: a memory's first its plate, alone
 * on a recto as large as its mat allows on the page (the page's subject), captioned in spaced capitals, facing
 * its words; the others with its words (80% of the live area's width, centred) or, past those, on
 * a page after it; the words under them like a wall label, in a narrow ragged 54-character column set as a
 * book's text block (nearer the fold: no channel down a spread) over a deep foot margin; a small folio at the
 * foot's outer corner. Nothing bled: a gallery hangs prints. The title page is the exhibition's title wall.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const heirloomGallery: PdfLook = {
  // grid
  margins: { inner: 14, top: 17, outer: 28, bottom: 34 },
  longMeasure: 54,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.62,
  photoWidth: 'live',
  photoSpan: 0.8,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 11.5,
  longLeading: 1.5,
  quoteSize: 11.5,
  leading: 1.5,
  align: 'left',
  displayQuotes: true,
  captionSize: 8.5,
  captionCaps: true,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'plain',
  folioAt: 'foot-outer',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  breatherSpan: 0.78,
  bleedEdges: false,
  onePerPage: false,
  textRun: 4,
  pullQuote: false,
  dropCap: false,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  plates: 'recto',
  hangHeld: true,
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
  cover: 'gallery',
  coverFrame: 'double',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'mat',
  ornament: ORNAMENTS.diamonds,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
