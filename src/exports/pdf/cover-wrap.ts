import PDFDocument from 'pdfkit';
import { randomUUID } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { isJapanese } from '../../media-tools/font-fallback.js';
import { themeStyle } from '../../media-tools/themes.js';
import { coverPhotoBox, drawBackCover, drawFrontCover, drawSpine, type BackText, type Panel } from './covers.js';
import { mm, TRIM_MM } from './geometry.js';
import { prepareCroppedPicture } from './pictures.js';
import { printBox } from './covers/drawing.js';
import { makePdfX4, type PdfKitDoc } from './print-ready.js';
import { registerThemeFaces } from './typeset.js';
import { bookWords } from './book-words.js';

export { SPINE_TEXT_MIN_MM } from './covers.js';

/**
 * The cover of a bound book, as print providers take it: one sheet, back
 * cover on the left, the spine, the front cover on the right, with the
 * bleed around it all. The spine is as wide as the interior is thick:
 * its page count times the paper's caliper (per page). Front, spine and
 * back are the theme's own (covers.ts): the front is the one the book
 * opens with on screen. PDF/X-4, like the interior.
 */

export interface CoverWrapInput {
  title: string;
  subtitle: string;
  theme: string;
  bleedMm: number;
  /** Pages of the interior. */
  pageCount: number;
  /** Thickness of one page (half a leaf), mm. */
  caliperMm: number;
  memoryCount: number;
  /** A readable file of the cover photo (with the subject stored when it was processed, if any), or null for a typographic cover. */
  photo: { path: string; subject?: unknown } | null;
  /** Where the cover photo's subject is (the owner's `focal_point`); else its stored subject, else detected. */
  photoFocal?: { x: number; y: number } | null;
  /** What the back cover says: a short memory, and when the memories were written. */
  back?: BackText;
  output: NodeJS.WritableStream;
  now?: Date;
  /** The book's language (its owner's `settings.language`): the back cover's own words are set in it; English when unset. */
  language?: string | null;
}

export interface CoverWrapResult {
  spineMm: number;
  /** The whole sheet, bleed included. */
  widthMm: number;
  heightMm: number;
  /** Print resolution of the cover photo (pixels per inch), null without one. */
  photoPpi: number | null;
}

/** The spine's width for an interior of `pageCount` pages. */
export function spineWidthMm(pageCount: number, caliperMm: number): number {
  return Math.round(pageCount * caliperMm * 1000) / 1000;
}

export async function renderCoverWrap(input: CoverWrapInput): Promise<CoverWrapResult> {
  const style = themeStyle(input.theme);
  const spineMm = spineWidthMm(input.pageCount, input.caliperMm);
  const widthMm = 2 * input.bleedMm + 2 * TRIM_MM + spineMm;
  const heightMm = 2 * input.bleedMm + TRIM_MM;
  const [W, H, b, T, S] = [mm(widthMm), mm(heightMm), mm(input.bleedMm), mm(TRIM_MM), mm(spineMm)];
  const doc = new PDFDocument({
    size: [W, H],
    autoFirstPage: false,
    margin: 0,
    compress: true,
    pdfVersion: '1.6',
    info: { Title: `${input.title} (cover)`, Creator: 'memorybook', Producer: 'memorybook (PDFKit)' },
  });
  const written = finished(input.output);
  written.catch(() => {});
  doc.pipe(input.output as NodeJS.WritableStream);
  try {
    const x4 = makePdfX4(doc as unknown as PdfKitDoc, { title: `${input.title} (cover)`, now: input.now ?? new Date(), documentId: randomUUID() });
    const kit = { doc, style, title: input.title, subtitle: input.subtitle, memoryCount: input.memoryCount, words: bookWords(input.language), ...registerThemeFaces(doc, style, { japanese: isJapanese(input.title, input.subtitle) }) };
    doc.addPage({ size: [W, H], margin: 0 });
    const dict = (doc.page as unknown as { dictionary: { data: Record<string, unknown> } }).dictionary.data;
    dict.TrimBox = [b, b, W - b, H - b];
    dict.BleedBox = [0, 0, W, H];
    x4.onPage();

    // The panels meet at the folds: no bleed there, the spine runs between them.
    const back: Panel = { trim: { x: b, y: b, w: T, h: T }, bleed: { top: b, right: 0, bottom: b, left: b } };
    const front: Panel = { trim: { x: b + T + S, y: b, w: T, h: T }, bleed: { top: b, right: b, bottom: b, left: 0 } };
    let photoPpi: number | null = null;
    const box = coverPhotoBox(style.theme, front);
    const photo = input.photo ? await prepareCroppedPicture(input.photo, box, style.palette.background, input.photoFocal ?? undefined) : null;
    // As printed: a small original is set smaller than the design's box (see printBox), at 200 ppi or more.
    if (photo) photoPpi = Math.round((photo.widthPx * 72) / printBox(photo, box).w);
    drawBackCover(kit, back, input.back ?? { quote: null, dates: null });
    drawFrontCover(kit, front, photo);
    drawSpine(kit, { x: b + T, y: 0, w: S, h: H }, T, spineMm);

    doc.end();
    await written;
    return { spineMm, widthMm, heightMm, photoPpi };
  } catch (err) {
    doc.unpipe(input.output as NodeJS.WritableStream);
    (input.output as NodeJS.WritableStream & { destroy?(e?: Error): void }).destroy?.(err as Error);
    throw err;
  }
}
