/**
 * daily_journal: a diary. Dated entries written on the page in a hand, ragged-right in a 58-character
 * column nearer the fold than the fore-edge (a wider outer side for the reader's own notes, never a block adrift), photos taped in
 * from that column out across the wide outer margin, a little askew one way then the other as a hand sticks them (two with an
 * entry; a short entry's one print taped beside its words, the words running down beside it; the rest a
 * taped print a page, off-centre the same way); the page number at the head's outer corner, as a diary
 * has it; ruled pages for notes at the end (on light paper).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const dailyJournal: PdfLook = {
  // grid
  margins: { inner: 16, top: 19, outer: 26, bottom: 30 },
  longMeasure: 58,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.55,
  photoWidth: 'live',
  photoSpan: 0.86,
  photoAlign: 'outer',
  photoBeside: 0.4,
  photoHang: false,
  gridWidths: false,
  // type
  longSize: 12,
  longLeading: 1.42,
  quoteSize: 15,
  leading: 1.35,
  align: 'left',
  captionSize: 11,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: true,
  runningHead: false,
  folio: 'plain',
  folioAt: 'head-outer',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  breatherSpan: 0.8,
  bleedEdges: false,
  onePerPage: false,
  textRun: 5,
  pullQuote: false,
  dropCap: false,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  plates: 'none',
  hangHeld: false,
  pictureOpens: false,
  breatherPairs: true,
  chapterPages: false,
  quotesApart: true,
  tailFill: true,
  // look
  cornerOrnament: false,
  cards: false,
  cardOverlap: false,
  handCaptions: false,
  cover: 'journal',
  coverFrame: 'none',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'tape',
  ornament: ORNAMENTS.squiggle,
  ornamentFlush: false,
  ornamentBetween: true,
  photoTilt: 1.6,
};
