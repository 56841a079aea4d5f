/**
 * storybook: a picture book read aloud. Large rounded type, centred, in a short 52-character ragged column;
 * photos as polaroids, two with a memory, the rest a page each; page numbers in a disc.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const storybook: PdfLook = {
  // grid
  margins: { inner: 16, top: 20, outer: 24, bottom: 32 },
  longMeasure: 52,
  longColumns: 1,
  column: 'centre',
  justify: false,
  photoShare: 0.62,
  photoWidth: 'live',
  // type
  longSize: 12.5,
  longLeading: 1.5,
  quoteSize: 13.5,
  leading: 1.45,
  align: 'center',
  captionSize: 9.5,
  captionCaps: false,
  quoteMark: 'glyph',
  datedEntries: false,
  runningHead: false,
  folio: 'disc',
  // pacing
  inlinePhotos: 2,
  breather: 'page',
  textRun: 4,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'playful',
  coverFrame: 'rounded',
  pageFrame: 'none',
  mount: 'polaroid',
  ornament: ORNAMENTS.dots,
};
