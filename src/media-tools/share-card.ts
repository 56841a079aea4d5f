import { cropRectAround, type FocalPoint } from './focal-crop.js';
import { loadSharp } from './sharp.js';
import { emojiSvg } from './emoji-pictures.js';
import { faceCovers, fontChain, splitRuns } from './font-fallback.js';
import { loadFontFile, themeFaces, themeStyle, type FontFace, type ThemeStyle } from './themes.js';

/**
 * Link-preview image of one memory ("Open Graph" card): the words, who wrote
 * them, the book's title and optionally the first photo, in the book's theme.
 *
 * Layout and line breaking are satori's (flexbox + HarfBuzz shaping, text is
 * drawn as outlines from the theme's .ttf files, so escaping and fonts are its
 * business); resvg rasterises the SVG without any system font; sharp crops the
 * photo and lays it on the right-hand side.
 */

export const SHARE_CARD_WIDTH = 1200;
export const SHARE_CARD_HEIGHT = 630;

export interface ShareCardInput {
  text: string;
  contributorName: string;
  bookTitle: string;
  /** One of the export themes; an unknown one falls back to the default theme. */
  theme: string;
  /** The first photo; cover-cropped into the right-hand part. An unreadable photo is left out, not an error. */
  photoPath?: string | null;
  /** The book's cover's focal point when the photo is the cover: the card crops around it (focal-crop.ts), else around the detected subject. */
  photoFocal?: FocalPoint | null;
}

const PHOTO_WIDTH = 470;
/** More than fits on any card: satori need not lay out a whole essay only to clamp it. */
const MAX_TEXT_CHARS = 600;

export async function renderShareCard(input: ShareCardInput): Promise<Buffer> {
  const style = themeStyle(input.theme);
  const photo = input.photoPath ? await preparePhoto(input.photoPath, input.photoFocal ?? null) : null;
  const faces = withFallbacks(style, input);
  const fonts = await Promise.all(
    faces.map(async (f) => ({ name: f.family, data: await loadFontFile(f), weight: f.weight, style: f.style })),
  );
  const width = SHARE_CARD_WIDTH - (photo ? PHOTO_WIDTH : 0);
  // Loaded with the first card: satori and resvg are heavy to load and most processes draw no card for a while.
  const [{ default: satori }, { Resvg }, sharp] = await Promise.all([import('satori'), import('@resvg/resvg-js'), loadSharp()]);
  const svg = await satori(layout(style, input, width) as Parameters<typeof satori>[0], { width: SHARE_CARD_WIDTH, height: SHARE_CARD_HEIGHT, fonts, graphemeImages: emojiImages(input) });
  const png = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: 'original' } }).render().asPng();
  const card = sharp(png);
  if (photo) card.composite([{ input: photo, left: SHARE_CARD_WIDTH - PHOTO_WIDTH, top: 0 }]);
  return card.png({ compressionLevel: 8 }).toBuffer();
}

/**
 * The emoji of the card's words, title and name as pictures (satori draws a grapheme it has a picture for as
 * that picture, before any font): Twemoji's, so a card shows emoji in colour, a skin tone or a joined
 * sequence (a family, a flag) as one picture, as the printed book does (emoji-pictures.ts).
 */
function emojiImages(input: ShareCardInput): Record<string, string> {
  const images: Record<string, string> = {};
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const text of [input.text.slice(0, MAX_TEXT_CHARS * 2), input.bookTitle, input.contributorName]) {
    for (const { segment } of segmenter.segment(text)) {
      if (segment in images || !/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment)) continue;
      const svg = emojiSvg(segment);
      if (svg) images[segment] = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    }
  }
  return images;
}

async function preparePhoto(file: string, focal: FocalPoint | null): Promise<Buffer | null> {
  const sharp = await loadSharp();
  try {
    const upright = sharp(file, { failOn: 'none' }).rotate(); // EXIF orientation
    let source = upright;
    if (focal) {
      const { data, info } = await upright.toBuffer({ resolveWithObject: true });
      const rect = cropRectAround({ w: info.width, h: info.height }, PHOTO_WIDTH / SHARE_CARD_HEIGHT, focal);
      source = sharp(data, { failOn: 'none' }).extract(rect);
    }
    return await source
      .resize(PHOTO_WIDTH, SHARE_CARD_HEIGHT, { fit: 'cover', position: sharp.strategy.attention })
      .removeAlpha()
      .png()
      .toBuffer();
  } catch {
    return null; // e.g. HEIC, which the bundled libvips cannot decode: the card is still worth having
  }
}

