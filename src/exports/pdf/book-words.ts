/**
 * The printed book's own words (its contents, "With love from", the colophon, the back cover's count) in the
 * book's language: the owner's choice (`settings.language`), from the catalogues the contributor pages use;
 * English when none is set. Names and titles are the book's own and are never translated.
 */
import { isLanguage, type Language } from '../../lib/i18n/languages.js';
import { message } from '../../lib/i18n/messages.js';

export interface BookWords {
  language: Language;
  contents: string;
  withLoveFrom: string;
  notes: string;
  /** "With love from Rose", or "With love from 3 people: Rose, Sam and Ana" with the first `shown` names. */
  fromLine(names: string[], shown?: number): string;
  /** "From Ana's photos": the caption of a photo printed away from its memory, as a breather in another's pages. */
  fromPhotos(name: string): string;
  /** "12 memories". */
  memories(n: number): string;
  /** "12 memories from 5 people". */
  memoriesFrom(n: number, people: number): string;
  setIn(faces: string[]): string;
  /** "Made with memorybook, 29 November 2026" (the colophon) or "… on 29 November 2026" (the title's verso). */
  madeWith(date: Date, on?: boolean): string;
  /** A day (a memory's byline) and a month (a chapter head), in the language's own order. */
  day(date: Date): string;
  month(date: Date): string;
}

const words = new Map<Language, BookWords>();

export function bookWords(language?: string | null): BookWords {
  const lang: Language = isLanguage(language) ? language : 'en';
  let w = words.get(lang);
  if (w) return w;
  // English dates as the book always printed them (29 November 2026); other languages in their own order.
  const day = new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : lang, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  // Names listed with the language's comma (、 in Chinese and Japanese, ، in Arabic); the last joined by "and".
  const comma = lang === 'zh' || lang === 'ja' ? '、' : lang === 'ar' ? '، ' : ', ';
  const list = { format: (names: string[]) => names.join(comma) };
  const month = new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : lang, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const memories = (n: number) => message(lang, 'book.memories', { count: n });
  w = {
    language: lang,
    contents: message(lang, 'book.contents'),
    withLoveFrom: message(lang, 'book.withLoveFrom'),
    notes: message(lang, 'book.notes'),
    fromLine(names, shown = names.length) {
      if (names.length === 1) return message(lang, 'book.fromOne', { name: names[0] });
      const listed = names.slice(0, shown);
      const rest = names.length - listed.length;
      const joined = rest
        ? message(lang, 'book.andMore', { list: list.format(listed), rest })
        : message(lang, 'book.andLast', { list: list.format(listed.slice(0, -1)), last: listed.at(-1)! });
      return message(lang, 'book.fromMany', { count: names.length, list: joined });
    },
    fromPhotos: (name) => message(lang, 'book.fromPhotos', { name }),
    memories,
    memoriesFrom: (n, people) => (people ? message(lang, 'book.fromPeople', { memories: memories(n), people }) : memories(n)),
    setIn: (faces) => message(lang, 'book.setIn', { faces: faces.join(', ') }),
    madeWith: (date, on = false) => message(lang, on ? 'book.madeOn' : 'book.madeWith', { date: day.format(date) }),
    day: (date) => day.format(date),
    month: (date) => month.format(date),
  };
  words.set(lang, w);
  return w;
}
