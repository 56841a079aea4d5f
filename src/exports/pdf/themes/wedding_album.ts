/**
 * wedding_album: an album of matted prints. Photos lead (two with a memory, the rest a page each, on a
 * museum mat), the words centred under them in a justified 60-character column; corner frames on the page.
 */
import type { PdfLook } from './design.js';
import { ORNAMENTS } from './ornaments.js';

export const weddingAlbum: PdfLook = {
  // grid
  margins: { inner: 17, top: 21, outer: 27, bottom: 35 },
  longMeasure: 60,
  longColumns: 1,
  column: 'centre',
  justify: true,
  photoShare: 0.7,
  photoWidth: 'live',
  // type
  longSize: 11.5,
  longLeading: 1.45,
  quoteSize: 13.5,
  leading: 1.45,
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
  textRun: 4,
  pullQuote: true,
  fullBleed: false,
  // look
  cornerOrnament: false,
  cards: false,
  cover: 'classic',
  coverFrame: 'corners',
  pageFrame: 'corners',
  mount: 'mat',
  ornament: ORNAMENTS.rings,
};
