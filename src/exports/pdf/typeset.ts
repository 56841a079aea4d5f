import { EMOJI_ADVANCE, emojiPicture } from '../../media-tools/emoji-pictures.js';
import { fallbackFaces, visualOrder } from '../../media-tools/font-fallback.js';
import { fontFilePath, textFaceOf, type FontFace, type ThemeStyle } from '../../media-tools/themes.js';
import { IDEOGRAPHIC, SHAPE_WHOLE, TextMeasurer, type Line, type TextStyle } from './text-layout.js';

/**
 * The theme's three faces and their fallback chains registered on a PDFKit
 * document (`japanese`: the book's own text, its title, is Japanese), and
 * lines drawn run by run: shared by the book and its cover. `text` is the
 * body face upright, for long text (a long letter in italic is hard to read),
 * unless the theme gives one of its own (`o.text`).
 */
export function registerThemeFaces(doc: PDFKit.PDFDocument, style: ThemeStyle, o: { japanese?: boolean; text?: FontFace | null } = {}) {
  // One name per font file, whatever role it plays (a face of the theme, another's upright, a fallback):
  // PDFKit keeps a loaded font under the name it was first asked for, and a second name for the same file
  // would read and parse the file again at every switch to it. PDFKit loads (and embeds) a file only when a page uses it.
  const registered = new Set<string>();
  const nameOf = (f: FontFace): string => {
    const name = `font:${f.package}/${f.file}`;
    if (!registered.has(name)) {
      doc.registerFont(name, fontFilePath(f));
      registered.add(name);
    }
    return name;
  };
  // (A theme may read its long text in a face of its own: see PdfLook.textFace.)
  const text = o.text ?? textFaceOf(style.body);
  const faces = { quote: nameOf(style.quote), title: nameOf(style.title), body: nameOf(style.body), text: nameOf(text) };
  const chainOf = (f: FontFace, japanese: boolean): string[] => fallbackFaces(f, { japanese }).map(nameOf);
  const chains = (japanese: boolean) => ({ quote: chainOf(style.quote, japanese), title: chainOf(style.title, japanese), body: chainOf(style.body, japanese), text: chainOf(text, japanese) });
  const [chinese, japanese] = [chains(false), chains(true)];
  /** The chains for a piece of text: Japanese text (see isJapanese) takes the Japanese face before the Chinese one. */
  const fallbacksFor = (isJapanese: boolean) => (isJapanese ? japanese : chinese);
  return { faces, fallbacks: fallbacksFor(!!o.japanese), fallbacksFor, measure: new TextMeasurer(doc) };
}

/**
 * One line, run by run, starting at x with its baseline at `baseline`. Given `justifyTo`, the line is set
 * to that width: its spaces widened alike, or, in Chinese and Japanese (which have none), the room shared
 * between its characters. A right-to-left run's words are placed from its right edge, so it stays in order.
 */
