/**
 * A diary's entry with its print taped beside the words: a short memory with one photo, the photo at the
 * page's fore-edge side (as a hand sticks it in, out of the way of the writing), the words in their column
 * beside it. Plain geometry: the renderer draws what it says.
 */

/** The space between the photo's mount and the words beside it, points (6 mm). */
export const BESIDE_GAP = (6 * 72) / 25.4;

/** Words shorter than this (characters) stay under their photo: a word or two beside a print leaves it a caption, not an entry. */
export const BESIDE_MIN_CHARS = 20;

/** Words longer than this (characters) go under their photo: beside it they would run past a dozen lines and the photo. */
export const BESIDE_MAX_CHARS = 320;

/**
 * Whether a memory's photo goes beside its words: the theme asks for it (`share` > 0), the memory is short
 * (`chars` of words, at most `longChars` and BESIDE_MAX_CHARS) but more than a few words, and it has one photo or two
 * (the second then gets a page of its own) and no video; three or more go above it, as a scrapbook's.
 */
export function besideApplies(share: number, chars: number, longChars: number, pictures: { kind: 'photo' | 'video' }[]): boolean {
  return share > 0 && chars >= BESIDE_MIN_CHARS && chars <= Math.min(longChars, BESIDE_MAX_CHARS) && pictures.length >= 1 && pictures.length <= 2 && pictures.every((x) => x.kind === 'photo');
}

/**
 * Where the photo and the words go when the photo's box (its mount included) is `photoW` wide: the photo
 * against the live area's fore-edge side (the right of a recto, the left of a verso), in the wide outer margin
 * the diary's column leaves and as much of the column as it needs; the words in the column, up to the photo.
 */
export function besideLayout(live: { x: number; w: number }, column: { x: number; w: number }, photoW: number, recto: boolean): { photoX: number; text: { x: number; w: number } } {
  if (recto) {
    const photoX = live.x + live.w - photoW;
    return { photoX, text: { x: column.x, w: Math.min(column.w, photoX - BESIDE_GAP - column.x) } };
  }
  const photoX = live.x;
  const left = Math.max(column.x, photoX + photoW + BESIDE_GAP);
  return { photoX, text: { x: left, w: column.x + column.w - left } };
}
