/**
 * What a long book's contents list: its chapters (the months it spans, when its memories do), every
 * contributor once with the page their first memory opens on (the index at the end carries all their
 * pages), and the index itself.
 */

export interface ContentsEntry {
  label: string;
  page: number;
  /** Written in Japanese: its kanji take the Japanese face. */
  japanese: boolean;
  /** A chapter (or the index): set flush, in the accent colour; contributors are indented under it. */
  chapter?: boolean;
}

/**
 * The entries in page order: each chapter before the contributors whose first memory is in it, the
 * contributors by their first page (in book order on the same page), the index last.
 */
export function contentsEntries(chapters: readonly ContentsEntry[], contributors: ReadonlyMap<string, readonly number[]>, japaneseNames: ReadonlySet<string>, index: ContentsEntry | null): ContentsEntry[] {
  const people: ContentsEntry[] = [...contributors].map(([name, pages]) => ({ label: name, page: pages[0], japanese: japaneseNames.has(name) }));
  // (A stable sort: chapters first on a page, then people in the order they came.)
  const entries = [...chapters, ...people].sort((a, b) => a.page - b.page || Number(!!b.chapter) - Number(!!a.chapter));
  return index ? [...entries, index] : entries;
}
