/**
 * memorial_service: an order of service, a tribute. One memory a page (a short one set as an epigraph
 * in the middle of its page), the widest margins of all, a justified 60-character column centred; the
 * memory's one photo large and in place above its words, across the live area (wider than the words), the
 * others given a page each; every long letter opens with a pull quote; laurels between memories; no
 * frame on the page (the cover carries it).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const memorialService: PdfLook = {
  // grid
  margins: { inner: 24, top: 28, outer: 34, bottom: 44 },
  longMeasure: 60,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.62,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  longSize: 11,
  longLeading: 1.5,
  quoteSize: 13,
  leading: 1.5,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-centre',
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
  quoteEvery: 3,
  photoSpread: false,
  perPage: 0,
  tailQuote: true,
  plates: 'none',
  hangHeld: false,
  pictureOpens: false,
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
  coverFrame: 'hairline',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.laurel,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
