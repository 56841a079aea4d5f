/**
 * The languages the pages and mails a contributor or invitee sees are
 * written in (one ICU catalogue each, in ./catalogues), English first (the
 * fallback). A book's owner picks its language (`settings.language`).
 */
export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ru', 'uk', 'ar', 'he', 'hi', 'zh', 'ja', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language's own name for itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español', it: 'Italiano', pt: 'Português', nl: 'Nederlands', pl: 'Polski',
  ru: 'Русский', uk: 'Українська', ar: 'العربية', he: 'עברית', hi: 'हिन्दी', zh: '中文', ja: '日本語', ko: '한국어',
};

const RTL: ReadonlySet<string> = new Set(['ar', 'he']);

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function directionOf(lang: Language): 'ltr' | 'rtl' {
  return RTL.has(lang) ? 'rtl' : 'ltr';
}
