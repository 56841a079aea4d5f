import { THEMES } from '../../services/books/book-types.js';
import { THEME_STYLES, type FontFace, type ThemePalette } from '../../media-tools/themes.js';
import { fallbackFaces } from '../../media-tools/font-fallback.js';

/**
 * The stylesheet of the pages a book's contributors see (the web form and its
 * thank-you page): one layout, coloured per book by a `theme-<name>` class on
 * <body> with the palette of the book's export theme, and the book's title set
 * in the theme's title typeface (served from /static/fonts/, fetched only by
 * the page whose theme uses it). Button and text colours are adjusted here so
 * every theme keeps readable contrast (WCAG AA, 4.5:1 for body-size text).
 */

type Rgb = [number, number, number];

function rgb(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hex(c: Rgb): string {
  return `#${c.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;
}

function mix(a: string, b: string, amountOfB: number): string {
  const x = rgb(a);
  const y = rgb(b);
  return hex([0, 1, 2].map((i) => x[i] + (y[i] - x[i]) * amountOfB) as Rgb);
}

function luminance(color: string): number {
  const [r, g, b] = rgb(color).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** `color`, moved toward `toward` in small steps until it reaches `ratio` against `against` (each of them, if several). */
function readable(color: string, against: string | string[], ratio: number, toward: string): string {
  const all = Array.isArray(against) ? against : [against];
  const worst = (c: string) => Math.min(...all.map((a) => contrast(c, a)));
  let c = color;
  for (let i = 1; i <= 40 && worst(c) < ratio; i++) c = mix(color, toward, i / 40);
  return c;
}

export interface BookColours {
  bg: string;
  paper: string;
  ink: string;
  muted: string;
  /** The accent as text (titles, links) on the paper. */
  accentText: string;
  /** The main button: background and its text. */
  button: string;
  buttonInk: string;
  field: string;
  /** Borders of fields (3:1 against the paper and the field, WCAG 1.4.11). */
  line: string;
  /** Errors: the message text on the paper, the invalid field's border, the summary's ground and text. */
  errorInk: string;
  errorLine: string;
  errorBg: string;
  errorBgInk: string;
  dark: boolean;
}

/** A theme's palette turned into the page's colours. */
export function bookColours(p: ThemePalette): BookColours {
  const dark = luminance(p.background) < 0.2;
  const paper = dark ? mix(p.background, '#ffffff', 0.06) : mix(p.background, '#ffffff', 0.7);
  const field = dark ? mix(p.background, '#ffffff', 0.11) : '#ffffff';
  const away = dark ? '#ffffff' : '#000000';
  // The button: the accent with white text, deepened a little until it reads (4.5:1); a light accent
  // (gold on a dark theme) that would need more than a shade keeps its colour and takes dark text.
  const white = '#ffffff';
  const black = '#161311';
  let button = p.accent;
  let buttonInk = white;
  const deepened = readable(p.accent, white, 4.5, '#000000');
  if (contrast(deepened, white) >= 4.5 && contrast(mix(p.accent, '#000000', 0.3), white) >= 4.5) button = deepened;
  else buttonInk = black;
  if (contrast(button, buttonInk) < 4.5) button = readable(button, buttonInk, 4.5, buttonInk === white ? '#000000' : '#ffffff');
  // Text sits on the paper, on the page around it (the book's head, the foot) and in the fields: it reads on all three.
  const grounds = [paper, p.background, field];
  const red = dark ? '#ff8a80' : '#b3261e';
  const errorBg = dark ? mix(paper, '#b3261e', 0.22) : '#fdecea';
  return {
    bg: p.background,
    paper,
    ink: readable(p.text, grounds, 7, away),
    muted: readable(p.muted, grounds, 4.5, away),
    accentText: readable(p.accent, grounds, 4.5, away),
    button,
    buttonInk,
    field,
    line: readable(dark ? mix(paper, '#ffffff', 0.22) : mix(p.muted, paper, 0.6), [paper, field], 3, away),
    errorInk: readable(red, grounds, 4.5, away),
    errorLine: readable(red, [paper, field], 3, away),
    errorBg,
    errorBgInk: readable(red, errorBg, 4.5, away),
    dark,
  };
}

/** The title face of each theme, by the URL the stylesheet loads it from. */
export const THEME_TITLE_FONTS: Record<string, FontFace> = Object.fromEntries(THEMES.map((t) => [`/static/fonts/${t}-title.ttf`, THEME_STYLES[t].title]));

/**
 * The printed book's fallback chain, for the title on the contributor pages: each Noto face served from
 * /static/fonts/fallback/ (the same files the PDF embeds) and declared with the code points it is for,
 * so a browser fetches one only when the title has a character of its script.
 */
const FALLBACK_RANGES: Record<string, string> = {
  'Noto Sans Devanagari': 'U+0900-097F, U+1CD0-1CFF, U+A8E0-A8FF',
  'EB Garamond': 'U+0000-052F, U+1AB0-1AFF, U+1DC0-1FFF, U+2000-206F, U+20A0-20CF, U+2C60-2C7F, U+A640-A69F, U+A720-A7FF',
  'Noto Sans': 'U+0000-052F, U+1AB0-1AFF, U+1C80-1C8F, U+1DC0-1FFF, U+2000-206F, U+20A0-20CF, U+2C60-2C7F, U+2DE0-2DFF, U+A640-A69F, U+A720-A7FF, U+AB30-AB6F',
  'Noto Naskh Arabic': 'U+0600-06FF, U+0750-077F, U+0870-08FF, U+FB50-FDFF, U+FE70-FEFF',
  'Noto Sans Hebrew': 'U+0590-05FF, U+FB1D-FB4F',
  'Frank Ruhl Libre': 'U+0590-05FF, U+FB1D-FB4F',
  'Noto Sans SC': 'U+2E80-2FDF, U+3000-30FF, U+3190-31FF, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FE30-FE4F, U+FF00-FFEF, U+20000-2FA1F',
  'Noto Serif SC': 'U+2E80-2FDF, U+3000-30FF, U+3190-31FF, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FE30-FE4F, U+FF00-FFEF, U+20000-2FA1F',
  'Noto Sans KR': 'U+1100-11FF, U+3130-318F, U+A960-A97F, U+AC00-D7AF, U+D7B0-D7FF',
  'Noto Emoji': 'U+00A9, U+00AE, U+200D, U+203C, U+2049, U+2122-2B55, U+3030, U+303D, U+3297, U+3299, U+FE0F, U+1F000-1FAFF, U+E0020-E007F',
};

const fallbackUrl = (f: FontFace) => `/static/fonts/fallback/${f.file.split('/').pop()!.replace(/[^A-Za-z0-9._-]/g, '_')}`;

/** Every face of the fallback chains of the themes' titles (with the serif's and Latin's both weights and styles), by the URL it is served at. */
export const FALLBACK_FONTS: Record<string, FontFace> = Object.fromEntries(
  [400, 700]
    .flatMap((weight) => (['normal', 'italic'] as const).flatMap((style) => [fallbackFaces({ weight: weight as FontFace['weight'], style }), fallbackFaces({ weight: weight as FontFace['weight'], style, family: 'EB Garamond' })].flat()))
    .map((f) => [fallbackUrl(f), f]),
);

/** The families of a face's chain, in its order, for a font-family list (a serif title falls back to a serif first). */
const fallbackFamilies = (f: FontFace) => [...new Set(fallbackFaces(f).map((fb) => `"mb-fb-${fb.family}"`))].join(', ');

function fallbackRules(): string {
  return Object.entries(FALLBACK_FONTS)
    .map(([url, f]) => {
      const format = url.endsWith('.otf') ? 'opentype' : 'truetype';
      return `@font-face { font-family: "mb-fb-${f.family}"; src: url("${url}") format("${format}"); font-weight: ${f.weight}; font-style: ${f.style}; font-display: swap; unicode-range: ${FALLBACK_RANGES[f.family] ?? 'U+0-10FFFF'}; }`;
    })
    .join('\n');
}

function themeRules(): string {
  return THEMES.map((t) => {
    const style = THEME_STYLES[t];
    const c = bookColours(style.palette);
    const f = style.title;
    return `
@font-face { font-family: "mb-title-${t}"; src: url("/static/fonts/${t}-title.ttf") format("truetype"); font-weight: ${f.weight}; font-style: ${f.style}; font-display: swap; }
.theme-${t} {
  --bg: ${c.bg}; --paper: ${c.paper}; --ink: ${c.ink}; --muted: ${c.muted}; --accent: ${c.accentText};
  --button: ${c.button}; --button-ink: ${c.buttonInk}; --field: ${c.field}; --line: ${c.line};
  --error-ink: ${c.errorInk}; --error-line: ${c.errorLine}; --error-bg: ${c.errorBg}; --error-bg-ink: ${c.errorBgInk};
  --title-font: "mb-title-${t}", ${fallbackFamilies(f)}, Georgia, "Times New Roman", serif; --title-weight: ${f.weight}; --title-style: ${f.style};
  --title-case: ${style.titleUppercase ? 'uppercase' : 'none'}; --title-tracking: ${style.titleUppercase ? '0.08em' : '0'};
  --shadow: ${c.dark ? '0 1px 2px rgba(0,0,0,.35), 0 12px 32px rgba(0,0,0,.35)' : '0 1px 2px rgba(60,40,20,.06), 0 12px 32px rgba(60,40,20,.10)'};
  color-scheme: ${c.dark ? 'dark' : 'light'};
}`;
  }).join('\n');
}

/** The stylesheet's rules that are the same for every theme. */
const BASE_RULES = `
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; min-height: 100vh; background: var(--bg); color: var(--ink);
  font: 17px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); text-underline-offset: 0.15em; }
