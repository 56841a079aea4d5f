/**
 * storybook: a picture book read aloud. A memory with a photo opens a page of its own, the picture first,
 * large, as a polaroid over the top two-thirds of the page, the words under it in large rounded type,
 * centred, in a short 52-character ragged column; the rest of its photos a whole page each, captioned, through
 * a long memory's pages; a few words alone under a letter's last lines set large; page numbers in a disc
 * centred at the foot.
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
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  longSize: 13.5,
  longLeading: 1.55,
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
  inlinePhotos: 1,
  breather: 'page',
  breatherSpan: 1,
  bleedEdges: false,
  onePerPage: false,
  textRun: 4,
  pullQuote: true,
  dropCap: false,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: true,
  plates: 'none',
  hangHeld: false,
  pictureOpens: true,
  breatherPairs: false,
  chapterPages: false,
  quotesApart: false,
  tailFill: false,
  // look
  cornerOrnament: false,
  cards: false,
  cardOverlap: false,
  handCaptions: true,
  cover: 'playful',
  coverFrame: 'rounded',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'polaroid',
  ornament: ORNAMENTS.dots,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
