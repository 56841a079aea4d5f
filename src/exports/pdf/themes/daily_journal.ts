/**
 * daily_journal: a diary. Dated entries written on the page in a hand, ragged-right in a 58-character
 * column against the gutter (the outer side left for the reader's own notes), taped-in photos, two
 * with an entry; ruled pages for notes at the end (on light paper).
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const dailyJournal: PdfLook = {
  // grid
  margins: { inner: 14, top: 19, outer: 21, bottom: 27 },
  longMeasure: 58,
  longColumns: 1,
  column: 'inner',
  justify: false,
  photoShare: 0.72,
  photoWidth: 'live',
  // type
  longSize: 13,
  longLeading: 1.4,
  quoteSize: 15,
  leading: 1.35,
  align: 'left',
  captionSize: 11,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: true,
  runningHead: false,
  folio: 'plain',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  textRun: 5,
  pullQuote: false,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'journal',
  coverFrame: 'none',
  pageFrame: 'none',
  mount: 'tape',
  ornament: ORNAMENTS.squiggle,
};