interface Node {
  type: 'div';
  props: { style: Record<string, string | number>; children?: string | Array<Node | null> };
}

const div = (style: Node['props']['style'], children?: Node['props']['children']): Node => ({ type: 'div', props: { style, children } });

/** A face's own fallback families in the chain's order (a serif face's Greek in a serif, a sans face's in Noto Sans). */
const fallbackFamilies = (f: FontFace) => [...new Set(fontChain(f).slice(1).map((fb) => fb.family))].join(', ');

function font(f: FontFace): Node['props']['style'] {
  return { fontFamily: `${f.family}, ${fallbackFamilies(f)}`, fontWeight: f.weight, fontStyle: f.style };
}

/**
 * The theme's faces and the fallbacks the card's words need (found with the
 * PDF's run splitter): a card in Latin script loads no CJK face.
 */
export function withFallbacks(style: ThemeStyle, input: ShareCardInput): FontFace[] {
  const faces = themeFaces(style);
  const seen = new Set(faces.map((f) => `${f.package}/${f.file}`));
  const pieces: [FontFace, string][] = [
    [style.quote, input.text.slice(0, MAX_TEXT_CHARS * 2) + '\u201C'],
    [style.title, input.bookTitle],
    [style.body, input.contributorName],
  ];
  for (const [face, text] of pieces) {
    const chain = fontChain(face);
    for (const run of splitRuns(text, (i, cp) => faceCovers(chain[i])(cp), chain.length)) {
      const f = chain[run.face];
      const key = `${f.package}/${f.file}`;
      if (!seen.has(key)) {
        seen.add(key);
        faces.push(f);
      }
    }
  }
  return faces;
}

const PAD_X = 72;
const PAD_Y = 60;
const QUOTE_LINE_HEIGHT = 1.32;
const QUOTE_MARK_HEIGHT = 56;
/** Height left for the words between the title row, the quote mark and the name row. */
const QUOTE_BOX_HEIGHT = 326;

