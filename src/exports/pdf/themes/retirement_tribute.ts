/**
 * retirement_tribute: a tribute, certificate-like. Double-framed pages, a justified 70-character column
 * centred in them, names in spaced sans capitals, stars between memories, two photos with a memory.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const retirementTribute: PdfLook = {
  // grid
  margins: { inner: 21, top: 26, outer: 31, bottom: 39 },
  longMeasure: 70,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.58,
  photoWidth: 'column',
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
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'certificate',
  coverFrame: 'double',
  pageFrame: 'double',
  mount: 'border',
  ornament: ORNAMENTS.star,
};
