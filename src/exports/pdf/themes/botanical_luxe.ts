/**
 * botanical_luxe: a botanical print folio. Very wide margins with sprigs in the outer corners, text flush
 * left and ragged in a 56-character column against the gutter, bordered photos (two with a memory) across
 * the live area.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const botanicalLuxe: PdfLook = {
  // grid
  margins: { inner: 26, top: 31, outer: 37, bottom: 45 },
  longMeasure: 56,
  longColumns: 1,
  column: 'inner',
  justify: false,
  photoShare: 0.62,
  photoWidth: 'live',
  // type
  longSize: 11,
  longLeading: 1.55,
  quoteSize: 12,
  leading: 1.6,
  align: 'left',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: true,
  cards: false,
  cover: 'classic',
  coverFrame: 'corners',
  pageFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.sprig,
};
