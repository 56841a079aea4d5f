/**
 * A gallery catalogue's pages (a theme whose `plates` is `recto`): each memory with a photo has a plate, its
 * first photo alone in a mat on a recto with a caption in spaced capitals (who sent it), facing the verso
 * its words open on. Its other photos go with its words (as many as the theme shows) and, past those, in
 * pairs on the pages after its plate, so all print within a page or two of it. Words-only memories are set
 * as the catalogue's text between.
 */
import type { Box } from '../geometry.js';
import type { PdfLook } from '../themes/design.js';

/** The mat round a plate, points (12 mm: a museum's generous white round a print). */
export const PLATE_MAT = (12 * 72) / 25.4;

/** A memory's pictures split into its plate (its first photo, in a catalogue theme) and the others. */
export function splitPlate<P extends { kind: 'photo' | 'video' }>(look: Pick<PdfLook, 'plates'>, pictures: readonly P[]): { plate: P | null; others: P[] } {
  const at = look.plates === 'recto' ? pictures.findIndex((p) => p.kind === 'photo') : -1;
  if (at < 0) return { plate: null, others: [...pictures] };
  return { plate: pictures[at], others: pictures.filter((_, i) => i !== at) };
}

/** How a plated memory's photos beyond its words' go onto pages after its plate: in pairs, an odd one alone last. */
export function afterPlatePages(count: number): number[] {
  if (count <= 0) return [];
  return [...Array.from({ length: Math.floor(count / 2) }, () => 2), ...(count % 2 ? [1] : [])];
}

/** Whether a page of held photos may be drawn as page n: a plate only on a recto (odd), any other anywhere. */
export function mayDrawOn(page: { recto?: boolean }, n: number): boolean {
  return !page.recto || n % 2 === 1;
}

/** The white between the trimmed page and a plate's mat, points (10 mm; on the fold's side the gutter as well). */
export const PLATE_MARGIN = (10 * 72) / 25.4;

/**
 * The room a plate takes on its page, its mat and caption included: the whole trimmed page but PLATE_MARGIN
 * round it (and the gutter on the fold's side), so the print is the page's subject, as large as its mat allows.
 */
export function plateRoom(trim: Box, gutter: number, recto: boolean): Box {
  const [left, right] = recto ? [PLATE_MARGIN + gutter, PLATE_MARGIN] : [PLATE_MARGIN, PLATE_MARGIN + gutter];
  return { x: trim.x + left, y: trim.y + PLATE_MARGIN, w: trim.w - left - right, h: trim.h - 2 * PLATE_MARGIN };
}
