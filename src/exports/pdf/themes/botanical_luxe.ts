/**
 * botanical_luxe: a botanical print folio. Its words on cream paper in deep green ink, its dark green ground
 * kept for the cover, quote pages, photo pages and the ending. A drawn family of fronds: a spray in the outer
 * head corner of each page of words, two fronds from a flower between memories and on quote pages. Very wide
 * margins, text flush left and ragged in a 52-character column nearer the fold than the fore-edge (the
 * margins' proportion); photos tipped in as plates (a lighter sheet, photo corners, a soft shadow), hung at
 * the top of a letter's pages; a breather a plate-sized print; the folio centred between dashes.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const botanicalLuxe: PdfLook = {
  // grid
  margins: { inner: 26, top: 31, outer: 37, bottom: 45 },
  longMeasure: 52,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.6,
  photoWidth: 'live',
  photoSpan: 1,
  photoAlign: 'outer',
  photoBeside: 0,
  photoHang: false,
  gridWidths: false,
  // type
  textFace: null,
  longSize: 11.5,
  longLeading: 1.55,
  quoteSize: 14,
  leading: 1.6,
  align: 'left',
  displayQuotes: true,
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
  breatherSpan: 0.8,
  bleedEdges: false,
  onePerPage: false,
  textRun: 5,
  pullQuote: true,
  dropCap: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  fullBleed: true,
  plates: 'none',
  hangHeld: true,
  hungShare: 0.64,
  pictureOpens: false,
  illustrationRun: 0,
  breatherPairs: false,
  chapterPages: false,
  quotesApart: false,
  tailFill: false,
  // look
  paper: { palette: { background: '#F6F1E4', text: '#1F2B24', muted: '#56675A', accent: '#4E7355' }, pages: 'text' },
  frontispiece: false,
  cornerOrnament: true,
  cards: false,
  cardOverlap: false,
  handCaptions: false,
  cover: 'classic',
  coverFrame: 'corners',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'tipped',
  ornament: ORNAMENTS.botanical,
  ornamentFlush: false,
  ornamentBetween: false,
  photoTilt: 0,
};
