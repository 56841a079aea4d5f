/**
 * retirement_tribute: a company tribute book. Its tributes on warm white paper in navy ink; the navy ground
 * kept for the cover, the certificates and the photo pages. One tribute a page: a short one alone on its page
 * set as a certificate, large and centred inside the double frame on navy (never two certificates back to
 * back: a short tribute after one shares its page with the next); a long one under its photo across the top
 * of the page, in two ragged-right columns of about 45 characters (a newsletter's tribute page, no frame round
 * its running words). Margins growing from the gutter to the fore-edge. A career's photos large: one with its
 * tribute across the live area, the others a page each; names in spaced sans capitals, stars between
 * tributes, the folio at the foot's outer corner.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const retirementTribute: PdfLook = {
  // grid
  margins: { inner: 12, top: 18, outer: 25, bottom: 28 },
  longMeasure: 48,
  longColumns: 2,
  column: 'centre',
  justify: false,
  photoShare: 0.72,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 10,
  longLeading: 1.5,
  quoteSize: 12.5,
  leading: 1.6,
  align: 'center',
  displayQuotes: true,
  captionSize: 8.5,
  captionCaps: true,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-outer',
  // pacing
  inlinePhotos: 1,
  breather: 'page',
  breatherSpan: 1,
  bleedEdges: false,
  onePerPage: true,
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
  quotesApart: true,
  tailFill: true,
  // look
  paper: { palette: { background: '#FBF8F1', text: '#1B2333', muted: '#4F5B73', accent: '#A98522' }, pages: 'text' },
  frontispiece: false,
  cornerOrnament: false,
  cards: false,
  cardOverlap: false,
  handCaptions: false,
  cover: 'certificate',
  coverFrame: 'double',
  pageFrame: 'none',
  quoteFrame: 'double',
  mount: 'border',
  ornament: ORNAMENTS.star,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
