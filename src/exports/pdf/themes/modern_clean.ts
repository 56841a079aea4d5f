/**
 * modern_clean: a Swiss grid. Small sans type, ragged-right in a 58-character column set against the
 * gutter, the outer side of the live area left open; photos across the whole live area, three with a
 * memory; names in spaced capitals; an accent bar beside short memories; a short running head.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const modernClean: PdfLook = {
  // grid
  margins: { inner: 14, top: 18, outer: 22, bottom: 30 },
  longMeasure: 58,
  longColumns: 1,
  column: 'inner',
  justify: false,
  photoShare: 0.72,
  photoWidth: 'live',
  // type
  longSize: 9.5,
  longLeading: 1.55,
  quoteSize: 11,
  leading: 1.6,
  align: 'left',
  captionSize: 8.5,
  captionCaps: true,
  quoteMark: 'bar',
  datedEntries: false,
  runningHead: true,
  folio: 'plain',
  // pacing
  inlinePhotos: 3,
  breather: 'page',
  textRun: 6,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'editorial',
  coverFrame: 'none',
  pageFrame: 'none',
  mount: 'plain',
  ornament: ORNAMENTS.bar,
};
