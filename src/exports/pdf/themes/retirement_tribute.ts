/**
 * retirement_tribute: a company tribute book, set as an annual report is. A wide justified 66-character
 * column against the gutter, the outer margin left open; photos bordered across the whole live area, two
 * side by side with a memory like a report's pictures; names in spaced sans capitals, stars between
 * memories, the folio at the foot's outer corner. Frames only where they belong: the double frame on the
 * cover and title page, never round a page of words.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const retirementTribute: PdfLook = {
  // grid
  margins: { inner: 21, top: 26, outer: 31, bottom: 39 },
  longMeasure: 66,
  longColumns: 1,
  column: 'inner',
  justify: true,
  photoShare: 0.55,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  // type
  longSize: 10.5,
  longLeading: 1.5,
  quoteSize: 12,
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
  onePerPage: false,
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'certificate',
  coverFrame: 'double',
  pageFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.star,
};
