import type { Catalogue } from './en.js';
import { en } from './en.js';

/** Every language's catalogue, by its code. */
export const CATALOGUES: Record<string, Catalogue> = { en, de: en, fr: en, es: en, it: en, pt: en, nl: en, pl: en, ru: en, uk: en, ar: en, he: en, hi: en, zh: en, ja: en, ko: en };
