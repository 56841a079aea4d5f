/**
 * retirement_tribute: a company tribute book. One tribute a page: a short one set as a certificate, large
 * and centred inside the double frame; a long one in a ragged-right 62-character column centred on the
 * page (a justified sans would gape), with no frame round its running words. Photos bordered, large, across the live area, two side by
 * side with a tribute; names in spaced sans capitals, stars between tributes, the folio at the foot's
 * outer corner.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const retirementTribute: PdfLook = {
  // grid
  margins: { inner: 21, top: 26, outer: 31, bottom: 39 },
  longMeasure: 62,
  longColumns: 1,
  column: 'centre',
  justify: false,
  photoShare: 0.62,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoHang: false,
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
  onePerPage: true,
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'certificate',
  coverFrame: 'double',
  pageFrame: 'none',
  quoteFrame: 'double',
  mount: 'border',
  ornament: ORNAMENTS.star,
};
