/**
 * retirement_tribute: a company tribute book. One tribute a page: a short one alone on its page set as a
 * certificate, large and centred inside the double frame (never two certificates back to back: a short
 * tribute after one shares its page with the next); a long one under its photo across the top of the page,
 * in two ragged-right columns of about 45 characters (a newsletter's tribute page, no frame round its
 * running words). Photos bordered, large, across the live area, two side by side with a tribute; names in
 * spaced sans capitals, stars between tributes, the folio at the foot's outer corner.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const retirementTribute: PdfLook = {
  // grid
  margins: { inner: 11, top: 16, outer: 18, bottom: 30 },
  longMeasure: 48,
  longColumns: 2,
  column: 'centre',
  justify: false,
  photoShare: 0.62,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  longSize: 10.5,
  longLeading: 1.5,
  quoteSize: 12.5,
  leading: 1.6,
  align: 'center',
  captionSize: 8.5,
  captionCaps: true,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-outer',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  breatherSpan: 0.86,
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
  pictureOpens: false,
  breatherPairs: true,
  chapterPages: false,
  quotesApart: true,
  tailFill: true,
  // look
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
