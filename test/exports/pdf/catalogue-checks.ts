/**
 * Read-back checks of the picture-led pages of issue 37, from the renderer's trace (see test-book.ts):
 * - a gallery catalogue (`plates: 'recto'`): every memory with a photo shows its plate, alone on a recto
 *   with its caption (who sent it, in capitals) printed on that page, or, when its words open on a recto
 *   (where no plate can face them), its plate with its words on that page;
 * - a photo-led theme (PHOTO_LED): photos on half the pages of memories or more.
 */
import type { PageKind } from '../../../src/exports/pdf/pdf-book.js';
import type { PdfLook } from '../../../src/exports/pdf/themes/design.js';
import type { TestMemory } from './test-book.js';

/** The least share of a photo-led theme's pages of memories that carry a photo. */
export const PHOTO_PAGE_SHARE = 0.5;
/** Of a photo-led theme's photos, the least share on pages of their own (none shares a page with another). */
const PHOTOS_ON_PAGES_OF_THEIR_OWN = 0.9;

interface Traced {
  kinds: PageKind[];
  pictures: { page: number; id: string }[];
  breathers: { page: number; id: string }[];
  /** Each page's text layer. */
  pageTexts: string[];
}

/** Themes whose brief asks for photos on half their pages of memories. */
export const PHOTO_LED: readonly string[] = ['botanical_luxe'];

export function picturePageProblems(theme: string, look: PdfLook, memories: TestMemory[], t: Traced): string[] {
  const problems: string[] = [];
  const photoPages = new Set([...t.pictures.map((x) => x.page), ...t.breathers.map((b) => b.page)]);
  if (look.plates === 'recto') {
    for (const m of memories) {
      if (!m.pictures.some((p) => p.kind === 'photo')) continue;
      const plates = t.breathers.filter((b) => b.id === m.id && t.kinds[b.page - 1] === 'breather' && !t.breathers.some((o) => o.page === b.page && o !== b));
      const plate = plates[0];
      const inline = t.pictures.find((x) => x.id === m.id);
      if (!plate && !(inline && inline.page % 2 === 1)) {
        problems.push(`${m.id}: no plate and no print on the recto its words open on`);
        continue;
      }
      if (!plate) continue;
      if (plate.page % 2 !== 1) problems.push(`${m.id}: its plate on page ${plate.page}, a verso`);
      const caption = (m.signature ?? '').toUpperCase().replace(/\s+/g, '').normalize('NFC');
      // (pdftotext gives right-to-left words in visual order, between bidi controls.)
      const text = (t.pageTexts[plate.page - 1] ?? '').normalize('NFC').replace(/[\s\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu, '');
      if (caption && !text.includes(caption) && !text.includes([...caption].reverse().join(''))) problems.push(`${m.id}: its plate on page ${plate.page} without its caption ${m.signature?.toUpperCase()}`);
    }
  }
  if (PHOTO_LED.includes(theme)) {
    // Half the pages, or (in a book with fewer photos than that: the test book has 24 for 30 memories, many of
    // them long letters) as many pages as it has photos, less the few a memory of a few words shows in pairs.
    const memoryPages = t.kinds.flatMap((k, i) => (['memories', 'quote', 'breather', 'plate'].includes(k) ? [i + 1] : []));
    const pictured = memoryPages.filter((n) => photoPages.has(n)).length;
    const photos = memories.reduce((n, m) => n + m.pictures.filter((p) => p.kind === 'photo').length, 0);
    const wanted = Math.min(PHOTO_PAGE_SHARE * memoryPages.length, photos * PHOTOS_ON_PAGES_OF_THEIR_OWN);
    if (pictured < wanted) problems.push(`photos on ${pictured} of the ${memoryPages.length} pages of memories (${Math.round((100 * pictured) / memoryPages.length)}%), under ${Math.ceil(wanted)} (of ${photos} photos)`);
  }
  return problems;
}