function layout(style: ThemeStyle, input: ShareCardInput, width: number): Node {
  const { palette } = style;
  const text = tidy(input.text);
  const innerWidth = width - 2 * PAD_X;
  const { fontSize, lines } = fitText(text, innerWidth, style);
  const title = fixEmojiSpacing(oneLine(input.bookTitle));
  const name = oneLine(input.contributorName);
  const notebook = style.theme === 'daily_journal';

  return div(
    {
      width: SHARE_CARD_WIDTH,
      height: SHARE_CARD_HEIGHT,
      display: 'flex',
      backgroundColor: palette.background,
    },
    [
      // A notebook's red margin line.
      notebook ? div({ position: 'absolute', left: 44, top: 0, width: 2, height: SHARE_CARD_HEIGHT, backgroundColor: palette.accent, opacity: 0.45 }) : null,
      div(
        // satori sizes the content box: width and height here leave the padding out.
        { width: innerWidth, height: SHARE_CARD_HEIGHT - 2 * PAD_Y, display: 'flex', flexDirection: 'column', padding: `${PAD_Y}px ${PAD_X}px`, position: 'relative' },
        [
          FRAMED.has(style.theme)
            ? div({ position: 'absolute', left: 24, top: 24, width: width - 48 - 3, height: SHARE_CARD_HEIGHT - 48 - 3, border: `1.5px solid ${palette.accent}`, opacity: 0.55 })
            : null,
          // Title row: a short rule, then the book's title on one line.
          div({ display: 'flex', alignItems: 'center', height: 56 }, [
            div({ width: 40, height: 3, backgroundColor: palette.accent, marginRight: 18, flexShrink: 0 }),
            div(
              {
                ...font(style.title),
                fontSize: style.title.family === 'Great Vibes' ? 44 : style.titleUppercase ? 23 : 30,
                ...(style.title.family === 'Great Vibes' ? { wordSpacing: 8 } : {}),
                letterSpacing: style.titleUppercase ? 3 : 0,
                textTransform: style.titleUppercase ? 'uppercase' : 'none',
                color: palette.accent,
                display: 'block',
                whiteSpace: 'nowrap',
                overflow: 'hidden',
                textOverflow: 'ellipsis',
                flexShrink: 1,
                minWidth: 0,
              },
              title,
            ),
          ]),
          // The words under a large opening quote mark, centred in the space between.
          div({ display: 'flex', flexDirection: 'column', justifyContent: 'center', flexGrow: 1 }, text ? [
            div({ height: QUOTE_MARK_HEIGHT, position: 'relative', display: 'flex' }, [
              div(
                { ...font(style.quote), position: 'absolute', left: -4, top: -22, fontSize: 130, lineHeight: 1, color: palette.accent, opacity: 0.35 },
                '\u201C',
              ),
            ]),
            div(
              {
                ...font(style.quote),
                fontSize,
                lineHeight: QUOTE_LINE_HEIGHT,
                color: palette.text,
                display: 'block',
                lineClamp: lines,
                width: innerWidth,
              },
              text,
            ),
          ] : []),
          name
            ? div(
                { ...font(style.body), fontSize: 28, color: palette.muted, display: 'block', whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', height: 40, marginTop: 14, flexShrink: 0 },
                `\u2014 ${fixEmojiSpacing(name)}`,
              )
            : null,
        ],
      ),
    ],
  );
}

/** Themes whose card gets a thin inner frame, like their printed pages. */
const FRAMED = new Set(['elegant_classic', 'heirloom_gallery', 'memorial_service', 'wedding_album', 'retirement_tribute', 'botanical_luxe']);

function oneLine(raw: string): string {
  return Array.from(raw.replace(/\s+/g, ' ').trim()).slice(0, 200).join(''); // by code point: never half an emoji
}

/** One paragraph, at most MAX_TEXT_CHARS, cut at a word with an ellipsis. */
function tidy(raw: string): string {
  let text = raw.replace(/\s+/g, ' ').trim();
  if (text.length > MAX_TEXT_CHARS) {
    const cut = Array.from(text).slice(0, MAX_TEXT_CHARS).join('');
    const space = cut.lastIndexOf(' ');
    text = (space > MAX_TEXT_CHARS * 0.8 ? cut.slice(0, space) : cut).replace(/[\s.,;:!?\-\u2014]+$/u, '') + '\u2026';
  }
  return fixEmojiSpacing(text);
}

/**
 * satori draws the space after an emoji with the emoji font, whose space is
 * very wide; a no-break space plus a zero-width space looks right and still
 * lets the line break there.
 */
function fixEmojiSpacing(text: string): string {
  return text.replace(/(\p{Extended_Pictographic}[\u{FE0F}\u{200D}\p{Extended_Pictographic}\p{Emoji_Modifier}]*) /gu, '$1\u00A0\u200B');
}

/** Average advance of a character, in em, for the estimate below; script and handwriting faces run narrower. */
function charWidthEm(f: FontFace): number {
  if (f.family === 'Patrick Hand' || f.family === 'Cormorant Garamond') return 0.42;
  if (f.style === 'italic') return 0.47;
  return 0.52;
}

/**
 * The largest size at which the words probably fit, and how many lines the
 * box holds at that size: satori clamps there with an ellipsis, so a wrong
 * guess costs looks, never overflow.
 */
function fitText(text: string, boxWidth: number, style: ThemeStyle): { fontSize: number; lines: number } {
  const sizes = [64, 58, 52, 46, 42, 39, 36];
  const em = charWidthEm(style.quote);
  for (const size of sizes) {
    const lines = Math.floor(QUOTE_BOX_HEIGHT / (size * QUOTE_LINE_HEIGHT));
    const perLine = boxWidth / (size * em);
    // Word wrapping wastes part of each line; 0.85 keeps the guess on the safe side.
    const needed = Math.ceil(text.length / (perLine * 0.85));
    if (needed <= lines) return { fontSize: size, lines };
  }
  const size = sizes[sizes.length - 1]!;
  return { fontSize: size, lines: Math.floor(QUOTE_BOX_HEIGHT / (size * QUOTE_LINE_HEIGHT)) };
}
