/**
 * A cover design: what a theme's `cover` names (classic, editorial, magazine, playful, journal, certificate,
 * gallery, nursery), one file each, drawing the front with the book's photo, the front without one (the
 * theme's title page), the back's texture under the back line, and the spine.
 */
import type { Theme } from '../../../media-tools/themes.js';
import type { Box } from '../geometry.js';
import type { PdfLook } from '../pdf-themes.js';
import type { PreparedPicture } from '../pictures.js';
import type { CoverKit, Panel } from './kit.js';

export interface CoverDesign {
  /** Where the front puts its photo (the crop box the picture is prepared for). */
  photoBox(theme: Theme, panel: Panel): Box;
  /** The front with its photo, prepared for photoBox. The panel's background is already laid. */
  front(kit: CoverKit, panel: Panel, photo: PreparedPicture, look: PdfLook): void;
  /** The front without a photo: the theme's title page, set in type. The panel's background is already laid. */
  titlePage(kit: CoverKit, panel: Panel, look: PdfLook): void;
  /** The back's texture, the front's quietened, under the back line (the quote, the ornament, the dates). */
  backTexture(kit: CoverKit, panel: Panel, look: PdfLook): void;
  /** The spine, `box` its full height; true when it carries the title. */
  spine(kit: CoverKit, box: Box, trimH: number, spineMm: number): boolean;
}
