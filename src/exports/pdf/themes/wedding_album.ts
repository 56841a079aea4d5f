/**
 * wedding_album: an album. Photos lead: a memory with one sharp photo opens on it bled off every edge,
 * the others show one matted print across the live area with the words centred under it as its caption in
 * a justified 60-character column; held photos bled off the page as plates, their caption after; no frame on
 * the pages (the cover's corner brackets are the album's only ornament).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const weddingAlbum: PdfLook = {
  // grid
  margins: { inner: 17, top: 21, outer: 27, bottom: 35 },
  longMeasure: 60,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.72,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  longSize: 11.5,
  longLeading: 1.45,
  quoteSize: 13.5,
  leading: 1.45,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-centre',
  // pacing
  inlinePhotos: 1,
  breather: 'plate',
  breatherSpan: 1,
  bleedEdges: false,
  onePerPage: false,
  textRun: 4,
  pullQuote: true,
  dropCap: false,
  fullBleed: true,
  quoteEvery: 2,
  photoSpread: true,
  perPage: 2,
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
  coverFrame: 'corners',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'mat',
  ornament: ORNAMENTS.rings,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 0,
};
