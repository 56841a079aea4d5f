/**
 * botanical_luxe: a botanical print folio. Very wide margins with sprigs in the outer corners, text flush
 * left and ragged in a 56-character column nearer the fold than the fore-edge (the margins' proportion), photos bordered within that column (two with
 * a memory, never out into the wide outer margin), a breather a plate-sized print; the folio centred
 * between dashes.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const botanicalLuxe: PdfLook = {
  // grid
  margins: { inner: 26, top: 31, outer: 37, bottom: 45 },
  longMeasure: 56,
  longColumns: 1,
  column: 'book',
  justify: false,
  photoShare: 0.55,
  photoWidth: 'column',
  photoSpan: 1,
  photoAlign: 'centre',
  photoHang: false,
  // type
  longSize: 11.5,
  longLeading: 1.55,
  quoteSize: 14,
  leading: 1.6,
  align: 'left',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  folioAt: 'foot-centre',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  breatherSpan: 0.8,
  onePerPage: false,
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  quoteEvery: 2,
  photoSpread: false,
  perPage: 0,
  tailQuote: false,
  // look
  cornerOrnament: true,
  cards: false,
  cover: 'classic',
  coverFrame: 'corners',
  pageFrame: 'none',
  quoteFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.sprig,
};
