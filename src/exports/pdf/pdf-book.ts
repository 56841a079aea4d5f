import PDFDocument from 'pdfkit';
import { finished } from 'node:stream/promises';
import { fallbackFaces, visualOrder } from '../../media-tools/font-fallback.js';
import { fontFilePath, themeStyle, type FontFace } from '../../media-tools/themes.js';
import { bookGeometry, mm, type Box } from './geometry.js';
import { drawFrame, mountPadding, PDF_LOOKS } from './pdf-themes.js';
import { preparePicture, type PreparedPicture } from './pictures.js';
import { breakLines, SHAPE_WHOLE, TextMeasurer, type Line, type TextStyle } from './text-layout.js';

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
  /** Durations (s) of the voice recordings that come with it (not printable; mentioned). */
  recordings: (number | null)[];
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
}

export interface PdfBookResult {
  pageCount: number;
  pictures: number;
  memories: number;
}

/** Pictures prepared ahead of the page being laid out, and how many at once. */
const LOOKAHEAD_PICTURES = 6;
const PREPARE_CONCURRENCY = 2;

const GAP = 8;
const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export async function renderPdfBook(input: PdfBookInput): Promise<PdfBookResult> {
  const style = themeStyle(input.theme);
  const look = PDF_LOOKS[style.theme];
  const p = style.palette;
  const g = bookGeometry(input.bleedMm, input.gutterMm);
  const doc = new PDFDocument({
    size: [g.page, g.page],
    autoFirstPage: false,
    margin: 0,
    bufferPages: false,
    compress: true,
    pdfVersion: '1.7',
    displayTitle: true,
    lang: 'en',
    info: { Title: input.title, Subject: input.subtitle || 'A memory book', Creator: 'memorybook', Producer: 'memorybook (PDFKit)' },
  });
  const written = finished(input.output);
  written.catch(() => {});
  doc.pipe(input.output as NodeJS.WritableStream);

  const faces = { quote: 'quote', title: 'title', body: 'body' };
  doc.registerFont(faces.quote, fontFilePath(style.quote));
  doc.registerFont(faces.title, fontFilePath(style.title));
  doc.registerFont(faces.body, fontFilePath(style.body));
  // Each face's fallbacks, registered under their file's name: PDFKit loads (and embeds) one only when a page uses it.
  const registered = new Set<string>();
  const chainOf = (f: FontFace): string[] =>
    fallbackFaces(f).map((fb) => {
      const name = `fb:${fb.package}/${fb.file}`;
      if (!registered.has(name)) {
        doc.registerFont(name, fontFilePath(fb));
        registered.add(name);
      }
      return name;
    });
  const fallbacks = { quote: chainOf(style.quote), title: chainOf(style.title), body: chainOf(style.body) };
  const measure = new TextMeasurer(doc);

  let pageNo = 0;
  let content: Box = g.content(1);
  let y = 0;
  let pictureCount = 0;
  let memoryCount = 0;

  function newPage(): number {
    doc.addPage({ size: [g.page, g.page], margin: 0 });
    pageNo++;
    const dict = (doc.page as unknown as { dictionary: { data: Record<string, unknown> } }).dictionary.data;
    dict.TrimBox = g.trimBox;
    dict.BleedBox = g.bleedBox;
    // The background runs into the bleed, so nothing white shows at a trimmed edge.
    doc.rect(0, 0, g.page, g.page).fill(p.background);
    return pageNo;
  }

  function memoryPage() {
    const n = newPage();
    content = g.content(n);
    y = content.y;
    const t = g.trimmed();
    if (look.pageFrame !== 'none') drawFrame(doc, look.pageFrame, t, mm(7), p.accent, 0.5);
    // Running head: the book's title, small, over the text column.
    drawCentredLine(input.title.toUpperCase(), { face: faces.body, fallbacks: fallbacks.body, size: 7, leading: 1, characterSpacing: 1.2 }, content.x + content.w / 2, t.y + mm(14.5), p.muted, content.w);
    folio(n);
  }

  function folio(n: number) {
    const cx = content.x + content.w / 2;
    const cy = g.trimmed().y + g.trim - mm(13);
    const s: TextStyle = { face: faces.body, fallbacks: [], size: 8.5, leading: 1 };
    if (look.folio === 'disc') {
      doc.save().circle(cx, cy - 3, 9).fill(p.accent).restore();
      drawCentredLine(String(n), s, cx, cy, p.background, 40);
    } else {
      drawCentredLine(look.folio === 'dashes' ? `— ${n} —` : String(n), s, cx, cy, p.muted, 80);
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

  function drawLine(line: Line, x: number, baseline: number, s: TextStyle, colour: string) {
    doc.fillColor(colour);
    // Right-to-left runs are shaped whole (fontkit gives their glyphs right to left); the runs themselves go in visual order.
    const runs = line.runs.some((r) => r.dir === 'rtl') ? visualOrder(line.runs, (r) => r.dir, line.dir) : line.runs;
    for (const run of runs) {
      const options = { lineBreak: false, baseline: 'alphabetic' as const, characterSpacing: s.characterSpacing ?? 0 };
      // Shaping may merge, split or reorder glyphs, and a glyph has one ToUnicode entry: the words themselves
      // go with the run as its ActualText, so copying and searching give what was written, in its order.
      const plain = /^[\x20-\x7e]*$/.test(run.text);
      if (!plain) doc.markContent('Span', { actual: run.text } as never);
      doc.font(run.face).fontSize(s.size).text(run.text, x, baseline, run.dir === 'rtl' ? { ...options, features: SHAPE_WHOLE as never } : options);
      if (!plain) doc.endMarkedContent();
      x += run.width;
    }
  }

  /** Where a line starts in a column: right-to-left paragraphs are set from the right edge. */
  function lineX(line: Line, box: { x: number; w: number }, align: 'left' | 'center'): number {
    if (align === 'center') return box.x + (box.w - line.width) / 2;
    return line.dir === 'rtl' ? box.x + box.w - line.width : box.x;
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
    const text = style.titleUppercase ? input.title.toUpperCase() : input.title;
    const styleAt = (size: number): TextStyle => ({ face: faces.title, fallbacks: fallbacks.title, size, leading: 1.15, characterSpacing: style.titleUppercase ? size * 0.06 : 0 });
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
    newPage();
    const t = g.trimmed();
    const countLine = input.memoryCount === 1 ? '1 memory' : `${input.memoryCount.toLocaleString('en-GB')} memories`;
    const subtitleStyle: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: 15, leading: 1.35 };
    const smallCaps: TextStyle = { face: faces.body, fallbacks: [], size: 9, leading: 1, characterSpacing: 1.6 };
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
    newPage();
    const t = g.trimmed();
    const small: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: 8.5, leading: 1.5 };
    const made = `Made with memorybook on ${DATE.format(input.now ?? new Date())}`;
    drawCentredLine(input.title, small, t.x + t.w / 2, t.y + t.h - mm(40), p.muted, t.w - mm(60));
    drawCentredLine(made, small, t.x + t.w / 2, t.y + t.h - mm(34), p.muted, t.w - mm(60));
  }

  // ---- the memories ----

  const quoteStyle = (pinned: boolean): TextStyle => ({
    face: faces.quote,
    fallbacks: fallbacks.quote,
    size: look.quoteSize + (pinned ? 1.5 : 0),
    leading: look.leading,
  });
  const signatureStyle: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: 9.5, leading: 1.45 };
  const barIndent = look.quoteMark === 'bar' ? 16 : 0;

  /** Where each picture of a memory goes: one large, or two to a row. */
  function cellsOf(count: number): { w: number; h: number }[] {
    if (count === 1) return [{ w: content.w, h: content.h * 0.6 }];
    const w = (content.w - GAP * 2) / 2;
    return Array.from({ length: count }, () => ({ w, h: content.h * 0.42 }));
  }

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

  interface Ready {
    memory: PdfMemory;
    pictures: Promise<(PreparedPicture & { kind: PdfPicture['kind'] }) | null>[];
  }

  function prepare(memory: PdfMemory): Ready {
    const cells = cellsOf(memory.pictures.length);
    const pictures = memory.pictures.map((pic, i) => {
      const job = limited(async () => {
        input.signal?.throwIfAborted();
        let copy: { path: string; release(): Promise<void> };
        try {
          copy = await input.openPicture(pic.key);
        } catch (err) {
          if (input.isMissing?.(err)) {
            input.onPictureSkipped?.(pic.key, 'gone from the store');
            return null;
          }
          throw err;
        }
        try {
          const ready = await preparePicture(copy.path, pictureBox(cells[i]), p.background);
          if (!ready) input.onPictureSkipped?.(pic.key, 'not a picture that can be decoded');
          return ready ? { ...ready, kind: pic.kind } : null;
        } finally {
          await copy.release();
        }
      });
      job.catch(() => {}); // awaited when placed; a render that stops early must not leave it unhandled
      return job;
    });
    return { memory, pictures };
  }

  /** The memories with their pictures prepared a few ahead of the one being placed. */
  async function* ahead(source: AsyncIterable<PdfMemory>): AsyncGenerator<Ready> {
    const queue: Ready[] = [];
    const it = source[Symbol.asyncIterator]();
    let exhausted = false;
    const queued = () => queue.reduce((n, r) => n + r.pictures.length, 0);
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

  function placePicture(pic: PreparedPicture & { kind: PdfPicture['kind'] }, x: number, top: number) {
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
    if (pic.kind === 'video') playBadge(x + w / 2, top + h / 2, Math.min(16, w / 6));
    // The image's data went to the document: let go of it.
    pic.jpeg = Buffer.alloc(0);
    pictureCount++;
  }

  function playBadge(cx: number, cy: number, r: number) {
    doc.save().fillOpacity(0.55).circle(cx, cy, r).fill('#000000').restore();
    doc.save().polygon([cx - r * 0.3, cy - r * 0.45], [cx + r * 0.5, cy], [cx - r * 0.3, cy + r * 0.45]).fill('#FFFFFF').restore();
  }

  async function placeMemory(ready: Ready) {
    const { memory } = ready;
    input.signal?.throwIfAborted();
    const pictures = (await Promise.all(ready.pictures)).filter((x): x is NonNullable<typeof x> => x !== null);
    const qs = quoteStyle(memory.pinned);
    const textWidth = content.w - barIndent;
    const lines = breakLines(measure, memory.text, qs, textWidth);
    const pitch = qs.size * qs.leading;
    const signature = [memory.signature ? `— ${memory.signature}` : null, DATE.format(new Date(memory.date))].filter(Boolean).join(' · ');
    const notes = memory.recordings.map((s) => `With a voice recording${s ? ` (${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')})` : ''}`);
    const sigLines = [signature, ...notes].flatMap((t) => breakLines(measure, t, signatureStyle, textWidth));
    const sigHeight = 6 + sigLines.length * signatureStyle.size * signatureStyle.leading;
    const markHeight = look.quoteMark === 'glyph' ? 30 : 0;
    const rows = rowsOf(pictures);
    const picturesHeight = rows.reduce((n, r) => n + r.height + GAP * 1.5, 0);
    const textHeight = lines.reduce((n, l) => n + pitch + (l.paragraphStart ? pitch * 0.45 : 0), 0);
    const total = picturesHeight + markHeight + textHeight + sigHeight;

    // Keep a memory on one page when it fits on one; otherwise start it where at least a few lines fit.
    const opening = rows.length ? rows[0].height + GAP : markHeight + Math.min(lines.length, 3) * pitch + (lines.length <= 3 ? sigHeight : 0);
    if (!atTop() && ((total <= content.h && total > room()) || opening > room())) memoryPage();

    for (const row of rows) {
      if (row.height > room() && !atTop()) memoryPage();
      const cellW = row.items.length === 1 && pictures.length === 1 ? content.w : (content.w - GAP * 2) / 2;
      const rowWidth = row.items.length * cellW + (row.items.length - 1) * GAP * 2;
      let x = content.x + (content.w - rowWidth) / 2;
      for (const pic of row.items) {
        const [top, , bottom, left] = mountPadding(look.mount);
        const inner = cellW - left - mountPadding(look.mount)[1];
        const px = x + left + (inner - pic.width) / 2;
        const py = y + top + (row.height - top - bottom - pic.height) / 2;
        placePicture(pic, px, py);
        x += cellW + GAP * 2;
      }
      y += row.height + GAP * 1.5;
    }

    // The column moves with the page (the gutter is on the other side of a verso): read it where each piece is drawn.
    const column = () => ({ x: content.x + barIndent, w: textWidth });
    if (look.quoteMark === 'glyph' && lines.length) {
      if (room() < markHeight + pitch * 2) memoryPage();
      const markStyle: TextStyle = { face: faces.quote, fallbacks: [], size: 40, leading: 1 };
      const [mark] = breakLines(measure, '“', markStyle, 100);
      const mx = look.align === 'center' ? column().x + (column().w - mark.width) / 2 : column().x;
      drawLine(mark, mx, y + 34, markStyle, p.accent);
      y += markHeight;
    }
    const colour = p.text;
    lines.forEach((line, i) => {
      const last = i === lines.length - 1;
      const needed = pitch + (line.paragraphStart ? pitch * 0.45 : 0) + (last ? sigHeight : 0);
      if (needed > room() && !atTop()) memoryPage();
      if (line.paragraphStart && !atTop()) y += pitch * 0.45;
      if (look.quoteMark === 'bar') doc.save().rect(content.x, y + 1, 2.6, pitch - (last ? 2 : -1)).fill(p.accent).restore();
      drawLine(line, lineX(line, column(), look.align), y + baselineOffset(qs), qs, colour);
      y += pitch;
    });
    if (room() < sigHeight && !atTop()) memoryPage();
    y += 6;
    y = drawBlock(sigLines, signatureStyle, column(), y, look.align, p.muted);
    memoryCount++;

    // The theme's ornament between memories; the turn of a page does that job when there is no room left.
    y += GAP * 1.6;
    if (room() > 46) {
      look.ornament(doc, content.x + content.w / 2, y + 8, 0.7, p);
      y += 16 + GAP * 1.8;
    } else {
      y = content.y + content.h;
    }
  }

  type Picture = PreparedPicture & { kind: PdfPicture['kind'] };
  function rowsOf(pictures: Picture[]): { items: Picture[]; height: number }[] {
    const [top, , bottom] = mountPadding(look.mount);
    const rows: { items: Picture[]; height: number }[] = [];
    const per = pictures.length === 1 ? 1 : 2;
    for (let i = 0; i < pictures.length; i += per) {
      const items = pictures.slice(i, i + per);
      rows.push({ items, height: Math.max(...items.map((x) => x.height)) + top + bottom });
    }
    return rows;
  }

  try {
    cover();
    coverVerso();
    memoryPage();
    for await (const ready of ahead(input.memories)) await placeMemory(ready);
    if (memoryCount === 0) {
      const s: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: 14, leading: 1.4 };
      drawCentredLine('No memories have been approved yet.', s, content.x + content.w / 2, content.y + content.h / 2, p.muted, content.w);
    }
    // A printed book has an even number of pages: close on a verso with the theme's ornament.
    if (pageNo % 2 === 1) {
      newPage();
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
  return { pageCount: pageNo, pictures: pictureCount, memories: memoryCount };
}

/** Baseline below the top of a line box, so lines of any size sit evenly in their pitch. */
function baselineOffset(s: TextStyle): number {
  const pitch = s.size * s.leading;
  return (pitch - s.size) / 2 + s.size * 0.8;
}
