import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The look of each export theme: one palette and three typefaces, shared by
 * the share cards and the PDF exports so a book looks the same everywhere.
 * Every typeface is an OFL font shipped as .ttf in an @expo-google-fonts
 * package and read from that file: nothing depends on the fonts a machine has.
 */

/** The export themes a book can be printed in (a book's theme is one of them). */
export const THEMES = [
  'elegant_classic',
  'modern_clean',
  'storybook',
  'memorial_service',
  'wedding_album',
  'baby_first_year',
  'daily_journal',
  'retirement_tribute',
  'botanical_luxe',
  'heirloom_gallery',
  'editorial_noir',
] as const;
export type Theme = (typeof THEMES)[number];
export const DEFAULT_THEME = 'elegant_classic' satisfies Theme;

export type FontWeight = 300 | 400 | 500 | 600 | 700 | 800;
export type FontStyle = 'normal' | 'italic';

/** One face of a typeface: the family name to use in layouts and the .ttf inside its npm package. */
export interface FontFace {
  family: string;
  weight: FontWeight;
  style: FontStyle;
  /** The npm package shipping the file (licence: OFL-1.1 for the font, MIT for the package code). */
  package: string;
  /** The file's path inside that package. */
  file: string;
}

export interface ThemePalette {
  /** Page / card background. */
  background: string;
  /** Main text: the memory's words. */
  text: string;
  /** Secondary text: the contributor, captions. */
  muted: string;
  /** Rules, quote marks, the book title. */
  accent: string;
}

export interface ThemeStyle {
  theme: Theme;
  palette: ThemePalette;
  /** The memory's words. */
  quote: FontFace;
  /** The book's title. */
  title: FontFace;
  /** Names, dates, small print. */
  body: FontFace;
  /** Set the book title in capitals with open tracking (small-caps feel). */
  titleUppercase: boolean;
}

const PKG = '@expo-google-fonts/';

function face(pkg: string, base: string, family: string, weight: FontWeight, style: FontStyle = 'normal'): FontFace {
  const names: Record<FontWeight, string> = { 300: 'Light', 400: 'Regular', 500: 'Medium', 600: 'SemiBold', 700: 'Bold', 800: 'ExtraBold' };
  const variant = `${weight}${names[weight]}${style === 'italic' ? '_Italic' : ''}`;
  return { family, weight, style, package: PKG + pkg, file: `${variant}/${base}_${variant}.ttf` };
}

const playfair = (w: FontWeight, s?: FontStyle) => face('playfair-display', 'PlayfairDisplay', 'Playfair Display', w, s);
const lora = (w: FontWeight, s?: FontStyle) => face('lora', 'Lora', 'Lora', w, s);
const inter = (w: FontWeight, s?: FontStyle) => face('inter', 'Inter', 'Inter', w, s);
const fredoka = (w: FontWeight) => face('fredoka', 'Fredoka', 'Fredoka', w);
const nunito = (w: FontWeight, s?: FontStyle) => face('nunito', 'Nunito', 'Nunito', w, s);
const cormorant = (w: FontWeight, s?: FontStyle) => face('cormorant-garamond', 'CormorantGaramond', 'Cormorant Garamond', w, s);
const greatVibes = () => face('great-vibes', 'GreatVibes', 'Great Vibes', 400);
const patrickHand = () => face('patrick-hand', 'PatrickHand', 'Patrick Hand', 400);
const baskerville = (w: FontWeight, s?: FontStyle) => face('libre-baskerville', 'LibreBaskerville', 'Libre Baskerville', w, s);
const fraunces = (w: FontWeight, s?: FontStyle) => face('fraunces', 'Fraunces', 'Fraunces', w, s);
const ebGaramond = (w: FontWeight, s?: FontStyle) => face('eb-garamond', 'EBGaramond', 'EB Garamond', w, s);
const dmSerif = (s?: FontStyle) => face('dm-serif-display', 'DMSerifDisplay', 'DM Serif Display', 400, s);
const dmSans = (w: FontWeight, s?: FontStyle) => face('dm-sans', 'DMSans', 'DM Sans', w, s);

/** The upright (roman) face of a face's family at its weight: the same file name without its italic part. */
export function uprightOf(f: FontFace): FontFace {
  return f.style === 'italic' ? { ...f, style: 'normal', file: f.file.replace(/_Italic/g, '') } : f;
}

/**
 * The face long text is read in: the body's family, upright, at its regular weight (a letter of pages set in
 * a medium or bold face reads heavy). Cormorant's regular is a light display cut at text sizes: its medium is
 * its reading weight.
 */
export function textFaceOf(f: FontFace): FontFace {
  const upright = uprightOf(f);
  const regular: FontWeight = /cormorant/i.test(f.family) ? 500 : 400;
  if (upright.weight === regular || f.package.endsWith('patrick-hand')) return upright;
  const names: Record<FontWeight, string> = { 300: 'Light', 400: 'Regular', 500: 'Medium', 600: 'SemiBold', 700: 'Bold', 800: 'ExtraBold' };
  const from = `${upright.weight}${names[upright.weight]}`;
  const to = `${regular}${names[regular]}`;
  return { ...upright, weight: regular, file: upright.file.split(from).join(to) };
}

/** Fallback for characters the theme's typefaces lack (emoji): monochrome Noto Emoji, so it takes the text colour. */
export const EMOJI_FONT: FontFace = face('noto-emoji', 'NotoEmoji', 'Noto Emoji', 400);

