/**
 * memorial_service: a quiet order of service. The widest margins of all, a hairline page frame, a
 * justified 60-character column centred in it; one photo with a memory, the others given a page each;
 * every long letter opens with a pull quote; laurels between memories.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const memorialService: PdfLook = {
  // grid
  margins: { inner: 24, top: 28, outer: 34, bottom: 44 },
  longMeasure: 60,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.56,
  photoWidth: 'column',
  // type
  longSize: 11,
  longLeading: 1.5,
  quoteSize: 13,
  leading: 1.5,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'dashes',
  // pacing
  inlinePhotos: 1,
  breather: 'page',
  textRun: 5,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'classic',
  coverFrame: 'hairline',
  pageFrame: 'hairline',
  mount: 'border',
  ornament: ORNAMENTS.laurel,
};
