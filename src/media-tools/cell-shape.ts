import type { Box } from './face-detect.js';

/**
 * The shape of the cell a photo is printed in. A layout proposes a cell; a
 * photo keeps it when cropping to it costs little. A portrait is never
 * forced into a landscape cell when that cuts more than a sliver of it
 * (the top of a head, mostly), and no photo goes into a cell whose crop
 * cannot hold its subject: it gets the candidate shape that cuts least.
 */

/** A crop that loses no more than this share of the photo is a sliver: the layout's cell stands. */
export const SLIVER = 0.1;

/** The share of a photo of `photoAspect` (width / height) that a crop to `cellAspect` cuts away. */
export function cutShare(photoAspect: number, cellAspect: number): number {
  return 1 - Math.min(photoAspect, cellAspect) / Math.max(photoAspect, cellAspect);
}

/** Whether the largest crop of `cellAspect` from a photo of `photoAspect` can hold the whole subject box (fractions of the photo). */
export function holdsSubject(photoAspect: number, subject: Box | null, cellAspect: number): boolean {
  if (!subject) return true;
  // A wider cell keeps the photo's whole width and part of its height; a narrower one the reverse.
  return cellAspect >= photoAspect ? subject.h <= photoAspect / cellAspect + 1e-9 : subject.w <= cellAspect / photoAspect + 1e-9;
}

/**
 * The cell shape (width / height) to print a photo in: the layout's own, `candidates[0]`, unless it is
 * landscape while the photo is portrait and the crop would cut more than SLIVER of it, or its crop cannot
 * hold the subject; then the candidate that holds the subject and cuts least (the least cutting of all when
 * none holds it).
 */
export function chooseCellShape(photoAspect: number, subject: Box | null, candidates: readonly number[]): number {
  if (!candidates.length) return photoAspect;
  const forced = (cell: number) => photoAspect < 1 && cell > 1 && cutShare(photoAspect, cell) > SLIVER;
  const fits = (cell: number) => !forced(cell) && holdsSubject(photoAspect, subject, cell);
  if (fits(candidates[0])) return candidates[0];
  const byCut = [...candidates].sort((a, b) => cutShare(photoAspect, a) - cutShare(photoAspect, b));
  return byCut.find(fits) ?? byCut.find((c) => !forced(c)) ?? byCut[0];
}

/** The shapes a photo may take instead of its layout's cell: square, 4:5 and 2:3 portrait, 3:2 landscape. */
export const OTHER_SHAPES: readonly number[] = [1, 0.8, 2 / 3, 1.5];

/**
 * A cell of the chosen shape inside the layout's slot: as large as fits, centred in it, so the layout's
 * edges and gutters still line up.
 */
export function cellOfShape<T extends { x: number; y: number; w: number; h: number }>(slot: T, aspect: number): T {
  if (Math.abs(slot.w / slot.h - aspect) < 1e-6) return slot;
  const w = Math.min(slot.w, slot.h * aspect);
  const h = w / aspect;
  return { ...slot, x: slot.x + (slot.w - w) / 2, y: slot.y + (slot.h - h) / 2, w, h };
}
