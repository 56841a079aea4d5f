import { createRequire } from 'node:module';
import type { IntlMessageFormat } from 'intl-messageformat';
import { catalogue, type MessageKey } from './catalogues/index.js';
import type { Language } from './languages.js';

export type { MessageKey };

const formats = new Map<string, IntlMessageFormat>();

// The ICU formatter (and its parser) is read with the first message formatted, not as the server starts:
// a synchronous require, so formatting stays a plain function.
const require = createRequire(import.meta.url);
let Formatter: typeof IntlMessageFormat | undefined;

/** Dates in messages (`{d, date, long}`) are days on the calendar, the same for every reader: UTC. */
const DATE_FORMATS = {
  date: {
    short: { year: 'numeric', month: 'numeric', day: 'numeric', timeZone: 'UTC' },
    medium: { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' },
    long: { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' },
  },
} as const;

function formatOf(lang: Language, key: MessageKey): IntlMessageFormat {
  const id = `${lang}\u0000${key}`;
  let f = formats.get(id);
  if (!f) {
    Formatter ??= (require('intl-messageformat') as typeof import('intl-messageformat')).IntlMessageFormat;
    f = new Formatter(catalogue(lang)[key], lang, DATE_FORMATS as never);
    formats.set(id, f);
  }
  return f;
}

/** A message formatted with its values: a string, or (with object values or tag functions) the parts for a page to assemble. */
export function formatParts(lang: Language, key: MessageKey, values: Record<string, unknown>): unknown {
  return formatOf(lang, key).format<unknown>(values as never);
}

/** A message as plain text (a mail, a title); its tags (`<bdi>`, `<b>`) keep only their text. */
export function message(lang: Language, key: MessageKey, values: Record<string, string | number | Date> = {}): string {
  const text = (c: unknown[]) => c.join('');
  return String(formatOf(lang, key).format({ ...values, bdi: text, b: text, link: text }));
}
