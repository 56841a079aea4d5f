/**
 * storybook: a picture book read aloud. The picture first, large, as a polaroid nearly across the page
 * (two with a memory), the words under it in large rounded type, centred, in a short 52-character ragged
 * column; the rest of the photos a whole page each; page numbers in a disc centred at the foot.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const storybook: PdfLook = {
  // grid
  margins: { inner: 16, top: 20, outer: 24, bottom: 32 },
  longMeasure: 52,
  longColumns: 1,
  column: 'centre',
  justify: false,
  photoShare: 0.66,
  photoWidth: 'live',
  photoSpan: 0.9,
  photoAlign: 'centre',
  photoHang: false,
  // type
  longSize: 12.5,
  longLeading: 1.5,
  quoteSize: 13.5,
  leading: 1.45,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'disc',
  folioAt: 'foot-centre',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  breatherSpan: 1,
  onePerPage: false,
  textRun: 4,
  pullQuote: true,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'playful',
  coverFrame: 'rounded',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'polaroid',
  ornament: ORNAMENTS.dots,
};
