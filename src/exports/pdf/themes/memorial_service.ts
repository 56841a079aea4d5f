/**
 * memorial_service: an order of service, a tribute. It opens with a portrait frontispiece (the cover photo
 * upright, the name and, when the title gives them, the years under it). One memory a page (a short note set
 * quietly, at its own size, in the middle of its page), the widest margins of all, a ragged-right 60-character
 * column centred, in near-black 12.5 pt on ivory paper; the memory's one photo large and in place above its
 * words, across the live area (wider than the words), the others given a page each; every long letter opens
 * with a pull quote; laurels between memories; no frame on the page (the cover carries it).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const memorialService: PdfLook = {
  // grid
  margins: { inner: 24, top: 28, outer: 34, bottom: 44 },
  longMeasure: 60,
  longColumns: 1,
  column: 'centre',
  justify: false,
  photoShare: 0.7,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'centre',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 12.5,
  longLeading: 1.45,
  quoteSize: 14,
  leading: 1.5,
  align: 'center',
  displayQuotes: false,
  captionSize: 10.5,
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
  hungShare: 0.5,
  pictureOpens: false,
  illustrationRun: 0,
  breatherPairs: false,
  chapterPages: false,
  quotesApart: false,
  tailFill: false,
  // look
  paper: { palette: { background: '#FBF9F4', text: '#1D2027', muted: '#4D535F', accent: '#6F6386' }, pages: 'all' },
  frontispiece: true,
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
