/**
 * elegant_classic: a classic keepsake, a hardback novel's page. A single justified column of 62 characters
 * centred on a generous page, margins in the classic progression, centred italic display type under a
 * quote mark, bordered photos, two at most with a memory (the rest come later, one to a page), a
 * double-framed cover. No running head.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const elegantClassic: PdfLook = {
  // grid
  margins: { inner: 18, top: 22, outer: 28, bottom: 36 },
  longMeasure: 62,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.6,
  photoWidth: 'live',
  // type
  longSize: 11,
  longLeading: 1.5,
  quoteSize: 12.5,
  leading: 1.55,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'glyph',
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
  cornerOrnament: false,
  cards: false,
  cover: 'classic',
  coverFrame: 'double',
  pageFrame: 'none',
  mount: 'border',
  ornament: ORNAMENTS.flourish,
};
