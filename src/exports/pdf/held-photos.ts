import { normalizeText } from './text-layout.js';

/**
 * Photos a memory holds back (beyond what its theme shows with its words) come right after it, as
 * breathers: one large photo a page, or two to a page when there are three or more, so they all print
 * within a page or two of their memory rather than pile up before the ending.
 */

/** How a memory's held photos go onto pages: one each for one or two, else an odd one alone first, then pairs. */
export function breatherPages(count: number): number[] {
  if (count <= 0) return [];
  if (count <= 2) return Array.from({ length: count }, () => 1);
  return [...(count % 2 ? [1] : []), ...Array.from({ length: Math.floor(count / 2) }, () => 2)];
}

/**
 * A held photo's caption, as in a photo album: who sent it, and the photo's own caption when it has one
 * ("Rose · The lake, 1998"). Never the memory's words cut short: a sentence ending in "…" under a photo
 * reads as a fault, and in spaced capitals it runs across the page.
 */
export function albumCaption(signature: string | null, photoCaption?: string | null): string {
  const own = photoCaption ? normalizeText(photoCaption).replace(/\s+/g, ' ').trim() : '';
  return [signature?.trim(), own].filter(Boolean).join(' \u00b7 ');
}

/** A photo a memory held back, waiting for its page. */
export interface HeldPhoto {
  key: string;
  memoryId: string;
  caption: string;
  /** Its memory is Japanese: the caption's kanji take the Japanese face. */
  japanese: boolean;
}
