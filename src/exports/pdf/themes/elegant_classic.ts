/**
 * elegant_classic: a hardback novel's page. A single justified column of 62 characters centred on a
 * generous page, margins in the classic progression; photos set within the text column (never wider than
 * the words), two at most with a memory, the rest later one to a page; memories run on, several to a page,
 * parted by a flourish; the folio centred at the foot between dashes, no running head, no page frame
 * (the double frame is the cover's).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const elegantClassic: PdfLook = {
  // grid
  margins: { inner: 18, top: 22, outer: 28, bottom: 36 },
  longMeasure: 62,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.5,
  photoWidth: 'column',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  // type
  textFace: null,
  longSize: 11,
  longLeading: 1.5,
  quoteSize: 12.5,
  leading: 1.55,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-centre',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  breatherSpan: 0.86,
  onePerPage: false,
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  plates: 'none',
  hangHeld: false,
  pictureOpens: false,
  illustrationRun: 0,
  breatherPairs: true,
  chapterPages: false,
  quotesApart: false,
  tailFill: false,
  // look
  cornerOrnament: false,
  cards: false,
  cardOverlap: false,
  handCaptions: false,
  cover: 'classic',
  coverFrame: 'double',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.flourish,
  ornamentBetween: true,
  photoTilt: 0,
};