export const THEME_STYLES: Readonly<Record<Theme, ThemeStyle>> = Object.freeze({
  elegant_classic: {
    theme: 'elegant_classic',
    palette: { background: '#F7F2E8', text: '#2B2420', muted: '#6F6257', accent: '#A07C35' },
    quote: playfair(400, 'italic'),
    title: playfair(700),
    body: lora(500),
    titleUppercase: false,
  },
  modern_clean: {
    theme: 'modern_clean',
    palette: { background: '#FFFFFF', text: '#111827', muted: '#6B7280', accent: '#2563EB' },
    quote: inter(500),
    title: inter(700),
    body: inter(400),
    titleUppercase: true,
  },
  storybook: {
    theme: 'storybook',
    palette: { background: '#FFF4DF', text: '#3D2C1E', muted: '#7A5C43', accent: '#E4572E' },
    quote: fredoka(500),
    title: fredoka(600),
    body: nunito(700),
    titleUppercase: false,
  },
  memorial_service: {
    theme: 'memorial_service',
    palette: { background: '#EDEFF2', text: '#2E3440', muted: '#5E6673', accent: '#75688A' },
    quote: cormorant(500, 'italic'),
    title: cormorant(600),
    body: cormorant(600),
    titleUppercase: true,
  },
  wedding_album: {
    theme: 'wedding_album',
    palette: { background: '#FBF2EF', text: '#3B2A2E', muted: '#7D6468', accent: '#B06574' },
    quote: cormorant(500, 'italic'),
    title: greatVibes(),
    body: cormorant(600),
    titleUppercase: false,
  },
  baby_first_year: {
    theme: 'baby_first_year',
    palette: { background: '#EAF4FA', text: '#2F3E4E', muted: '#5D7287', accent: '#E0718F' },
    quote: nunito(600),
    title: nunito(800),
    body: nunito(600),
    titleUppercase: false,
  },
  daily_journal: {
    theme: 'daily_journal',
    palette: { background: '#FFFCF0', text: '#26324F', muted: '#56627F', accent: '#D2762A' },
    quote: patrickHand(),
    title: patrickHand(),
    body: patrickHand(),
    titleUppercase: false,
  },
  retirement_tribute: {
    theme: 'retirement_tribute',
    palette: { background: '#1F2A44', text: '#F4EFE6', muted: '#B8C0D0', accent: '#D4AF37' },
    quote: baskerville(400, 'italic'),
    title: baskerville(700),
    body: inter(500),
    titleUppercase: true,
  },
  botanical_luxe: {
    theme: 'botanical_luxe',
    palette: { background: '#1E3A2F', text: '#F3EEDF', muted: '#B9C4B0', accent: '#C9A96E' },
    quote: fraunces(400, 'italic'),
    title: fraunces(600),
    body: lora(500, 'italic'),
    titleUppercase: false,
  },
  heirloom_gallery: {
    theme: 'heirloom_gallery',
    palette: { background: '#F1E8D8', text: '#3E2E22', muted: '#76624F', accent: '#8C4A2F' },
    quote: ebGaramond(400, 'italic'),
    title: ebGaramond(600),
    body: ebGaramond(500),
    titleUppercase: true,
  },
  editorial_noir: {
    theme: 'editorial_noir',
    palette: { background: '#0E0E0E', text: '#F5F5F0', muted: '#A3A3A3', accent: '#E63946' },
    quote: dmSerif(),
    title: dmSans(700),
    body: dmSans(500),
    titleUppercase: true,
  },
} satisfies Record<Theme, ThemeStyle>);

/** The style of a theme; an unknown name (an old row, a typo) gets the default theme rather than failing. */
export function themeStyle(theme: string): ThemeStyle {
  return (THEME_STYLES as Record<string, ThemeStyle>)[theme] ?? THEME_STYLES[DEFAULT_THEME];
}

/** The faces a theme uses (quote, title, body), without duplicates, then the emoji fallback. */
export function themeFaces(style: ThemeStyle): FontFace[] {
  const seen = new Set<string>();
  const faces: FontFace[] = [];
  for (const f of [style.quote, style.title, style.body, EMOJI_FONT]) {
    const key = `${f.package}/${f.file}`;
    if (!seen.has(key)) {
      seen.add(key);
      faces.push(f);
    }
  }
  return faces;
}

const require = createRequire(import.meta.url);

const packageDirs = new Map<string, string>();

/** Where an npm package is installed (some export no package.json: found from their entry point then). */
function packageDir(pkg: string): string {
  let dir = packageDirs.get(pkg);
  if (!dir) {
    try {
      dir = path.dirname(require.resolve(`${pkg}/package.json`));
    } catch {
      dir = path.dirname(require.resolve(pkg));
      while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    }
    packageDirs.set(pkg, dir);
  }
  return dir;
}

/** Absolute path of a face's font file inside its package. */
export function fontFilePath(f: FontFace): string {
  return path.join(packageDir(f.package), f.file);
}

const fontData = new Map<string, Promise<Buffer>>();

/** The bytes of a face's .ttf, read once per process. */
export function loadFontFile(f: FontFace): Promise<Buffer> {
  const file = fontFilePath(f);
  let data = fontData.get(file);
  if (!data) {
    data = readFile(file);
    fontData.set(file, data);
    data.catch(() => fontData.delete(file));
  }
  return data;
}
