/**
 * The contributor pages' messages, one catalogue per language: `en.json` is
 * the source, and every other language has a file like it with the same keys
 * (a test fails on a missing or extra key, or one whose arguments differ).
 * Messages are ICU MessageFormat: `{n, plural, one {…} other {…}}` takes the
 * CLDR plural rules of the language, `{d, date, long}` its date format.
 * `<b>`, `<bdi>` and `<link>` are tags the page fills in (an emphasis, an
 * isolated piece of someone's own text, a link).
 *
 * A language's catalogue is read when its first message is formatted, not as
 * the server starts: a synchronous read of one small JSON file (the build
 * copies them beside the compiled modules), so formatting stays a plain function.
 */
import { readFileSync } from 'node:fs';
import { isLanguage, type Language } from '../languages.js';

type English = typeof import('./en.json', { with: { type: 'json' } });
export type MessageKey = keyof English;
export type Catalogue = Record<MessageKey, string>;

const loaded = new Map<Language, Catalogue>();

/** A language's catalogue, read from its file on first use. */
export function catalogue(lang: Language): Catalogue {
  let c = loaded.get(lang);
  if (!c) {
    if (!isLanguage(lang)) throw new Error(`no catalogue for the language ${String(lang)}`);
    c = JSON.parse(readFileSync(new URL(`./${lang}.json`, import.meta.url), 'utf8')) as Catalogue;
    loaded.set(lang, c);
  }
  return c;
}
