import { fallbackFaces, visualOrder } from '../../media-tools/font-fallback.js';
import { fontFilePath, type FontFace, type ThemeStyle } from '../../media-tools/themes.js';
import { SHAPE_WHOLE, TextMeasurer, type Line, type TextStyle } from './text-layout.js';

/**
 * The theme's three faces and their fallback chains registered on a PDFKit
 * document, and lines drawn run by run: shared by the book and its cover.
 */
export function registerThemeFaces(doc: PDFKit.PDFDocument, style: ThemeStyle) {
  const faces = { quote: 'quote', title: 'title', body: 'body' } as const;
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
  return { faces, fallbacks, measure: new TextMeasurer(doc) };
}

/**
 * One line, run by run, starting at x with its baseline at `baseline`. Given `justifyTo`, a left-to-right
 * line with spaces is set to that width, its spaces widened alike.
 */
export function drawLine(doc: PDFKit.PDFDocument, line: Line, x: number, baseline: number, s: TextStyle, colour: string, justifyTo?: number) {
  doc.fillColor(colour);
  // Right-to-left runs are shaped whole (fontkit gives their glyphs right to left); the runs themselves go in visual order.
  const runs = line.runs.some((r) => r.dir === 'rtl') ? visualOrder(line.runs, (r) => r.dir, line.dir) : line.runs;
  const spaces = (t: string) => t.split(' ').length - 1;
  const count = justifyTo && line.dir === 'ltr' && !runs.some((r) => r.dir === 'rtl') ? runs.reduce((n, r) => n + spaces(r.text), 0) : 0;
  const extra = count ? Math.max(0, (justifyTo! - line.width) / count) : 0;
  for (const run of runs) {
    const options = { lineBreak: false, baseline: 'alphabetic' as const, characterSpacing: s.characterSpacing ?? 0 };
    // Shaping may merge, split or reorder glyphs, and a glyph has one ToUnicode entry: the words themselves
    // go with the run as its ActualText, so copying and searching give what was written, in its order.
    const plain = /^[\x20-\x7e]*$/.test(run.text);
    const n = extra ? spaces(run.text) : 0;
    if (!plain) doc.markContent('Span', { actual: run.text } as never);
    doc.font(run.face).fontSize(s.size);
    if (n) {
      // PDFKit widens the spaces between words (it sets them as advances); spaces at the run's ends are ours to place.
      const core = run.text.trim();
      const lead = run.text.length - run.text.trimStart().length;
      const space = doc.widthOfString(' ', { characterSpacing: options.characterSpacing });
      const features = s.features ? { features: [...s.features] as never } : {};
      if (core) doc.text(core, x + lead * (space + extra), baseline, spaces(core) ? { ...options, ...features, wordSpacing: extra } : { ...options, ...features });
    } else {
      doc.text(run.text, x, baseline, run.dir === 'rtl' || s.features ? { ...options, features: [...(s.features ?? SHAPE_WHOLE)] as never } : options);
    }
    if (!plain) doc.endMarkedContent();
    x += run.width + n * extra;
  }
}

/** Baseline below the top of a line box, so lines of any size sit evenly in their pitch. */
export function baselineOffset(s: TextStyle): number {
  const pitch = s.size * s.leading;
  return (pitch - s.size) / 2 + s.size * 0.8;
}
