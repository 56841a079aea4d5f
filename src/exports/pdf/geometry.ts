/**
 * Page geometry of the printed book, in PDF points (1/72 in). The trim is
 * 210 × 210 mm; each page is the trim plus the bleed on every side. The
 * gutter widens the inner margin (the side of the binding), which is on the
 * left of a recto (odd page) and on the right of a verso (even page).
 */

export const PT_PER_MM = 72 / 25.4;
export const mm = (v: number) => v * PT_PER_MM;

export const TRIM_MM = 210;

/** Margins inside the trim, before the gutter, millimetres: each theme sets its own grid. */
export interface MarginsMm {
  top: number;
  bottom: number;
  inner: number;
  outer: number;
}
export const DEFAULT_MARGINS_MM: MarginsMm = { top: 22, bottom: 26, inner: 18, outer: 18 };

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface BookGeometry {
  bleed: number;
  gutter: number;
  trim: number;
  /** Page (media box) side: trim + 2 × bleed. */
  page: number;
  /** The trim box in PDF user space, [x0, y0, x1, y1]. */
  trimBox: [number, number, number, number];
  bleedBox: [number, number, number, number];
  /** The area text and pictures flow in on page `n` (1-based), in top-left coordinates. */
  content(n: number): Box;
  /** The trimmed page of page `n` (what a reader sees). */
  trimmed(): Box;
  isRecto(n: number): boolean;
}

export function bookGeometry(bleedMm: number, gutterMm: number, margins: MarginsMm = DEFAULT_MARGINS_MM): BookGeometry {
  const bleed = mm(bleedMm);
  const gutter = mm(gutterMm);
  const trim = mm(TRIM_MM);
  const page = trim + 2 * bleed;
  const top = mm(margins.top);
  const bottom = mm(margins.bottom);
  const inner = mm(margins.inner) + gutter;
  const outer = mm(margins.outer);
  const isRecto = (n: number) => n % 2 === 1;
  return {
    bleed,
    gutter,
    trim,
    page,
    // Symmetric about the page centre, so the same numbers hold in PDF's bottom-up space.
    trimBox: [bleed, bleed, bleed + trim, bleed + trim],
    bleedBox: [0, 0, page, page],
    isRecto,
    trimmed: () => ({ x: bleed, y: bleed, w: trim, h: trim }),
    content(n) {
      const left = isRecto(n) ? inner : outer;
      return { x: bleed + left, y: bleed + top, w: trim - inner - outer, h: trim - top - bottom };
    },
  };
}