.sheet { max-width: 34rem; margin: 0 auto; padding: 2.25rem 1rem 2rem; }
.book-head { text-align: center; margin: 0 0.5rem 1.5rem; }
.book-cover { display: block; width: 100%; height: auto; aspect-ratio: 3 / 1; object-fit: cover; border-radius: 6px; margin: 0 0 1.25rem; }
.eyebrow { margin: 0 0 0.4rem; font-size: 0.8rem; font-weight: 600; letter-spacing: 0.12em; text-transform: uppercase; color: var(--muted); }
.book-title {
  margin: 0; font-family: var(--title-font); font-weight: var(--title-weight); font-style: var(--title-style);
  text-transform: var(--title-case); letter-spacing: var(--title-tracking);
  font-size: clamp(2rem, 8.5vw, 2.75rem); line-height: 1.15; color: var(--accent); overflow-wrap: anywhere; text-wrap: balance;
}
.book-subtitle { margin: 0.5rem 0 0; color: var(--muted); font-style: italic; text-wrap: balance; }
.rule { width: 3rem; height: 2px; margin: 1.1rem auto 0; border: 0; background: var(--accent); opacity: 0.7; }
.paper { background: var(--paper); border-radius: 18px; padding: 1.5rem 1.25rem 1.4rem; box-shadow: var(--shadow); }
.paper h2 { margin: 0 0 0.35rem; font-size: 1.3rem; line-height: 1.3; }
.lead { margin: 0 0 1.1rem; color: var(--muted); }
label { display: block; font-weight: 650; margin: 1.1rem 0 0.4rem; }
label .optional { font-weight: 400; color: var(--muted); }
input[type=text], textarea {
  display: block; width: 100%; min-height: 3rem; padding: 0.75rem 0.9rem; font: inherit; font-size: 1.0625rem; color: var(--ink);
  background: var(--field); border: 1.5px solid var(--line); border-radius: 12px;
}
textarea { min-height: 10rem; resize: vertical; line-height: 1.5; }
input[type=file] {
  display: block; width: 100%; font: inherit; font-size: 0.95rem; color: var(--muted);
  padding: 0.5rem; border: 1.5px dashed var(--line); border-radius: 12px; background: var(--field);
}
input[type=file]::file-selector-button {
  min-height: 2.75rem; margin-inline-end: 0.75rem; padding: 0.55rem 1rem; font: inherit; font-weight: 650; cursor: pointer;
  color: var(--accent); background: transparent; border: 1.5px solid var(--accent); border-radius: 10px;
}
input:focus-visible, textarea:focus-visible, button:focus-visible, a:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px;
}
/* After the fields' own rules and as specific as they are (a type selector and two attributes), so an invalid field always shows its border. */
input[type][aria-invalid=true], textarea[aria-invalid=true] { border: 2.5px solid var(--error-line); }
.hint { margin: 0.35rem 0 0; font-size: 0.9rem; color: var(--muted); }
.field-error { margin: 0 0 0.4rem; font-size: 0.95rem; font-weight: 650; color: var(--error-ink); }
.hint + .field-error { margin-top: 0.35rem; }
.hint:has(+ .field-error:not([hidden])), .hint:has(+ .field-error + input) { margin-bottom: 0.4rem; }
.error-summary {
  margin: 0 0 1.25rem; padding: 1rem 1.25rem; border: 3px solid var(--error-line); border-radius: 14px;
  background: var(--error-bg); color: var(--error-bg-ink);
}
.error-summary:focus { outline: 3px solid var(--accent); outline-offset: 3px; }
.error-summary-title { margin: 0 0 0.5rem; font-size: 1.15rem; line-height: 1.3; }
.error-summary-list { margin: 0; padding-inline-start: 1.2rem; }
.error-summary a { color: var(--error-bg-ink); font-weight: 650; }
.lang-switch { display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: 0.4rem; margin: 0 0 1rem; font-size: 0.9rem; color: var(--muted); }
.lang-switch label { display: inline-flex; align-items: center; gap: 0.3rem; margin: 0; font-weight: 600; color: var(--muted); }
.lang-switch svg { width: 1.1rem; height: 1.1rem; }
.lang-switch select, .lang-switch button {
  min-height: 2.75rem; padding: 0.35rem 0.6rem; font: inherit; color: var(--ink); background: var(--field);
  border: 1.5px solid var(--line); border-radius: 10px;
}
.lang-switch button { font-weight: 650; color: var(--accent); border-color: var(--accent); background: transparent; cursor: pointer; }
select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.preview { margin: 0.75rem 0 0; }
.preview img { display: block; width: 100%; max-height: 16rem; object-fit: cover; border-radius: 12px; }
.preview figcaption { margin-top: 0.35rem; font-size: 0.9rem; color: var(--muted); overflow-wrap: anywhere; }
.send {
  display: block; width: 100%; min-height: 3.5rem; margin-top: 1.5rem; padding: 0.8rem 1rem; cursor: pointer;
  font: inherit; font-size: 1.15rem; font-weight: 700; color: var(--button-ink); background: var(--button);
  border: 0; border-radius: 14px; text-align: center; text-decoration: none;
}
.send:hover { filter: brightness(1.06); }
.send[disabled] { cursor: progress; }
.send.secondary { color: var(--accent); background: transparent; border: 1.5px solid var(--accent); }
/* The resumable upload's progress: the track's border and the fill at 3:1 or more against the paper (--line, --accent). */
.upload { margin-top: 1.5rem; }
.upload-status { margin: 0 0 0.6rem; font-weight: 650; }
.progress { height: 1.1rem; border: 1.5px solid var(--line); border-radius: 999px; overflow: hidden; background: var(--field); }
.progress-fill { display: block; height: 100%; width: 100%; background: var(--accent); transform-origin: left center; transform: scaleX(0); }
[dir=rtl] .progress-fill { transform-origin: right center; }
.stop {
  display: block; width: 100%; min-height: 3rem; margin-top: 0.9rem; padding: 0.6rem 1rem; cursor: pointer;
  font: inherit; font-weight: 650; color: var(--accent); background: transparent; border: 1.5px solid var(--accent); border-radius: 14px;
}
.upload-skip { display: inline-block; margin-top: 0.9rem; padding: 0.6rem 0; font-weight: 650; }
.fine { margin: 0.9rem 0 0; font-size: 0.9rem; color: var(--muted); text-align: center; }
.alert { margin: 0 0 1rem; padding: 0.8rem 1rem; border-radius: 12px; background: var(--error-bg); color: var(--error-bg-ink); border: 1.5px solid var(--error-line); }
.alert a { color: inherit; }
.alert p { margin: 0; }
.thanks { text-align: center; }
.thanks .mark { display: block; width: 3.5rem; height: 3.5rem; margin: 0.25rem auto 0.75rem; color: var(--accent); }
.thanks h2 { font-family: var(--title-font); font-weight: var(--title-weight); font-size: 1.9rem; color: var(--accent); }
.foot { margin: 1.5rem 0 0; text-align: center; font-size: 0.85rem; color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); border: 0; }
[hidden] { display: none !important; }
@media (min-width: 40rem) { .sheet { padding-top: 3.5rem; } .paper { padding: 2rem 2.25rem; } }
@media (prefers-reduced-motion: no-preference) { .send { transition: filter 0.15s; } }
`;

/** The contributor pages' stylesheet. Made on first use: each theme's fallback chain measures its title face's stems (fontkit), 100+ ms. */
export function bookCss(): string {
  return `${BASE_RULES}${fallbackRules()}
${themeRules()}
`;
}
