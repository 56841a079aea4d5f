/**
 * heirloom_gallery: a gallery. Photos lead, nearly to the trim on a museum mat or bled off the page as
 * plates; one photo with a memory, the others plates of their own; the words below like wall labels, in
 * a ragged 52-character column centred over a deep foot margin.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const heirloomGallery: PdfLook = {
  // grid
  margins: { inner: 10, top: 13, outer: 16, bottom: 28 },
  longMeasure: 52,
  longColumns: 1,
  column: 'centre',
  justify: false,
  photoShare: 0.88,
  photoWidth: 'live',
  // type
  longSize: 10.5,
  longLeading: 1.5,
  quoteSize: 11.5,
  leading: 1.5,
  align: 'left',
  captionSize: 8.5,
  captionCaps: true,
  quoteMark: 'none',
  datedEntries: false,
  runningHead: false,
  folio: 'plain',
  // pacing
  inlinePhotos: 1,
  breather: 'plate',
  textRun: 4,
  pullQuote: false,
  fullBleed: true,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'gallery',
  coverFrame: 'double',
  pageFrame: 'none',
  mount: 'mat',
  ornament: ORNAMENTS.diamonds,
};
