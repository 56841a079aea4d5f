import PDFDocument from 'pdfkit';
import { finished } from 'node:stream/promises';
import { isJapanese } from '../../media-tools/font-fallback.js';
import { themeStyle } from '../../media-tools/themes.js';
import { bookGeometry, mm, type Box } from './geometry.js';
import { drawFrame, mountPadding, PDF_LOOKS } from './pdf-themes.js';
import { photoLayout, type Cell } from './photo-layout.js';
import { aspectOf, prepareCroppedPicture, type PreparedPicture } from './pictures.js';
import { makePdfX4, type PdfKitDoc } from './print-ready.js';
import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import { guessLanguage, hyphenatorFor } from './hyphenation.js';
import { breakLines, keepNumbersWithWords, LINING_FIGURES, normalizeText, smartPunctuation, type Line, type TextStyle } from './text-layout.js';
import { baselineOffset, drawLine as drawLineOn, registerThemeFaces } from './typeset.js';

/**
 * The printed book: a cover with the title and subtitle, then the approved
 * memories in book order, each with its photos and video poster frames,
 * its words, who wrote it and when; page numbers; the theme's typefaces
 * (embedded), colours and ornament. Pages are 210 mm square plus the bleed,
 * with TrimBox and BleedBox set, and the gutter added to the inner margin.
 *
 * It streams: PDFKit writes each page out when the next one starts and each
 * picture when it is placed, memories are read a chunk at a time, and only
 * a few pictures are prepared ahead, so memory stays flat whatever the size
 * of the book.
 */

export interface PdfPicture {
  /** Object-store key of a photo, or of a video's poster frame. */
  key: string;
  kind: 'photo' | 'video';
}

export interface PdfMemory {
  id: string;
  text: string;
  /** Who signed it; null when nobody is named. */
  signature: string | null;
  /** ISO timestamp of when it was sent. */
  date: string;
  pinned: boolean;
  pictures: PdfPicture[];
  /**
   * Its voice recordings and videos: each prints as a QR code to the page where it plays (`url`), with
   * what it is and how long; without a url only the words.
   */
  recordings: { kind: 'audio' | 'video'; url: string | null; duration: number | null }[];
}

export interface PdfBookInput {
  title: string;
  subtitle: string;
  theme: string;
  bleedMm: number;
  gutterMm: number;
  memoryCount: number;
  memories: AsyncIterable<PdfMemory>;
  /**
   * A readable file of a stored picture. A picture whose object is gone
   * should reject with a `missing` error (it is left out); any other
   * failure fails the render, so it is retried rather than printed without it.
   */
  openPicture(key: string): Promise<{ path: string; release(): Promise<void> }>;
  /** Whether an error of openPicture means the picture is simply gone. */
  isMissing?(err: unknown): boolean;
  /** Told about each picture left out (gone, or not decodable). */
  onPictureSkipped?(key: string, reason: string): void;
  output: NodeJS.WritableStream;
  signal?: AbortSignal;
  now?: Date;
  /**
   * For a print provider (the `shop` intent): PDF/X-4 with its output
   * intent, a page count that is a multiple of 4 (closing with notes pages
   * and a last page), and no small text reversed out of a dark page.
   */
  printReady?: boolean;
  /** Told what the book is made of as it is drawn (read-back tests); changes nothing in the PDF. */
  trace?: BookTrace;
}

/**
 * What each page is: designed pages (the cover and its verso, a quote page, notes pages, the last
 * page) are not filled with memories and may be mostly empty.
 */
export type PageKind = 'cover' | 'verso' | 'memories' | 'quote' | 'notes' | 'end';

export interface BookTrace {
  /** A page as it is begun, or again when what it is becomes known (a quote page). */
  page?(n: number, kind: PageKind): void;
  /**
   * A line of a memory's words as it is drawn, on page n: its baseline (points from the page's top
   * edge), the column it is set in, whether it was set flush on both sides, whether it ends its paragraph.
   */
  line?(n: number, memoryId: string, line: { baseline: number; column: { x: number; w: number }; justified: boolean; last: boolean; dir: 'ltr' | 'rtl'; align: 'left' | 'center' }): void;
}

export interface PdfBookResult {
  pageCount: number;
  pictures: number;
  memories: number;
  /** The picture for the cover: the first pinned memory's first photo, else the book's first photo; null when it has none. */
  coverPictureKey: string | null;
  /** Photos that print below MIN_PRINT_PPI at their size in the book. */
  lowResolution: { key: string; ppi: number }[];
}

/** Pictures prepared ahead of the page being laid out, and how many at once. */
const LOOKAHEAD_PICTURES = 6;
const PREPARE_CONCURRENCY = 2;

