import { directionOf, isLanguage, LANGUAGE_NAMES, LANGUAGES, type Language } from '../../lib/i18n/languages.js';
import { formatParts, message, type MessageKey } from '../../lib/i18n/messages.js';
import { escapeHtml, SafeHtml } from '../html.js';

export { isLanguage, LANGUAGE_NAMES, LANGUAGES, type Language, type MessageKey };

/** The cookie that keeps a language chosen with the switch, for the form's post and the thanks page. */
export const LANGUAGE_COOKIE = 'mb_lang';

/** Accept-Language's tags, best first (RFC 9110 quality values; q=0 means "not this one"). */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => x.tag && x.tag !== '*' && x.q > 0 && Number.isFinite(x.q))
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((x) => x.tag);
}

const primary = (tag: string) => tag.split('-')[0];

/**
 * The language of a contributor page: the one chosen with the switch (query,
 * then cookie); else the book's language when the browser lists it (the
 * reader reads it); else the browser's first language the pages speak; else
 * the book's language; else English.
 */
export function chooseLanguage(o: { chosen?: unknown; cookie?: unknown; bookLanguage?: unknown; acceptLanguage?: string }): Language {
  if (isLanguage(o.chosen)) return o.chosen;
  if (isLanguage(o.cookie)) return o.cookie;
  const accepted = acceptedLanguages(o.acceptLanguage).map(primary);
  const book = isLanguage(o.bookLanguage) ? o.bookLanguage : undefined;
  if (book && accepted.includes(book)) return book;
  const fromBrowser = accepted.find(isLanguage);
  return fromBrowser ?? book ?? 'en';
}

export interface Translator {
  lang: Language;
  dir: 'ltr' | 'rtl';
  /** A message as plain text (titles, attributes, mail). */
  t(key: MessageKey, values?: Record<string, string | number | Date>): string;
  /** A message as markup: its text escaped, its tags (`<b>`, `<bdi>`, `<link>`) and SafeHtml values kept. */
  h(key: MessageKey, values?: Record<string, unknown>): SafeHtml;
}

function toHtml(part: unknown): string {
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(toHtml).join('');
  return escapeHtml(part ?? '');
}

/** The default tags: an isolated piece of someone's own text, and bold. A `link` tag needs its href from the caller. */
const TAGS = {
  bdi: (chunks: unknown[]) => new SafeHtml(`<bdi>${toHtml(chunks)}</bdi>`),
  b: (chunks: unknown[]) => new SafeHtml(`<strong>${toHtml(chunks)}</strong>`),
};

export function translator(lang: Language): Translator {
  return {
    lang,
    dir: directionOf(lang),
    t(key, values) {
      return message(lang, key, values);
    },
    h(key, values) {
      // Values become SafeHtml wrappers so the formatter hands them back as parts; strings are escaped on the way out.
      const wrapped = Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, typeof v === 'function' || v instanceof SafeHtml || typeof v === 'number' || v instanceof Date ? v : new SafeHtml(escapeHtml(v))]));
      const out = formatParts(lang, key, { ...TAGS, ...wrapped });
      return new SafeHtml(toHtml(out));
    },
  };
}

/** A link tag for `h`: `<link>…</link>` in a message becomes `<a href>`. */
export function linkTag(href: string) {
  return (chunks: unknown[]) => new SafeHtml(`<a href="${escapeHtml(href)}">${toHtml(chunks)}</a>`);
}

/**
 * The language and direction of someone's own text (a book's title, a name),
 * guessed from its letters: the script says it for most (Hebrew, Arabic,
 * Devanagari, Hangul, kana, Han, Cyrillic, Greek, Thai); Latin letters say
 * nothing, so the book's language (if its owner set one) stands.
 */
export function textLanguage(text: string, bookLanguage?: unknown): { lang?: string; dir: 'ltr' | 'rtl' | 'auto' } {
  const count = (re: RegExp) => (text.match(re) ?? []).length;
  const scripts: Array<[string, RegExp]> = [
    ['he', /[\u0590-\u05FF\uFB1D-\uFB4F]/g],
    ['ar', /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/g],
    ['hi', /[\u0900-\u097F]/g],
    ['ko', /[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]/g],
    ['ja', /[\u3040-\u30FF]/g],
    ['zh', /[\u4E00-\u9FFF\u3400-\u4DBF]/g],
    ['ru', /[\u0400-\u04FF]/g],
    ['el', /[\u0370-\u03FF]/g],
    ['th', /[\u0E00-\u0E7F]/g],
  ];
  const latin = count(/[A-Za-z\u00C0-\u024F]/g);
  let best: { lang: string; n: number } | undefined;
  for (const [lang, re] of scripts) {
    const n = count(re);
    if (n > 0 && (!best || n > best.n)) best = { lang, n };
  }
  if (best && best.n >= latin) {
    let lang = best.lang;
    // Kanji with kana is Japanese; Cyrillic with і ї є ґ is Ukrainian.
    if (lang === 'zh' && count(/[\u3040-\u30FF]/g) > 0) lang = 'ja';
    if (lang === 'ru' && /[іїєґІЇЄҐ]/.test(text)) lang = 'uk';
    return { lang, dir: lang === 'he' || lang === 'ar' ? 'rtl' : 'ltr' };
  }
  return { lang: latin > 0 && isLanguage(bookLanguage) ? bookLanguage : undefined, dir: 'auto' };
}

/**
 * The language of a page for this request: `?lang=` from a language switch (kept in the `mb_lang` cookie), the
 * cookie, the book's language, Accept-Language (see chooseLanguage). The answer says which (`Content-Language`) and
 * that it depends on them (`Vary`).
 */
export function requestTranslator(
  request: { query: unknown; cookies: Record<string, string | undefined>; headers: Record<string, string | string[] | undefined> },
  reply: { setCookie(name: string, value: string, o: object): unknown; header(name: string, value: string): unknown },
  o: { secureCookies: boolean; bookLanguage?: unknown },
): Translator {
  const chosen = (request.query as Record<string, unknown> | undefined)?.lang;
  const accept = request.headers['accept-language'];
  const lang = chooseLanguage({ chosen, cookie: request.cookies[LANGUAGE_COOKIE], bookLanguage: o.bookLanguage, acceptLanguage: Array.isArray(accept) ? accept.join(',') : accept });
  if (chosen === lang && request.cookies[LANGUAGE_COOKIE] !== lang) {
    reply.setCookie(LANGUAGE_COOKIE, lang, { path: '/', sameSite: 'lax', secure: o.secureCookies, httpOnly: true, maxAge: 365 * 24 * 3600 });
  }
  reply.header('content-language', lang);
  reply.header('vary', 'Accept-Language, Cookie');
  return translator(lang);
}
