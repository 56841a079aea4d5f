/**
 * A memorial's frontispiece (a theme whose `frontispiece` is set): the book's first spread, the person's portrait
 * large on the verso, facing their name and, when the book gives them, their years on the recto. The contract has no field for
 * either: both are read from the book's title and subtitle (never invented), so a title without years shows
 * the name alone. Plain geometry and text: the renderer draws what it says.
 */
import type { Box } from '../geometry.js';
import { naturalBreak } from '../covers/title.js';

/** Who the book remembers, as its title names them, and their years when the title or subtitle gives them. */
export interface Honoured {
  name: string;
  /** As “1931–2024” (an en dash between), or null. */
  years: string | null;
}

const YEAR = '(1[5-9]\\d\\d|20\\d\\d)';
/** Two years with a dash (or “to”) between them, in brackets or not. */
const YEARS = new RegExp(`\\(?\\s*\\b${YEAR}\\s*(?:[-\u2010-\u2015]|to)\\s*${YEAR}\\b\\s*\\)?`, 'u');
/** The words a memorial's title opens with before the name. */
const IN_MEMORY = /^\s*(?:in\s+(?:loving\s+)?memory\s+of|remembering|celebrating\s+the\s+life\s+of)\s+/iu;

/**
 * The person a memorial remembers: its title before the first natural break (“Rose Ellis: a life in letters”
 * names Rose Ellis), without “In loving memory of” and without the years, which are given apart, from the
 * title or else the subtitle (“Rose Ellis, 1931–2024”).
 */
export function honouredOf(title: string, subtitle: string): Honoured {
  const found = YEARS.exec(title) ?? YEARS.exec(subtitle);
  const years = found ? `${found[1]}\u2013${found[2]}` : null;
  const withoutYears = title.replace(YEARS, ' ').replace(/\s+/g, ' ').trim();
  const head = naturalBreak(withoutYears)?.[0] ?? withoutYears;
  const name = head.replace(IN_MEMORY, '').replace(/[\s,;:·\u2013\u2014-]+$/u, '').trim();
  return { name: name || title.trim(), years };
}

/** The portrait's shape: 4:5, upright, as a portrait is framed. */
export const PORTRAIT_ASPECT = 4 / 5;

/** The share of the trimmed page's height the portrait takes on its verso. */
export const PORTRAIT_SHARE = 0.72;

/**
 * Where the portrait goes on its page (the trimmed page given): upright at PORTRAIT_ASPECT, PORTRAIT_SHARE of
 * the page's height, centred across it and a little above its middle (its optical centre).
 */
export function portraitBox(page: Box): Box {
  const h = page.h * PORTRAIT_SHARE;
  const w = h * PORTRAIT_ASPECT;
  return { x: page.x + (page.w - w) / 2, y: page.y + (page.h - h) * 0.42, w, h };
}
