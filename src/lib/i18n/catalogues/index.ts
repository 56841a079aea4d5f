import { ar } from './ar.js';
import { de } from './de.js';
import type { Catalogue } from './en.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { he } from './he.js';
import { hi } from './hi.js';
import { it } from './it.js';
import { ja } from './ja.js';
import { ko } from './ko.js';
import { nl } from './nl.js';
import { pl } from './pl.js';
import { pt } from './pt.js';
import { ru } from './ru.js';
import { uk } from './uk.js';
import { zh } from './zh.js';

/** Every language's catalogue, by its code (one module each; a test checks each has every key of English, and only those). */
export const CATALOGUES: Record<string, Catalogue> = { en, de, fr, es, it, pt, nl, pl, ru, uk, ar, he, hi, zh, ja, ko };