export function drawLine(doc: PDFKit.PDFDocument, line: Line, x: number, baseline: number, s: TextStyle, colour: string, justifyTo?: number) {
  doc.fillColor(colour);
  // Right-to-left runs are shaped whole (fontkit gives their glyphs right to left); the runs themselves go in visual order.
  const runs = line.runs.some((r) => r.dir === 'rtl') ? visualOrder(line.runs, (r) => r.dir, line.dir) : line.runs;
  // A line whose runs were reordered gives its words as written, in reading order, for the whole line.
  const reordered = runs !== line.runs;
  if (reordered) doc.markContent('Span', { actual: line.runs.map((r) => r.text).join('') } as never);
  const spaces = (t: string) => t.split(' ').length - 1;
  const shapedFor = (run: Line['runs'][number]) => (run.dir === 'rtl' || s.features ? { features: [...(s.features ?? SHAPE_WHOLE)] as never } : {});
  const ideographic = !!justifyTo && justifyTo > line.width && runs.some((r) => IDEOGRAPHIC.test(r.text));
  // Ideographs were measured one by one (each may end a line): a run set whole may kern, so it is measured again as drawn.
  const widths = runs.map((r) => (ideographic ? doc.font(r.face).fontSize(r.size ?? s.size).widthOfString(r.text, { characterSpacing: s.characterSpacing ?? 0, ...shapedFor(r) }) + (s.characterSpacing ?? 0) : r.width));
  const slack = justifyTo ? Math.max(0, justifyTo - widths.reduce((a, b) => a + b, 0)) : 0;
  const characters = (t: string) => [...graphemes.segment(t)].length;
  const gaps = !slack ? 0 : ideographic ? runs.reduce((n, r) => n + characters(r.text), 0) - 1 : runs.reduce((n, r) => n + spaces(r.text), 0);
  const extra = gaps > 0 ? slack / gaps : 0;
  for (const [index, run] of runs.entries()) {
    const characterSpacing = (s.characterSpacing ?? 0) + (ideographic ? extra : 0);
    const options = { lineBreak: false, baseline: 'alphabetic' as const, characterSpacing };
    const shaped = shapedFor(run);
    // Shaping may merge, split or reorder glyphs, and a glyph has one ToUnicode entry: the words themselves
    // go with the run (or the reordered line) as its ActualText, so copying and searching give what was written, in its order.
    if (run.emoji && drawEmoji(doc, run, x, baseline, s.size)) {
      x += widths[index] + (ideographic ? characters(run.text) * extra : 0);
      continue;
    }
    const plain = reordered || /^[\x20-\x7e]*$/.test(run.text);
    const n = extra && !ideographic ? spaces(run.text) : 0;
    if (!plain) doc.markContent('Span', { actual: run.text } as never);
    doc.font(run.face).fontSize(run.size ?? s.size);
    if (n && run.dir === 'rtl') {
      // Word by word from the run's right edge: PDFKit would set widened words left to right.
      const space = doc.widthOfString(' ', { characterSpacing });
      let right = x + run.width + n * extra;
      run.text.split(' ').forEach((word, k) => {
        if (k > 0) right -= space + extra;
        if (!word) return;
        right -= doc.widthOfString(word, { characterSpacing, ...shaped });
        doc.text(word, right, baseline, { ...options, ...shaped });
      });
    } else if (n) {
      // PDFKit widens the spaces between words (it sets them as advances); spaces at the run's ends are ours to place.
      const core = run.text.trim();
      const lead = run.text.length - run.text.trimStart().length;
      const space = doc.widthOfString(' ', { characterSpacing });
      const features = s.features ? { features: [...s.features] as never } : {};
      if (core) doc.text(core, x + lead * (space + extra), baseline, spaces(core) ? { ...options, ...features, wordSpacing: extra } : { ...options, ...features });
    } else if (ideographic && run === runs[runs.length - 1] && characters(run.text) > 1) {
      // The room goes between characters, not after the line's last one (it would stand out past the column).
      const chars = [...graphemes.segment(run.text)].map((g) => g.segment);
      const head = chars.slice(0, -1).join('');
      doc.text(head, x, baseline, { ...options, ...shaped });
      const headWidth = doc.widthOfString(head, { characterSpacing: s.characterSpacing ?? 0, ...shaped }) + (s.characterSpacing ?? 0) + (chars.length - 1) * extra;
      doc.text(chars[chars.length - 1], x + headWidth, baseline, { ...options, ...shaped, characterSpacing: s.characterSpacing ?? 0 });
    } else {
      doc.text(run.text, x, baseline, { ...options, ...shaped });
    }
    if (!plain) doc.endMarkedContent();
    x += widths[index] + n * extra + (ideographic ? characters(run.text) * extra : 0);
  }
  if (reordered) doc.endMarkedContent();
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Each document's emoji pictures, embedded once and drawn wherever the emoji recurs. */
const embedded = new WeakMap<PDFKit.PDFDocument, Map<string, unknown>>();

/** The credit Twemoji's licence (CC-BY 4.0) asks for, when a document printed any of its pictures; else null. */
export function emojiCredit(doc: PDFKit.PDFDocument): string | null {
  return embedded.get(doc)?.size ? 'Emoji by Twemoji, © Twitter, Inc and contributors, CC-BY 4.0' : null;
}

/**
 * One emoji as its colour picture, 1 em square on the text's baseline, centred in its advance; under it the
 * emoji's own characters are set invisibly (text rendering mode 3) in the emoji face, marked with the whole
 * sequence as ActualText, so copying and searching give the emoji as written. False when it has no picture.
 */
function drawEmoji(doc: PDFKit.PDFDocument, run: Line['runs'][number], x: number, baseline: number, size: number): boolean {
  const png = emojiPicture(run.text);
  if (!png) return false;
  let images = embedded.get(doc);
  if (!images) embedded.set(doc, (images = new Map()));
  let image = images.get(run.text);
  if (!image) images.set(run.text, (image = (doc as unknown as { openImage(src: Buffer): unknown }).openImage(png)));
  const left = x + (size * (EMOJI_ADVANCE - 1)) / 2;
  // The picture sits where a capital would, dipping below the baseline a little as emoji do.
  doc.image(image as never, left, baseline - size * 0.82, { width: size, height: size });
  doc.markContent('Span', { actual: run.text } as never);
  doc.save();
  (doc as unknown as { addContent(op: string): void }).addContent('3 Tr');
  // Squeezed or stretched to the emoji's advance, so the text layer's box is the picture's place in the line.
  doc.font(run.face).fontSize(size);
  const natural = doc.widthOfString(run.text);
  const horizontalScaling = natural > 0 ? Math.round(((size * EMOJI_ADVANCE) / natural) * 100) : 100;
  doc.text(run.text, x, baseline, { lineBreak: false, baseline: 'alphabetic', horizontalScaling } as never);
  doc.restore();
  doc.endMarkedContent();
  return true;
}

/** Baseline below the top of a line box, so lines of any size sit evenly in their pitch. */
export function baselineOffset(s: TextStyle): number {
  const pitch = s.size * s.leading;
  return (pitch - s.size) / 2 + s.size * 0.8;
}
