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

/** Words of a memory an album caption quotes at most (characters, in writing without spaces). */
const CAPTION_WORDS = 6;
const CAPTION_CHARS = 16;

/**
 * A held photo's caption, as in a photo album: who sent it and the first few words of their memory
 * (“Rose · “We drove to the lake…””), never where it came from in the book.
 */
export function albumCaption(signature: string | null, text: string): string {
  const plain = normalizeText(text).replace(/\s+/g, ' ').trim();
  const words = plain.split(' ');
  let opening: string;
  if (words.length > 1) opening = words.length > CAPTION_WORDS ? `${words.slice(0, CAPTION_WORDS).join(' ').replace(/[\s,;:.!?]+$/u, '')}\u2026` : plain;
  else opening = Array.from(plain).length > CAPTION_CHARS ? `${Array.from(plain).slice(0, CAPTION_CHARS).join('')}\u2026` : plain;
  const quoted = opening ? `\u201C${opening}\u201D` : '';
  return [signature, quoted].filter(Boolean).join(' \u00b7 ');
}

/** A photo a memory held back, waiting for its page. */
export interface HeldPhoto {
  key: string;
  memoryId: string;
  caption: string;
  /** Its memory is Japanese: the caption's kanji take the Japanese face. */
  japanese: boolean;
}