const GAP = 8;
/** Side of a printed QR code: 22 mm reads from a phone held at a book's distance. */
const QR_SIZE = mm(22);
/** Memories longer than this (characters) are set as text, not display type. */
const LONG_TEXT_CHARS = 480;
/** Below this a photo prints soft: the job says so in its warnings. */
export const MIN_PRINT_PPI = 200;
const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export async function renderPdfBook(input: PdfBookInput): Promise<PdfBookResult> {
  const style = themeStyle(input.theme);
  const look = PDF_LOOKS[style.theme];
  const p = style.palette;
  const g = bookGeometry(input.bleedMm, input.gutterMm, look.margins);
  const doc = new PDFDocument({
    size: [g.page, g.page],
    autoFirstPage: false,
    margin: 0,
    bufferPages: false,
    compress: true,
    pdfVersion: input.printReady ? '1.6' : '1.7', // PDF/X-4 is based on PDF 1.6
    displayTitle: true,
    lang: 'en',
    info: { Title: input.title, Subject: input.subtitle || 'A memory book', Creator: 'memorybook', Producer: 'memorybook (PDFKit)' },
  });
  const printX4 = input.printReady ? makePdfX4(doc as unknown as PdfKitDoc, { title: input.title, now: input.now ?? new Date(), documentId: randomUUID() }) : null;
  // Dark pages: small print there is set larger and in the text colour, as thin grey type reversed out of ink fills in on press.
  const reversed = luminance(p.background) < 0.35;
  const smallest = (size: number) => (input.printReady && reversed ? Math.max(size, 9) : size);
  const smallColour = input.printReady && reversed ? p.text : p.muted;
  const written = finished(input.output);
  written.catch(() => {});
  doc.pipe(input.output as NodeJS.WritableStream);

  // Each memory takes the Japanese face for its kanji when it is Japanese; the book's own lines when its title is.
  const bookIsJapanese = isJapanese(input.title, input.subtitle);
  const { faces, fallbacks, fallbacksFor, measure } = registerThemeFaces(doc, style, { japanese: bookIsJapanese });

  let pageNo = 0;
  let content: Box = g.content(1);
  let y = 0;
  let pictureCount = 0;
  let memoryCount = 0;

  function newPage(kind: PageKind): number {
    doc.addPage({ size: [g.page, g.page], margin: 0 });
    pageNo++;
    input.trace?.page?.(pageNo, kind);
    const dict = (doc.page as unknown as { dictionary: { data: Record<string, unknown> } }).dictionary.data;
    dict.TrimBox = g.trimBox;
    dict.BleedBox = g.bleedBox;
    printX4?.onPage();
    // The background runs into the bleed, so nothing white shows at a trimmed edge.
    doc.rect(0, 0, g.page, g.page).fill(p.background);
    return pageNo;
  }

  function memoryPage() {
    // A memory still being set goes on overleaf: what it drew here is continued there.
    const open = groups.at(-1);
    const carried = open && !open.closed ? open : null;
    if (carried && carried.ops.length) carried.flowsOn = true;
    if (carried && !carried.ops.length) groups.pop();
    flushPage();
    const n = newPage('memories');
    content = g.content(n);
    y = content.y;
    const t = g.trimmed();
    // The frame is centred on the text column (which the gutter moves), not on the trimmed page.
    if (look.pageFrame !== 'none') drawFrame(doc, look.pageFrame, { x: content.x - mm(11), y: t.y + mm(7), w: content.w + mm(22), h: t.h - mm(14) }, 0, p.accent, 0.5);
    // Running head: the book's title, small, over the text column.
    drawCentredLine(input.title.toUpperCase(), { face: faces.body, fallbacks: fallbacks.body, size: smallest(7), leading: 1, characterSpacing: 1.2, features: LINING_FIGURES }, content.x + content.w / 2, content.y - mm(7.5), smallColour, content.w);
    if (look.cornerOrnament) {
      // A sprig in the outer corners of the wide margins, turned towards the page.
      const outerX = g.isRecto(n) ? t.x + t.w - mm(18) : t.x + mm(18);
      for (const [cy, angle] of [[t.y + mm(16), g.isRecto(n) ? 35 : -35], [t.y + t.h - mm(16), g.isRecto(n) ? -35 : 35]] as const) {
        doc.save().rotate(angle, { origin: [outerX, cy] });
        look.ornament(doc, outerX, cy, 0.45, p);
        doc.restore();
      }
    }
    folio(n);
    if (carried) groups.push({ ops: [], top: y, bottom: y, continued: carried.ops.length > 0, flowsOn: false, closed: false, quote: carried.quote });
  }

  // ---- a page composed before it is drawn ----

  /** A drawing call, given how far down the page it is moved when the page is balanced. */
  type Op = (dy: number) => void;
  /** One memory's part of a page: what it draws, and where it starts and ends before balancing. */
  interface Group {
    ops: Op[];
    top: number;
    bottom: number;
    /** It began on an earlier page (so it stays at the top), or goes on to the next (so the page is full). */
    continued: boolean;
    flowsOn: boolean;
    closed: boolean;
    /** A short memory with no pictures (a QR code may go with it): alone on its page it is set as a quote page. */
    quote: boolean;
  }
  let groups: Group[] = [];
  const paint = (op: Op) => groups.at(-1)!.ops.push(op);

  /**
   * Draws the page's memories with its free space shared out: evenly above, between and below them
   * (the theme's ornament in the middle of each space between), so a page never hangs from the top.
   * A memory that began overleaf keeps its place at the top; a page a memory runs off is full already.
   * A short memory alone on its page becomes a quote page: centred, between two of the theme's ornaments.
   */
  function flushPage() {
    const list = groups.filter((gr) => gr.ops.length);
    groups = [];
    if (!list.length) return;
    const bottom = content.y + content.h;
    const last = list[list.length - 1];
    const pinnedTop = list[0].continued;
    const free = last.flowsOn ? 0 : Math.max(0, bottom - last.bottom + (pinnedTop ? 0 : list[0].top - content.y));
    const slots = list.length + (pinnedTop ? 0 : 1);
    const share = free / slots;
    // Where each group's top goes: the space before it is a share, the natural gap between groups stays.
    let shift = pinnedTop ? 0 : content.y - list[0].top + share;
    const shifts = list.map((gr, i) => {
      if (i > 0) shift += share;
      return shift;
    });
    const quotePage = list.length === 1 && list[0].quote && !list[0].continued && !list[0].flowsOn;
    if (quotePage) input.trace?.page?.(pageNo, 'quote');
    list.forEach((gr, i) => {
      if (look.cards) {
        // The card runs past the page's edge of the live area where the memory goes on from, or to, another page.
        const pad = mm(5);
        const top = gr.continued && i === 0 ? content.y - pad : gr.top + shifts[i] - pad;
        const end = gr.flowsOn ? bottom + pad : gr.bottom + shifts[i] + pad;
        doc.save().roundedRect(content.x - pad, top, content.w + 2 * pad, end - top, mm(5)).fillOpacity(0.85).fill('#FFFFFF').restore();
      }
      for (const op of gr.ops) op(shifts[i]);
      if (i > 0) {
        // The ornament between two memories, in the middle of the space between them.
        const above = list[i - 1].bottom + shifts[i - 1];
        const below = gr.top + shifts[i];
        if (below - above > 30) look.ornament(doc, content.x + content.w / 2, (above + below) / 2, 0.7, p);
      }
    });
    if (quotePage) {
      const gr = list[0];
      const cx = content.x + content.w / 2;
      look.ornament(doc, cx, Math.max(content.y + 8, gr.top + shifts[0] - mm(14)), 1, p);
      look.ornament(doc, cx, Math.min(bottom - 8, gr.bottom + shifts[0] + mm(14)), 1, p);
    }
  }

  function folio(n: number) {
    const cx = content.x + content.w / 2;
    const cy = g.trimmed().y + g.trim - mm(13);
    const s: TextStyle = { face: faces.body, fallbacks: [], size: smallest(8.5), leading: 1 };
    if (look.folio === 'disc') {
      doc.save().circle(cx, cy - 3, 9).fill(p.accent).restore();
      drawCentredLine(String(n), s, cx, cy, p.background, 40);
    } else {
      drawCentredLine(look.folio === 'dashes' ? `— ${n} —` : String(n), s, cx, cy, smallColour, 80);
    }
  }

  /** One line of text centred on cx with its baseline at `baseline`, shrunk to `maxWidth` if need be. */
  function drawCentredLine(text: string, s: TextStyle, cx: number, baseline: number, colour: string, maxWidth: number) {
    const [line] = breakLines(measure, text.replace(/\s+/g, ' '), s, Number.MAX_SAFE_INTEGER);
    if (!line) return;
    let size = s.size;
    if (line.width > maxWidth) size = Math.max(5, (s.size * maxWidth) / line.width);
    const scaled = size === s.size ? line : breakLines(measure, text.replace(/\s+/g, ' '), { ...s, size }, Number.MAX_SAFE_INTEGER)[0];
    drawLine(scaled, cx - scaled.width / 2, baseline, { ...s, size }, colour);
  }

  function drawLine(line: Line, x: number, baseline: number, s: TextStyle, colour: string, justifyTo?: number) {
    drawLineOn(doc, line, x, baseline, s, colour, justifyTo);
  }

  /** Where a line starts in a column: right-to-left paragraphs are set from the right edge. */
  function lineX(line: Line, box: { x: number; w: number }, align: 'left' | 'center'): number {
    if (align === 'center') return box.x + (box.w - line.width) / 2;
    return line.dir === 'rtl' ? box.x + box.w - line.width : box.x;
  }

  /** drawBlock as part of the page being composed (drawn when the page is balanced). */
  function paintBlock(lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, align: 'left' | 'center', colour: string): number {
    const b = { ...box };
    paint((dy) => drawBlock(lines, s, b, top + dy, align, colour));
    return top + lines.reduce((n, l) => n + s.size * s.leading + (l.paragraphStart ? s.size * s.leading * 0.45 : 0), 0);
  }

  /** Lines set in a column: returns the y below the last line. */
  function drawBlock(lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, align: 'left' | 'center', colour: string): number {
    const pitch = s.size * s.leading;
    let at = top;
    for (const line of lines) {
      if (line.paragraphStart) at += pitch * 0.45;
      drawLine(line, lineX(line, box, align), at + baselineOffset(s), s, colour);
      at += pitch;
    }
    return at;
  }

  // ---- cover, and its verso ----

  /** The title at the largest size that fits in `maxLines`, its lines balanced (no word left alone on the last one). */
  function fitTitle(maxWidth: number, maxLines: number, from: number, to: number): { lines: Line[]; style: TextStyle } {
    const text = keepNumbersWithWords(style.titleUppercase ? input.title.toUpperCase() : input.title);
    const styleAt = (size: number): TextStyle => ({ face: faces.title, fallbacks: fallbacks.title, size, leading: 1.15, characterSpacing: style.titleUppercase ? size * 0.06 : 0, features: LINING_FIGURES });
    let s = styleAt(to);
    let lines: Line[] = [];
    for (let size = from; size >= to; size -= 2) {
      s = styleAt(size);
      lines = breakLines(measure, text, s, maxWidth);
      if (lines.length <= maxLines) break;
    }
    if (lines.length > 1) {
      // The narrowest measure that still gives as many lines evens them out.
      let [lo, hi] = [maxWidth / 2, maxWidth];
      for (let i = 0; i < 12; i++) {
        const mid = (lo + hi) / 2;
        if (breakLines(measure, text, s, mid).length > lines.length) lo = mid;
        else hi = mid;
      }
      lines = breakLines(measure, text, s, hi);
    }
    return { lines, style: s };
  }

  function cover() {
    newPage('cover');
    const t = g.trimmed();
    const countLine = input.memoryCount === 1 ? '1 memory' : `${input.memoryCount.toLocaleString('en-GB')} memories`;
    const subtitleStyle: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: 15, leading: 1.35 };
    const smallCaps: TextStyle = { face: faces.body, fallbacks: [], size: 9, leading: 1, characterSpacing: 1.6, features: LINING_FIGURES };
    if (look.cover === 'journal') {
      // Lined paper with a margin rule; the title and subtitle are written on the lines.
      const rule = mm(9);
      const first = t.y + mm(27);
      doc.save().lineWidth(0.5).strokeColor(p.muted).strokeOpacity(0.3);
      for (let at = first; at < t.y + t.h - mm(10); at += rule) doc.moveTo(0, at).lineTo(g.page, at).stroke();
      doc.restore();
      doc.save().lineWidth(1).strokeColor(p.accent).strokeOpacity(0.75).moveTo(t.x + mm(26), 0).lineTo(t.x + mm(26), g.page).stroke().restore();
      const left = t.x + mm(33);
      const width = t.w - mm(50);
      const title = fitTitle(width, 3, 40, 22);
      let line = 6;
      for (const l of title.lines) {
        drawLine(l, left, first + rule * line - mm(1.2), title.style, p.text);
        line += title.style.size > 30 ? 2 : 1;
      }
      look.ornament(doc, left + 40, first + rule * line - rule / 2, 0.9, p);
      line += 1;
      if (input.subtitle) {
        const sub: TextStyle = { ...subtitleStyle, size: 17 };
        for (const l of breakLines(measure, input.subtitle, sub, width)) drawLine(l, left, first + rule * line++ - mm(1.2), sub, p.muted);
      }
      drawLine(breakLines(measure, countLine, { ...smallCaps, characterSpacing: 0, size: 12, face: faces.body }, width)[0], left, first + rule * 16 - mm(1.2), { ...smallCaps, characterSpacing: 0, size: 12 }, p.accent);
      return;
    }
    if (look.cover === 'editorial') {
      // A band of the accent colour across the top, the title set large and flush left in the lower half.
      doc.rect(0, 0, g.page, t.y + mm(46)).fill(p.accent);
      const left = t.x + mm(20);
      const width = t.w - mm(40);
      drawLine(breakLines(measure, countLine.toUpperCase(), smallCaps, width)[0], left, t.y + mm(36), smallCaps, p.background);
      const title = fitTitle(width, 4, 46, 22);
      let at = t.y + mm(96);
      at = drawBlock(title.lines, title.style, { x: left, w: width }, at, 'left', p.text);
      at += mm(5);
      look.ornament(doc, left + 45 * 0.5, at, 0.5, p);
      at += mm(8);
      if (input.subtitle) drawBlock(breakLines(measure, input.subtitle, subtitleStyle, width), subtitleStyle, { x: left, w: width }, at, 'left', p.muted);
      return;
    }
    if (look.cover === 'magazine') {
      // A magazine cover: the title as a masthead across the top, rules and an issue line, the subtitle as the cover line below.
      const left = t.x + mm(14);
      const width = t.w - mm(28);
      drawLine(breakLines(measure, countLine.toUpperCase(), smallCaps, width)[0], left, t.y + mm(14), smallCaps, p.muted);
      doc.save().rect(left, t.y + mm(17), width, 2.2).fill(p.accent).restore();
      const title = fitTitle(width, 3, 64, 28);
      let at = drawBlock(title.lines, { ...title.style, leading: 1.02 }, { x: left, w: width }, t.y + mm(22), 'left', p.text);
      at += mm(3);
      doc.save().lineWidth(0.6).strokeColor(p.muted).moveTo(left, at).lineTo(left + width, at).stroke().restore();
      if (input.subtitle) {
        const line: TextStyle = { ...subtitleStyle, size: 24, leading: 1.15 };
        const lines = breakLines(measure, input.subtitle, line, width * 0.7);
        const h = lines.length * line.size * line.leading;
        doc.save().rect(left, t.y + t.h - mm(22) - h - mm(6), mm(18), 3).fill(p.accent).restore();
        drawBlock(lines, line, { x: left, w: width }, t.y + t.h - mm(22) - h, 'left', p.text);
      }
      return;
    }
    if (look.cover === 'certificate') {
      // Like a certificate: a heavy double frame with corner stars, "in honour of", the title between rules, a line to sign.
      drawFrame(doc, 'double', t, mm(9), p.accent, 1.4);
      drawFrame(doc, 'corners', t, mm(16), p.accent, 0.8);
      const width = t.w - mm(64);
      const cx = t.x + t.w / 2;
      drawCentredLine('IN HONOUR OF', { ...smallCaps, size: 10, characterSpacing: 3 }, cx, t.y + mm(56), p.accent, width);
      const title = fitTitle(width, 3, 34, 18);
      const titleHeight = title.lines.length * title.style.size * title.style.leading;
      doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, t.y + mm(64)).lineTo(cx + width / 2, t.y + mm(64)).stroke().restore();
      let at = t.y + mm(68);
      at = drawBlock(title.lines, title.style, { x: cx - width / 2, w: width }, at, 'center', p.text);
      at = Math.max(at, t.y + mm(68) + titleHeight) + mm(4);
      doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, at).lineTo(cx + width / 2, at).stroke().restore();
      if (input.subtitle) at = drawBlock(breakLines(measure, input.subtitle, subtitleStyle, width), subtitleStyle, { x: cx - width / 2, w: width }, at + mm(7), 'center', p.muted);
      look.ornament(doc, cx, Math.max(at + mm(14), t.y + mm(150)), 1.2, p);
      doc.save().lineWidth(0.5).strokeColor(p.muted).moveTo(cx - mm(35), t.y + t.h - mm(38)).lineTo(cx + mm(35), t.y + t.h - mm(38)).stroke().restore();
      drawCentredLine(countLine.toUpperCase(), smallCaps, cx, t.y + t.h - mm(32), p.muted, width);
      return;
    }
    if (look.cover === 'gallery') {
      // A gallery plate: a large matted window in the accent colour, the title beneath it like a museum label.
      const plate = { x: t.x + mm(24), y: t.y + mm(20), w: t.w - mm(48), h: t.h * 0.52 };
      doc.save().rect(plate.x - mm(6), plate.y - mm(6), plate.w + mm(12), plate.h + mm(12)).fill('#FFFFFF').restore();
      doc.save().rect(plate.x, plate.y, plate.w, plate.h).fill(p.accent).restore();
      look.ornament(doc, plate.x + plate.w / 2, plate.y + plate.h / 2, 1.6, { ...p, accent: p.background, muted: p.background });
      const width = t.w - mm(48);
      const title = fitTitle(width, 2, 30, 18);
      const at = drawBlock(title.lines, title.style, { x: plate.x, w: width }, plate.y + plate.h + mm(16), 'left', p.text);
      if (input.subtitle) drawBlock(breakLines(measure, input.subtitle, subtitleStyle, width), subtitleStyle, { x: plate.x, w: width }, at + mm(3), 'left', p.muted);
      drawLine(breakLines(measure, countLine.toUpperCase(), smallCaps, width)[0], plate.x, t.y + t.h - mm(20), smallCaps, p.muted);
      return;
    }
    if (look.cover === 'nursery') {
      // Polka dots all over, and the title on a big rounded label.
      doc.save().fillOpacity(0.35);
      for (let row = 0, yy = mm(8); yy < g.page; row++, yy += mm(16)) {
        for (let xx = row % 2 ? mm(16) : mm(8); xx < g.page; xx += mm(16)) doc.circle(xx, yy, mm(2.6)).fill(row % 3 ? p.accent : p.muted);
      }
      doc.restore();
      const label = { x: t.x + mm(22), y: t.y + mm(50), w: t.w - mm(44), h: mm(110) };
      doc.save().roundedRect(label.x, label.y, label.w, label.h, mm(14)).fill('#FFFFFF').restore();
      doc.save().lineWidth(2.4).strokeColor(p.accent).roundedRect(label.x + mm(4), label.y + mm(4), label.w - mm(8), label.h - mm(8), mm(11)).stroke().restore();
      look.ornament(doc, t.x + t.w / 2, label.y + mm(20), 1.8, p);
      const width = label.w - mm(20);
      const title = fitTitle(width, 3, 46, 22);
      let at = label.y + mm(34);
      at = drawBlock(title.lines, title.style, { x: label.x + mm(10), w: width }, at, 'center', p.accent);
      if (input.subtitle) drawBlock(breakLines(measure, input.subtitle, subtitleStyle, width), subtitleStyle, { x: label.x + mm(10), w: width }, at + mm(4), 'center', p.text);
      drawCentredLine(countLine.toUpperCase(), smallCaps, t.x + t.w / 2, label.y + label.h - mm(9), p.muted, width);
      return;
    }
    const inset = look.cover === 'playful' ? mm(11) : mm(12);
    drawFrame(doc, look.coverFrame, t, inset, p.accent, look.cover === 'playful' ? 1.2 : 0.9);
    if (look.cover === 'playful') {
      look.ornament(doc, t.x + t.w / 2, t.y + mm(52), 2.2, p);
    } else {
      look.ornament(doc, t.x + t.w / 2, t.y + mm(58), 1.25, p);
    }
    const width = t.w - mm(56);
    const title = fitTitle(width, 3, look.cover === 'playful' ? 44 : 40, 20);
    const titleHeight = title.lines.length * title.style.size * title.style.leading;
    let at = t.y + mm(105) - titleHeight / 2;
    at = drawBlock(title.lines, title.style, { x: t.x + mm(28), w: width }, at, 'center', look.cover === 'playful' ? p.accent : p.text);
    if (input.subtitle) {
      at += mm(6);
      at = drawBlock(breakLines(measure, input.subtitle, subtitleStyle, width), subtitleStyle, { x: t.x + mm(28), w: width }, at, 'center', p.muted);
    }
    if (look.cover !== 'playful') look.ornament(doc, t.x + t.w / 2, Math.max(at + mm(12), t.y + mm(150)), 0.8, p);
    drawCentredLine(countLine.toUpperCase(), smallCaps, t.x + t.w / 2, t.y + t.h - mm(30), p.muted, width);
  }

  function coverVerso() {
    newPage('verso');
    const t = g.trimmed();
    const small: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: smallest(8.5), leading: 1.5 };
    const made = `Made with memorybook on ${DATE.format(input.now ?? new Date())}`;
    drawCentredLine(input.title, small, t.x + t.w / 2, t.y + t.h - mm(40), smallColour, t.w - mm(60));
    drawCentredLine(made, small, t.x + t.w / 2, t.y + t.h - mm(34), smallColour, t.w - mm(60));
  }

  // ---- the memories ----

  const quoteStyle = (pinned: boolean): TextStyle => ({
    face: faces.quote,
    fallbacks: fallbacks.quote,
    size: look.quoteSize + (pinned ? 1.5 : 0),
    leading: look.leading,
  });
  const longStyle: Omit<TextStyle, 'fallbacks'> = { face: faces.body, size: look.longSize, leading: look.longLeading };
  const bookSignatureStyle: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: smallest(look.captionSize), leading: 1.45, characterSpacing: look.captionCaps ? 0.9 : 0, features: LINING_FIGURES };
  /** A journal's entry heading: the day it was written. */
  const dateStyle: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: look.quoteSize + 3, leading: 1.2, features: LINING_FIGURES };
  const barIndent = look.quoteMark === 'bar' ? 16 : 0;

  /** The most of a page a memory's photos take, so its words can start below them. */
  const PHOTO_SHARE = look.photoShare;

  function pictureBox(cell: { w: number; h: number }) {
    const [top, right, bottom, left] = mountPadding(look.mount);
    return { w: cell.w - left - right, h: cell.h - top - bottom };
  }

  let running = 0;
  const waiting: (() => void)[] = [];
  async function limited<T>(fn: () => Promise<T>): Promise<T> {
    while (running >= PREPARE_CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  /** A QR code (black on a white square, whatever the page colour: phones read that best), linked as well on screen. */
  function drawQr(url: string, x: number, top: number) {
    const qr = QRCode.create(url, { errorCorrectionLevel: 'M' });
    const n = qr.modules.size;
    const quiet = 2;
    const cell = QR_SIZE / (n + 2 * quiet);
    doc.save().rect(x, top, QR_SIZE, QR_SIZE).fill('#FFFFFF');
    doc.fillColor('#000000');
    for (let r = 0; r < n; r++) {
      // One rectangle per run of dark modules along a row.
      for (let c = 0; c < n; ) {
        if (!qr.modules.get(r, c)) {
          c++;
          continue;
        }
        let end = c;
        while (end < n && qr.modules.get(r, end)) end++;
        doc.rect(x + (quiet + c) * cell, top + (quiet + r) * cell, (end - c) * cell + 0.05, cell + 0.05);
        c = end;
      }
    }
    doc.fill();
    doc.restore();
    // A link helps a reader of the PDF on screen; a print file carries none (a PDF/X preflight refuses annotations on the page).
    if (!input.printReady) doc.link(x, top, QR_SIZE, QR_SIZE, url);
  }

  type Placed = PreparedPicture & { kind: PdfPicture['kind']; cell: Cell };
  interface Ready {
    memory: PdfMemory;
    /** The photo block: its pictures cropped to their cells, and its height. */
    block: Promise<{ pictures: Placed[]; height: number }>;
  }

  async function openOrSkip(key: string) {
    input.signal?.throwIfAborted();
    try {
      return await input.openPicture(key);
    } catch (err) {
      if (input.isMissing?.(err)) {
        input.onPictureSkipped?.(key, 'gone from the store');
        return null;
      }
      throw err;
    }
  }

  function prepare(memory: PdfMemory): Ready {
    if (!memory.pictures.length) return { memory, block: Promise.resolve({ pictures: [], height: 0 }) };
    const block = limited(async () => {
      const copies: { pic: PdfPicture; copy: { path: string; release(): Promise<void> }; aspect: number }[] = [];
      try {
        for (const pic of memory.pictures) {
          const copy = await openOrSkip(pic.key);
          if (!copy) continue;
          const aspect = await aspectOf(copy.path);
          if (!aspect) {
            input.onPictureSkipped?.(pic.key, 'not a picture that can be decoded');
            await copy.release();
            continue;
          }
          copies.push({ pic, copy, aspect });
        }
        const box = g.content(1);
        const layout = photoLayout(copies.map((c) => c.aspect), box.w, box.h * PHOTO_SHARE, GAP * 2);
        const pictures: Placed[] = [];
        for (const [i, { pic, copy }] of copies.entries()) {
          const cell = layout.cells[i];
          const ready = await prepareCroppedPicture(copy.path, pictureBox(cell), p.background);
          if (!ready) {
            input.onPictureSkipped?.(pic.key, 'not a picture that can be decoded');
            continue;
          }
          if (ready.ppi < MIN_PRINT_PPI) lowResolution.push({ key: pic.key, ppi: Math.round(ready.ppi) });
          pictures.push({ ...ready, kind: pic.kind, cell });
        }
        return { pictures, height: pictures.length ? layout.height : 0 };
      } finally {
        for (const c of copies) await c.copy.release();
      }
    });
    block.catch(() => {}); // awaited when placed; a render that stops early must not leave it unhandled
    return { memory, block };
  }

  /** The memories with their pictures prepared a few ahead of the one being placed. */
  async function* ahead(source: AsyncIterable<PdfMemory>): AsyncGenerator<Ready> {
    const queue: Ready[] = [];
    const it = source[Symbol.asyncIterator]();
    let exhausted = false;
    const queued = () => queue.reduce((n, r) => n + r.memory.pictures.length, 0);
    for (;;) {
      while (!exhausted && (queue.length === 0 || (queued() < LOOKAHEAD_PICTURES && queue.length < 32))) {
        const next = await it.next();
        if (next.done) exhausted = true;
        else queue.push(prepare(next.value));
      }
      const ready = queue.shift();
      if (!ready) return;
      yield ready;
    }
  }

  const room = () => content.y + content.h - y;
  const atTop = () => y <= content.y + 0.5;

  function placePicture(pic: Placed, x: number, top: number) {
    const { width: w, height: h } = pic;
    switch (look.mount) {
      case 'border':
        doc.save().lineWidth(0.6).strokeColor(p.accent).rect(x - 5, top - 5, w + 10, h + 10).stroke().restore();
        break;
      case 'polaroid':
      case 'tape':
        doc.save().fillOpacity(0.14).rect(x - 6, top - 5, w + 16, h + 32).fill('#000000').restore();
        doc.save().rect(x - 8, top - 8, w + 16, h + 32).fill('#FFFFFF').restore();
        break;
      case 'mat':
        doc.save().fillOpacity(0.6).rect(x - 12, top - 12, w + 24, h + 24).fill('#FFFFFF').restore();
        doc.save().lineWidth(0.5).strokeColor(p.accent).rect(x - 12, top - 12, w + 24, h + 24).stroke().rect(x - 1.5, top - 1.5, w + 3, h + 3).stroke().restore();
        break;
      default:
        break;
    }
    if (look.mount === 'rounded') {
      doc.save().roundedRect(x, top, w, h, Math.min(14, w / 8)).clip();
      doc.image(pic.jpeg, x, top, { width: w, height: h });
      doc.restore();
    } else {
      doc.image(pic.jpeg, x, top, { width: w, height: h });
    }
    if (look.mount === 'tape') {
      for (const [tx, angle] of [
        [x + 4, -9],
        [x + w - 40, 8],
      ] as const) {
        doc.save().rotate(angle, { origin: [tx + 18, top - 6] }).fillOpacity(0.45).rect(tx, top - 13, 38, 14).fill(p.accent).restore();
      }
    }
    // The image's data went to the document: let go of it.
    pic.jpeg = Buffer.alloc(0);
    pictureCount++;
  }

  const lowResolution: { key: string; ppi: number }[] = [];
  let pinnedPicture: string | null = null;
  let firstPicture: string | null = null;
  async function placeMemory(ready: Ready) {
    const { memory } = ready;
    const photo = memory.pictures.find((x) => x.kind === 'photo')?.key ?? null;
    firstPicture ??= photo;
    if (memory.pinned) pinnedPicture ??= photo;
    input.signal?.throwIfAborted();
    const block = await ready.block;
    const text = smartPunctuation(memory.text);
    // Japanese writing takes the Japanese face before the Chinese one (its kanji in their Japanese forms).
    const fb = fallbacksFor(bookIsJapanese || isJapanese(memory.text, memory.signature));
    const signatureStyle: TextStyle = { ...bookSignatureStyle, fallbacks: fb.body };
    // Long memories are read, not glanced at: set in the text face, justified and hyphenated in their language, rather than as display type.
    const long = normalizeText(text).length > LONG_TEXT_CHARS;
    const qs: TextStyle = long ? { ...longStyle, fallbacks: fb.body, hyphenate: hyphenatorFor(guessLanguage(text)) } : { ...quoteStyle(memory.pinned), fallbacks: fb.quote };
    const align = long ? 'left' : look.align;
    // A magazine theme sets a long memory in two columns, the second balanced against the first on its last page.
    const columns = long ? look.longColumns : 1;
    const colGap = mm(6);
    const textWidth = columns === 2 ? (content.w - colGap) / 2 - barIndent : content.w - barIndent;
    let col = 0;
    const lines = breakLines(measure, text, qs, textWidth);
    const pitch = qs.size * qs.leading;
    const when = DATE.format(new Date(memory.date));
    // A caption theme sets the date in capitals; a name always prints as its writer spelt it.
    const signature = [memory.signature ? `— ${memory.signature}` : null, look.datedEntries ? null : look.captionCaps ? when.toUpperCase() : when].filter(Boolean).join(' · ');
    const sigLines = breakLines(measure, signature, signatureStyle, textWidth);
    // Recordings and videos: a QR code each, with what it is beside it, kept with the signature.
    const codes = memory.recordings.map((r) => {
      const length = r.duration ? ` (${Math.floor(r.duration / 60)}:${String(Math.round(r.duration % 60)).padStart(2, '0')})` : '';
      const what = r.kind === 'audio' ? `a voice recording${length}` : `the video${length}`;
      const caption = r.url ? `Scan to ${r.kind === 'audio' ? 'hear' : 'watch'} ${what}` : `With ${what}`;
      return { url: r.url, lines: breakLines(measure, caption, signatureStyle, textWidth - (r.url ? QR_SIZE + 10 : 0)) };
    });
    const codesHeight = codes.reduce((n, c) => n + 8 + (c.url ? QR_SIZE : c.lines.length * signatureStyle.size * signatureStyle.leading), 0);
    const sigHeight = 6 + sigLines.length * signatureStyle.size * signatureStyle.leading + codesHeight;
    const heading = look.datedEntries ? breakLines(measure, when, dateStyle, textWidth) : [];
    const markHeight = look.quoteMark === 'glyph' && !long ? 30 : heading.length ? heading.length * dateStyle.size * dateStyle.leading + 6 : 0;
    const picturesHeight = block.height ? block.height + GAP * 1.5 : 0;
    const textHeight = lines.reduce((n, l) => n + pitch + (l.paragraphStart ? pitch * 0.45 : 0), 0);
    const total = picturesHeight + markHeight + textHeight + sigHeight;

    // Keep a memory on one page when it fits on one, unless that leaves this page mostly empty: then it
    // starts here and goes on overleaf. It starts only where its photos, or two lines, fit.
    const opening = picturesHeight || markHeight + Math.min(lines.length, 2) * pitch + (lines.length <= 3 ? sigHeight : 0);
    const used = y - content.y;
    groups.push({ ops: [], top: y, bottom: y, continued: false, flowsOn: false, closed: false, quote: !block.pictures.length && total < content.h * 0.35 });
    if (!atTop() && ((total <= content.h && total > room() && used >= content.h * 0.45) || opening > room())) memoryPage();

    if (block.pictures.length) {
      if (block.height > room() && !atTop()) memoryPage();
      const [top, , , padLeft] = mountPadding(look.mount);
      for (const pic of block.pictures) {
        const [px, py] = [content.x + pic.cell.x + padLeft, y + pic.cell.y + top];
        paint((dy) => placePicture(pic, px, py + dy));
      }
      y += picturesHeight;
    }

    // The column moves with the page (the gutter is on the other side of a verso): read it where each piece is drawn.
    const column = () => ({ x: content.x + barIndent + col * (textWidth + barIndent + colGap), w: textWidth });
    if (markHeight && lines.length) {
      // The mark goes with the first two lines; with a short memory, with all of it and its signature.
      if (room() < markHeight + (lines.length <= 3 ? textHeight + sigHeight + 6 : pitch * 2)) memoryPage();
      if (heading.length) {
        // The entry's date, written in the accent colour and underlined like a diary's.
        const [hx, hy, hw] = [column().x, y, heading[0].width];
        paint((dy) => {
          drawBlock(heading, dateStyle, { x: hx, w: textWidth }, hy + dy, 'left', p.accent);
          doc.save().lineWidth(0.8).strokeColor(p.accent).moveTo(hx, hy + dy + markHeight - 5).lineTo(hx + Math.min(hw, textWidth), hy + dy + markHeight - 5).stroke().restore();
        });
      } else {
        const markStyle: TextStyle = { face: faces.quote, fallbacks: [], size: 40, leading: 1 };
        const [mark] = breakLines(measure, '“', markStyle, 100);
        const mx = align === 'center' ? column().x + (column().w - mark.width) / 2 : column().x;
        const my = y + 34;
        paint((dy) => drawLine(mark, mx, my + dy, markStyle, p.accent));
      }
      y += markHeight;
    }
    // Lines go page by page; at a break at least two lines stay behind and two go over (no orphan, no
    // widow), and the signature goes with the last lines.
    let i = 0;
    let colTop = y;
    let colBottom = y;
    while (i < lines.length) {
      let fits = 0;
      let h = 0;
      const columnTop = atTop() || (col === 1 && y <= colTop + 0.5);
      for (let j = i; j < lines.length; j++) {
        const gap = lines[j].paragraphStart && (j > i || !columnTop) ? pitch * 0.45 : 0;
        const tail = j === lines.length - 1 ? sigHeight : 0;
        if (h + gap + pitch + tail > room()) break;
        h += gap + pitch;
        fits++;
      }
      const left = lines.length - i;
      if (fits < left) {
        if (left - fits < 2) fits = left - 2;
        if (fits < 2) fits = atTop() ? Math.max(1, Math.min(left - 2, 1)) : 0;
      }
      // The first column takes half of what is left when the rest and the signature fit in the two.
      if (columns === 2 && col === 0 && left >= 4 && 2 * fits >= left + 2) fits = Math.ceil(left / 2);
      for (let j = i; j < i + fits; j++) {
        const line = lines[j];
        const last = j === lines.length - 1;
        if (line.paragraphStart && !(j === i && columnTop)) y += pitch * 0.45;
        // Every line of a long memory but a paragraph's last is set flush on both sides (from the column's left, whatever its direction).
        const justifyTo = long && !line.last ? textWidth : undefined;
        const [bx, ly, lx] = [column().x - barIndent, y, justifyTo ? column().x : lineX(line, column(), align)];
        if (look.quoteMark === 'bar') paint((dy) => doc.save().rect(bx, ly + 1 + dy, 2.6, pitch - (last ? 2 : -1)).fill(p.accent).restore());
        const col = column();
        paint((dy) => {
          drawLine(line, lx, ly + baselineOffset(qs) + dy, qs, p.text, justifyTo);
          input.trace?.line?.(pageNo, memory.id, { baseline: ly + baselineOffset(qs) + dy, column: col, justified: !!justifyTo, last: !!line.last, dir: line.dir, align });
        });
        y += pitch;
      }
      i += fits;
      colBottom = Math.max(colBottom, y);
      if (i >= lines.length) break;
      if (columns === 2 && col === 0) {
        col = 1;
        y = colTop;
      } else {
        memoryPage();
        col = 0;
        colTop = colBottom = y;
      }
    }
    if (room() < sigHeight && !atTop()) {
      memoryPage();
      col = 0;
      colBottom = y;
    }
    y += 6;
    y = paintBlock(sigLines, signatureStyle, column(), y, align, p.muted);
    // The codes line up under each other: one row width for all of them.
    const codesW = Math.max(0, ...codes.map((c) => QR_SIZE + 10 + Math.max(...c.lines.map((l) => l.width))));
    for (const c of codes) {
      y += 8;
      if (!c.url) {
        y = paintBlock(c.lines, signatureStyle, column(), y, align, p.muted);
        continue;
      }
      const textW = codesW - QR_SIZE - 10;
      const x = align === 'center' ? column().x + (column().w - codesW) / 2 : column().x;
      const [url, qy] = [c.url, y];
      paint((dy) => drawQr(url, x, qy + dy));
      const captionHeight = c.lines.length * signatureStyle.size * signatureStyle.leading;
      paintBlock(c.lines, signatureStyle, { x: x + QR_SIZE + 10, w: textW }, y + (QR_SIZE - captionHeight) / 2, 'left', p.muted);
      y += QR_SIZE;
    }
    memoryCount++;
    y = Math.max(y, colBottom);
    const group = groups.at(-1)!;
    group.bottom = y;
    group.closed = true;

    // Room for the theme's ornament between memories (drawn when the page is balanced); the turn of a page does that job when there is no room left.
    y += GAP * 1.6;
    if (room() > 46) {
      y += 16 + GAP * 1.8;
    } else {
      y = content.y + content.h;
    }
  }

  try {
    cover();
    coverVerso();
    memoryPage();
    for await (const ready of ahead(input.memories)) await placeMemory(ready);
    flushPage();
    if (memoryCount === 0) {
      const s: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: 14, leading: 1.4 };
      drawCentredLine('No memories have been approved yet.', s, content.x + content.w / 2, content.y + content.h / 2, p.muted, content.w);
    }
    // A printed book has an even number of pages, and one bound from sheets a multiple of 4: the pages
    // left over before the last are ruled for notes, the last carries the theme's ornament.
    if (input.printReady) while ((pageNo + 1) % 4 !== 0) notesPage();
    if (input.printReady || pageNo % 2 === 1) {
      newPage('end');
      const t = g.trimmed();
      look.ornament(doc, t.x + t.w / 2, t.y + t.h / 2, 1.1, p);
    }
    doc.end();
    await written;
  } catch (err) {
    doc.unpipe(input.output as NodeJS.WritableStream);
    (input.output as NodeJS.WritableStream & { destroy?(e?: Error): void }).destroy?.(err as Error);
    throw err;
  }
  return { pageCount: pageNo, pictures: pictureCount, memories: memoryCount, coverPictureKey: pinnedPicture ?? firstPicture, lowResolution };

  function notesPage() {
    const n = newPage('notes');
    content = g.content(n);
    const heading: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: 16, leading: 1.2 };
    const [line] = breakLines(measure, 'Notes', heading, content.w);
    drawLine(line, content.x, content.y + 16, heading, p.accent);
    doc.save().lineWidth(0.4).strokeColor(p.muted).strokeOpacity(0.45);
    for (let at = content.y + mm(20); at <= content.y + content.h; at += mm(9)) doc.moveTo(content.x, at).lineTo(content.x + content.w, at).stroke();
    doc.restore();
    folio(n);
  }
}

/** Relative luminance of a #rrggbb colour (0 black … 1 white). */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

