import PDFDocument from 'pdfkit';
import { randomUUID } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { isJapanese } from '../../media-tools/font-fallback.js';
import { themeStyle } from '../../media-tools/themes.js';
import { mm, TRIM_MM } from './geometry.js';
import { luminance } from './pdf-book.js';
import { drawFrame, PDF_LOOKS } from './pdf-themes.js';
import { prepareCroppedPicture } from './pictures.js';
import { makePdfX4, type PdfKitDoc } from './print-ready.js';
import { breakLines, keepNumbersWithWords, LINING_FIGURES, type Line, type TextStyle } from './text-layout.js';
import { baselineOffset, drawLine, registerThemeFaces } from './typeset.js';

/**
 * The cover of a bound book, as print providers take it: one sheet, back
 * cover on the left, the spine, the front cover on the right, with the
 * bleed around it all. The spine is as wide as the interior is thick:
 * its page count times the paper's caliper (per page). The title runs down
 * the spine when the spine is wide enough to carry it; the front carries a
 * photo (cropped to its frame, centre of interest kept) above the title.
 * PDF/X-4, like the interior.
 */

/** Below this the spine carries no words (print providers ask for about 6 mm). */
export const SPINE_TEXT_MIN_MM = 6;

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
  /** A readable file of the cover photo, or null for a typographic cover. */
  photo: { path: string } | null;
  output: NodeJS.WritableStream;
  now?: Date;
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
  const look = PDF_LOOKS[style.theme];
  const p = style.palette;
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
    const { faces, fallbacks, measure } = registerThemeFaces(doc, style, { japanese: isJapanese(input.title, input.subtitle) });
    doc.addPage({ size: [W, H], margin: 0 });
    const dict = (doc.page as unknown as { dictionary: { data: Record<string, unknown> } }).dictionary.data;
    dict.TrimBox = [b, b, W - b, H - b];
    dict.BleedBox = [0, 0, W, H];
    x4.onPage();

    doc.rect(0, 0, W, H).fill(p.background);
    const back = { x: b, y: b, w: T, h: T };
    const front = { x: b + T + S, y: b, w: T, h: T };
    const centred = (lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, colour: string) => {
      let at = top;
      for (const l of lines) {
        drawLine(doc, l, box.x + (box.w - l.width) / 2, at + baselineOffset(s), s, colour);
        at += s.size * s.leading;
      }
      return at;
    };
    const fitTitle = (width: number, maxLines: number, from: number, to: number) => {
      const text = keepNumbersWithWords(style.titleUppercase ? input.title.toUpperCase() : input.title);
      let s: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: to, leading: 1.15, features: LINING_FIGURES };
      let lines: Line[] = [];
      for (let size = from; size >= to; size -= 2) {
        s = { face: faces.title, fallbacks: fallbacks.title, size, leading: 1.15, characterSpacing: style.titleUppercase ? size * 0.06 : 0, features: LINING_FIGURES };
        lines = breakLines(measure, text, s, width);
        if (lines.length <= maxLines) break;
      }
      return { lines, s };
    };

    // ---- front ----
    let photoPpi: number | null = null;
    const photo = input.photo ? await prepareCroppedPicture(input.photo.path, { w: T + b, h: b + T * 0.62 }, p.background) : null;
    const textBox = { x: front.x + mm(18), w: T - mm(36) };
    if (photo) {
      // Full bleed at the top and the outer edge; the title sits on the page colour below.
      doc.image(photo.jpeg, front.x, 0, { width: T + b, height: b + T * 0.62 });
      photoPpi = Math.round(photo.ppi);
      const title = fitTitle(textBox.w, 2, 34, 18);
      let at = b + T * 0.62 + mm(12);
      at = centred(title.lines, title.s, textBox, at, p.text);
      if (input.subtitle) centred(breakLines(measure, input.subtitle, { face: faces.quote, fallbacks: fallbacks.quote, size: 13, leading: 1.3 }, textBox.w).slice(0, 2), { face: faces.quote, fallbacks: fallbacks.quote, size: 13, leading: 1.3 }, textBox, at + mm(3), p.muted);
    } else {
      drawFrame(doc, look.coverFrame === 'none' ? 'hairline' : look.coverFrame, front, mm(12), p.accent, 0.9);
      look.ornament(doc, front.x + T / 2, front.y + mm(58), 1.25, p);
      const title = fitTitle(textBox.w, 3, 40, 20);
      const height = title.lines.length * title.s.size * title.s.leading;
      let at = front.y + mm(105) - height / 2;
      at = centred(title.lines, title.s, textBox, at, p.text);
      if (input.subtitle) {
        const sub: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: 15, leading: 1.35 };
        centred(breakLines(measure, input.subtitle, sub, textBox.w).slice(0, 3), sub, textBox, at + mm(6), p.muted);
      }
    }

    // ---- spine ----
    if (S > 0) doc.rect(b + T, 0, S, H).fill(p.accent);
    if (spineMm >= SPINE_TEXT_MIN_MM) {
      // Read from the top down (the convention for books in Latin script): turned a quarter clockwise.
      const size = Math.min(S * 0.5, 14);
      const s: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size, leading: 1, characterSpacing: style.titleUppercase ? size * 0.06 : 0, features: LINING_FIGURES };
      let [line] = breakLines(measure, (style.titleUppercase ? input.title.toUpperCase() : input.title).replace(/\s+/g, ' '), s, Number.MAX_SAFE_INTEGER);
      const room = T - mm(30);
      let used = s;
      if (line && line.width > room) {
        used = { ...s, size: Math.max(6, (size * room) / line.width) };
        [line] = breakLines(measure, input.title.replace(/\s+/g, ' '), used, Number.MAX_SAFE_INTEGER);
      }
      if (line) {
        const cx = b + T + S / 2;
        const cy = H / 2;
        doc.save().rotate(90, { origin: [cx, cy] });
        const spineInk = luminance(p.accent) < 0.35 ? p.background : p.text;
        drawLine(doc, line, cx - line.width / 2, cy + used.size * 0.35, used, spineInk);
        doc.restore();
      }
    }

    // ---- back ----
    look.ornament(doc, back.x + T / 2, back.y + T * 0.42, 1.1, p);
    const small: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: 9.5, leading: 1.4 };
    const count = input.memoryCount === 1 ? '1 memory' : `${input.memoryCount.toLocaleString('en-GB')} memories`;
    centred(breakLines(measure, `${input.title} · ${count}`, small, T - mm(60)).slice(0, 2), small, { x: back.x + mm(30), w: T - mm(60) }, back.y + T - mm(30), p.text);

    doc.end();
    await written;
    return { spineMm, widthMm, heightMm, photoPpi };
  } catch (err) {
    doc.unpipe(input.output as NodeJS.WritableStream);
    (input.output as NodeJS.WritableStream & { destroy?(e?: Error): void }).destroy?.(err as Error);
    throw err;
  }
}
