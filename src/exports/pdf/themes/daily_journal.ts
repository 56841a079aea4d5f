/**
 * daily_journal: a diary. Dated entries, their days, names, captions and short notes written on the page in a
 * hand; a long entry's pages in a book face (Lora) at a reading size, as a hand at the measure reads small; ragged-right in a 58-character
 * column nearer the fold than the fore-edge (a wider outer side for the reader's own notes, never a block adrift), photos taped in
 * from that column out across the wide outer margin, a little askew one way then the other as a hand sticks them (two with an
 * entry; a short entry's one print taped beside its words, the words running down beside it; the rest a
 * taped print a page, off-centre the same way); the page number at the head's outer corner, as a diary
 * has it; ruled pages for notes at the end (on light paper).
 */
import type { FontFace } from '../../../media-tools/themes.js';
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

/** The face a long entry is read in: Lora, regular (see PdfLook.textFace). */
const JOURNAL_TEXT: FontFace = { family: 'Lora', weight: 400, style: 'normal', package: '@expo-google-fonts/lora', file: '400Regular/Lora_400Regular.ttf' };

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
  textFace: JOURNAL_TEXT,
  longSize: 11,
  longLeading: 1.5,
  quoteSize: 15,
  leading: 1.35,
  align: 'left',
  displayQuotes: true,
  captionSize: 14,
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
  textRun: 3,
  pullQuote: false,
  dropCap: false,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  plates: 'none',
  hangHeld: false,
  hungShare: 0.5,
  pictureOpens: false,
  illustrationRun: 3,
  breatherPairs: true,
  chapterPages: false,
  quotesApart: true,
  tailFill: true,
  // look
  paper: null,
  frontispiece: false,
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
