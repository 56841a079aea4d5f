/**
 * The test book (every script, one-liners to 1,500-word letters, 0–5 photos
 * of every orientation) rendered in all eleven themes for one intent, and
 * read back:
 * - every character of a page's text layer has a real glyph, in a font embedded and used on that page;
 * - nothing is dropped from the text layer, and each memory reads in order;
 * - no memory leaves a single line at a page's foot or carries one over (its lines are found on the
 *   page where the renderer says it set them, read from pdftotext's word boxes), a memory of 12 lines
 *   or fewer is on one page, a paragraph split across pages or columns keeps two lines or more on each
 *   side, and a memory's pictures are on the page its words start on;
 * - long memories are set upright, to a measure of 75 characters a line or fewer, and at 10.5 pt or more
 *   reversed out of a dark page;
 * - the flow of photos: every photo a memory sent prints once; one printed away from its memory (a breather the
 *   book's pacing placed in another's pages) is captioned with its contributor's name; none piles up before the
 *   ending (after the last memory at most one page of them), and no blank
 *   page before the colophon, and none after it but the back of its leaf (a print multiple's spare pages are
 *   filled before the ending);
 * - the ending is a spread: "With love from" ends on a verso (even page) and the colophon's page faces it;
 * - pacing, as a reader counts it: no run of more than four spreads of words only anywhere, when the book has
 *   photos enough to break every run (see photosToBreakRuns); a spread breaks a run only when it carries a photo
 *   (a memory's, a held photo, a plate, the closing photo) or a picture book's drawn picture page; a quote page or
 *   a pull quote is still words;
 * - justified lines fill their column, right-to-left paragraphs end at the right, and no line of words or
 *   signature runs past its column (by more than half a point, read from the word boxes);
 * - Japanese is set in the Japanese face, Chinese in the Chinese one, and no line of either starts
 *   with closing punctuation or ends with an opening bracket;
 * - TrimBox and BleedBox on every page; for `shop`: the PDF/X-4 preflight passes for the interior and
 *   the cover wrap, a multiple of 4 pages, and the wrap as wide as its spine formula says;
 * - no sparse pages: a page of memories whose ink covers under 40% of the live area's height
 *   (rendered at 20 dpi) is one; designed pages (cover, quote, notes, end: as the renderer's trace
 *   names them) may be, and at most SPARSE_PAGES_ALLOWED others.
 * Set MEMORYBOOK_KEEP_PDFS=dir to keep the books.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCoverWrap, spineWidthMm } from '../../../src/exports/pdf/cover-wrap.js';
import { bookGeometry, mm } from '../../../src/exports/pdf/geometry.js';
import { luminance, MIN_PRINT_PPI, renderPdfBook, type BookTrace, type PageKind } from '../../../src/exports/pdf/pdf-book.js';
import { PDF_LOOKS } from '../../../src/exports/pdf/pdf-themes.js';
import { normalizeText, smartPunctuation } from '../../../src/exports/pdf/text-layout.js';
import { isJoiner } from '../../../src/media-tools/font-fallback.js';
import { THEME_STYLES, THEMES, type Theme } from '../../../src/media-tools/themes.js';
import { DEFAULT_PAPER_CALIPER_UM, INTENTS, type ExportIntent } from '../../../src/services/exports/export-types.js';
import { blankGlyphs, charactersByPage, imagePlacements, printedImages, textInDrawingOrder, withoutActualText } from '../../helpers/pdf-readback.js';
import { preflightPdfX4 } from '../../helpers/pdfx-preflight.js';
import type { SubjectFindings } from '../../../src/media-tools/focal-crop.js';
import { makePhotos, testBookMemories, type TestMemory } from '../../helpers/test-book.js';
import { picturePageProblems } from './catalogue-checks.js';

const run = promisify(execFile);
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** White space, joiners, and the bidi controls pdftotext puts around right-to-left text. */
const invisible = (ch: string) => /[\s\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(ch) || isJoiner(ch.codePointAt(0)!);
/** Never first on a line of Chinese or Japanese: closing brackets and quotes, stops, commas, small kana, the prolonged sound mark. */
const NOT_FIRST = /^[、。，．：；！？）」』】〕”’・ーぁぃぅぇぉっゃゅょァィゥェォッャュョ]/u;
/** Never last on such a line: opening brackets and quotes. */
const NOT_LAST = /[（「『【〔“‘]$/u;
const KANJI_JAPANESE = /[写真見思出夏休緒作本当東京手紙富士山]/u;
const HAN_CHINESE = /[谢为们爱记园饺过团聚]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const SCRIPTS_WITH_MARKS = [/\p{Script=Devanagari}/u, /\p{Script=Arabic}/u, /\p{Script=Hebrew}/u, /\p{Script=Latin}/u, /\p{Script=Greek}/u, /\p{Script=Cyrillic}/u];
const sameScript = (a: string, b: string) => !/\p{M}/u.test(b) && SCRIPTS_WITH_MARKS.some((re) => re.test(a) && re.test(b));

interface Word {
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
  text: string;
}

/** pdftotext's word boxes, page by page. */
async function wordsByPage(file: string): Promise<Word[][]> {
  const { stdout } = await run('pdftotext', ['-bbox', file, '-'], { maxBuffer: 128 * 1024 * 1024 });
  const pages: Word[][] = [];
  for (const line of stdout.split('\n')) {
    if (line.includes('<page ')) pages.push([]);
    const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/.exec(line);
    if (m) pages.at(-1)!.push({ xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]), text: unescapeXml(m[5]) });
  }
  return pages;
}

/** A binary greymap (P5, 8 bits) as pdftoppm -gray writes it. */
function readPgm(file: Buffer): { data: Uint8Array; info: { width: number; height: number } } {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(file.subarray(0, 64).toString('latin1'))!;
  return { data: file.subarray(header[0].length), info: { width: Number(header[1]), height: Number(header[2]) } };
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Text compared without its layout: NFC, no white space, no hyphens (lines end in added ones). */
const bare = (s: string) => s.normalize('NFC').replace(/[\s\u00ad\-‐]/gu, '');

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

/** Spreads of words only allowed in a row, in a book with photos (one photo or quote page at least every other spread reads better still). */
const MAX_WORD_SPREADS = 4;
/** The least share of a picture book's pages of memories that carry a photo, in the test book (every one of its 26 photos a page to itself). */
const PICTURE_BOOK_SHARE = 0.28;

/**
 * Photos a book of `spreads` spreads of memories needs so that no run of words only is longer than
 * MAX_WORD_SPREADS: one in every MAX_WORD_SPREADS + 1 spreads. A book with fewer photos than that (counting
 * every photo its memories sent) may have longer runs: it has not the photos to break them.
 */
export function photosToBreakRuns(spreads: number): number {
  return Math.ceil(spreads / (MAX_WORD_SPREADS + 1));
}

/** Spreads (a verso and its recto, from page 2) up to the last memory's page with no photo on either page, as runs from the first page of memories. */
export function wordOnlySpreadRuns(firstMemoryPage: number, pictured: Set<number>, lastMemoryPage: number): { from: number; spreads: number }[] {
  const runs: { from: number; spreads: number }[] = [];
  for (let s = firstMemoryPage - (firstMemoryPage % 2); s <= lastMemoryPage; s += 2) {
    if (pictured.has(s) || pictured.has(s + 1) || s < 2) continue;
    const run = runs.at(-1);
    if (run && run.from + 2 * run.spreads === s) run.spreads++;
    else runs.push({ from: s, spreads: 1 });
  }
  return runs;
}

/** Runs of pages (up to the last memory's) with no photo, from the first page of memories (a quote page is words). */
export function wordOnlyRuns(kinds: PageKind[], pictured: Set<number>, lastMemoryPage: number): { from: number; length: number }[] {
  const runs: { from: number; length: number }[] = [];
  for (let n = kinds.indexOf('memories') + 1; n > 0 && n <= lastMemoryPage; n++) {
    const wordsOnly = (kinds[n - 1] === 'memories' || kinds[n - 1] === 'quote') && !pictured.has(n);
    const run = runs.at(-1);
    if (!wordsOnly) continue;
    if (run && run.from + run.length === n) run.length++;
    else runs.push({ from: n, length: 1 });
  }
  return runs;
}

/** Pages of memories (not designed pages) allowed to be sparse in the test book: see the check. */
const SPARSE_PAGES_ALLOWED = 0;

type TracedLine = Parameters<NonNullable<BookTrace['line']>>[2] & { page: number; id: string };
type TracedSignature = Parameters<NonNullable<BookTrace['signature']>>[2] & { page: number; id: string };

export function describeTestBook(intent: ExportIntent) {
  const { bleedMm, gutterMm } = INTENTS[intent];
  const shop = intent === 'shop';

  describe(`the test book, ${intent} intent, in every theme`, () => {
    let dir: string;
    let subjects: Map<string, SubjectFindings>;
    const memories = testBookMemories();
    // As the export service does when the book has no cover of its own: its first photo (book-export-variant.ts).
    const coverPicture = memories.flatMap((m) => m.pictures).find((x) => x.kind === 'photo')?.key;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), `memorybook-testbook-${intent}-`));
      subjects = await makePhotos(dir);
    });
    afterAll(async () => {
      if (process.env.MEMORYBOOK_KEEP_PDFS) await cp(dir, path.join(process.env.MEMORYBOOK_KEEP_PDFS, intent), { recursive: true });
      await rm(dir, { recursive: true, force: true });
    });

    for (const theme of THEMES) {
      it(`${theme}: every character printed with a glyph, nothing dropped, no widow or orphan, no sparse pages${shop ? ', PDF/X-4' : ''}`, async () => {
        const file = path.join(dir, `${theme}.pdf`);
        const kinds: PageKind[] = [];
        const lines: TracedLine[] = [];
        const signatures: TracedSignature[] = [];
        const pictures: { page: number; id: string; x?: number; w?: number }[] = [];
        const breathers: { page: number; id: string }[] = [];
        /** A picture book's drawn picture pages (PdfLook.illustrationRun). */
        const drawnPictures: number[] = [];
        /** Which memory is drawn first on each page (lines and pictures, in the order they are drawn). */
        const opensPage = new Map<number, string>();
        const result = await renderPdfBook({
          title: 'Bà nội 90 — 奶奶 — جدتي',
          subtitle: 'Cảm ơn bà ❤️',
          theme,
          bleedMm,
          gutterMm,
          memoryCount: memories.length,
          memories: iterate(memories),
          // With the faces found when each photo was processed, as the export service reads them from its media row.
          openPicture: async (key) => ({ path: path.join(dir, `${key}.jpg`), subject: subjects.get(key), release: async () => {} }),
          output: createWriteStream(file),
          now: new Date('2026-06-01T00:00:00Z'),
          printReady: shop,
          dates: { first: memories[0].date, last: memories.at(-1)!.date },
          coverPicture,
          trace: { page: (n, kind) => (kinds[n - 1] = kind), line: (n, id, l) => (lines.push({ ...l, page: n, id }), opensPage.has(n) || opensPage.set(n, id)), signature: (n, id, l) => signatures.push({ ...l, page: n, id }), picture: (n, id, at) => (pictures.push({ page: n, id, ...at }), opensPage.has(n) || opensPage.set(n, id)), breather: (n, id) => breathers.push({ page: n, id }), illustration: (n) => drawnPictures.push(n) },
        });
        const bytes = await readFile(file);
        expect(result.memories).toBe(memories.length);
        const problems: string[] = [];

        // ---- boxes, and what a print provider checks ----
        const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
        expect(pdf.getPageCount()).toBe(result.pageCount);
        expect(kinds.length).toBe(result.pageCount);
        for (const [i, page] of pdf.getPages().entries()) {
          if (!page.node.get(PDFName.of('TrimBox')) || !page.node.get(PDFName.of('BleedBox'))) problems.push(`page ${i + 1}: no TrimBox or BleedBox`);
        }
        if (shop) {
          expect(result.pageCount % 4, 'a multiple of 4 pages').toBe(0);
          for (const p of await preflightPdfX4(bytes, { outputConditionIdentifier: 'FOGRA39' })) problems.push(`preflight of the interior: ${p}`);
          const coverFile = path.join(dir, `${theme}-cover.pdf`);
          const caliperMm = DEFAULT_PAPER_CALIPER_UM / 1000;
          const wrap = await renderCoverWrap({ title: 'Bà nội 90 — 奶奶 — جدتي', subtitle: 'Cảm ơn bà ❤️', theme, bleedMm, pageCount: result.pageCount, caliperMm, memoryCount: result.memories, photo: { path: path.join(dir, `${coverPicture}.jpg`) }, back: result.back, output: createWriteStream(coverFile), now: new Date('2026-06-01T00:00:00Z') });
          const coverBytes = await readFile(coverFile);
          for (const p of await preflightPdfX4(coverBytes, { outputConditionIdentifier: 'FOGRA39' })) problems.push(`preflight of the cover wrap: ${p}`);
          const [coverPage] = (await PDFDocument.load(coverBytes, { updateMetadata: false })).getPages();
          const expected = 2 * bleedMm + 2 * 210 + spineWidthMm(result.pageCount, caliperMm);
          expect(spineWidthMm(result.pageCount, caliperMm)).toBeCloseTo(result.pageCount * caliperMm, 6);
          expect(coverPage.getMediaBox().width / mm(1), 'cover wrap width, mm').toBeCloseTo(expected, 1);
          expect(wrap.widthMm).toBeCloseTo(expected, 6);
          const trim = coverPage.getTrimBox();
          expect(trim.width / mm(1), 'the wrap trimmed: back, spine, front').toBeCloseTo(2 * 210 + spineWidthMm(result.pageCount, caliperMm), 1);
        }

        // ---- every photo prints at 200 ppi or more (a small original gets a smaller cell) ----
        for (const im of await printedImages(file)) {
          if (Math.min(im.xPpi, im.yPpi) < MIN_PRINT_PPI - 0.5) problems.push(`page ${im.page}: a ${im.width}×${im.height} picture prints at ${Math.min(im.xPpi, im.yPpi)} ppi`);
        }

        // ---- no photo printed over another: two photos on a page never share more than a sliver ----
        // (Page 1 is the cover, whose picture may lie on a printed ground; emoji, drawn in the text's own space, are left out.)
        const placements = (await imagePlacements(bytes)).filter((im) => im.page > 1 && Math.min(im.x1 - im.x0, im.y1 - im.y0) >= mm(20));
        for (const [i, a] of placements.entries()) {
          for (const b of placements.slice(i + 1)) {
            if (a.page !== b.page) continue;
            const shared = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
            const smaller = Math.min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0));
            if (shared > 0.05 * smaller) problems.push(`page ${a.page}: two pictures overlap (${Math.round((100 * shared) / smaller)}% of the smaller)`);
          }
        }

        // ---- every character has a glyph on its page ----
        for (const blank of new Set(await blankGlyphs(bytes))) problems.push(`prints as a box or nothing: ${blank}`);
        const { stdout: layer } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
        const pageTexts = layer.split('\f');
        const drawn = await charactersByPage(bytes);
        for (const [i, chars] of drawn.entries()) {
          const missing = new Set<string>();
          for (const ch of (pageTexts[i] ?? '').normalize('NFC')) {
            if (invisible(ch)) continue;
            const cp = ch.codePointAt(0)!;
            if (chars.has(cp) || chars.has(ch.normalize('NFD').codePointAt(0)!)) continue;
            // A vowel sign or other mark a shaper drew as part of another glyph (whose ToUnicode entry names
            // another character): drawn when its script's face draws on the page.
            if (/\p{M}/u.test(ch) && [...chars.keys()].some((c) => sameScript(ch, String.fromCodePoint(c)))) continue;
            missing.add(ch);
          }
          if (missing.size) problems.push(`page ${i + 1}: no glyph on the page for ${[...missing].join('')}`);
          // Japanese in the Japanese face, Chinese in the Chinese one.
          for (const [cp, fonts] of chars) {
            const ch = String.fromCodePoint(cp);
            const names = [...fonts].join(',');
            if ((KANA.test(ch) || KANJI_JAPANESE.test(ch)) && !/NotoSansJP|NotoSerifJP/.test(names)) problems.push(`page ${i + 1}: Japanese ${ch} set in ${names}`);
            if (HAN_CHINESE.test(ch) && !/NotoSansHans|NotoSerifSC/.test(names)) problems.push(`page ${i + 1}: Chinese ${ch} set in ${names}`);
          }
        }

        // ---- nothing dropped, in order ----
        // In the order it is drawn (pdftotext places marked-content text at a point of its own, so its reading order is no guide).
        const doc = bare((await textInDrawingOrder(bytes)).join('\n'));
        let at = 0;
        for (const m of memories) {
          // Its words, then the transcripts of its recordings (set under their codes).
          const want = bare(normalizeText(smartPunctuation([m.text, ...m.recordings.map((r) => r.transcript ?? '')].join(' '))));
          let i = 0;
          let j = at;
          // Each character in order (running heads, folios and signatures may come between).
          while (i < want.length && j < doc.length) {
            if (doc.startsWith(want[i], j) || want.codePointAt(i) === doc.codePointAt(j)) i += want[i].length;
            j++;
          }
          if (i < want.length) {
            problems.push(`${m.id} (${m.script}): the text layer loses it at “${want.slice(Math.max(0, i - 10), i)}⟨${want.slice(i, i + 10)}⟩”`);
          } else at = j;
        }

        // ---- lines where the renderer set them; no widow or orphan ----
        const geometry = path.join(dir, `${theme}-glyphs.pdf`);
        await writeFile(geometry, await withoutActualText(bytes));
        const words = await wordsByPage(geometry);
        const onLine = (l: TracedLine | TracedSignature) =>
          words[l.page - 1].filter((w) => w.yMin - 1 <= l.baseline && l.baseline <= w.yMax + 1 && w.xMax > l.column.x - 2 && w.xMin < l.column.x + l.column.w + 2);
        // Every line, words and signature, stays inside its column (a word starting in it is read with it, however far it runs).
        for (const l of [...lines, ...signatures]) {
          const found = onLine(l);
          if (!found.length) continue;
          const [left, right] = [Math.min(...found.map((w) => w.xMin)), Math.max(...found.map((w) => w.xMax))];
          // (A justified line's own check below allows it 1.5 pt either way: kerning across its widened spaces.)
          const slack = 'justified' in l && l.justified ? 1.5 : 0.5;
          if (left < l.column.x - slack || right > l.column.x + l.column.w + slack) problems.push(`${l.id}: a ${'justified' in l ? 'line' : 'signature'} on page ${l.page} spans ${left.toFixed(1)}–${right.toFixed(1)}, outside its column ${l.column.x.toFixed(1)}–${(l.column.x + l.column.w).toFixed(1)}`);
        }
        for (const l of signatures) if (!onLine(l).length) problems.push(`${l.id}: no signature read back on page ${l.page} at ${l.baseline.toFixed(1)}`);
        const byMemory = new Map<string, Map<number, number>>();
        for (const l of lines) {
          const found = onLine(l);
          if (!found.length) problems.push(`${l.id}: no words read back on page ${l.page} at ${l.baseline.toFixed(1)}`);
          const pages = byMemory.get(l.id) ?? new Map<number, number>();
          pages.set(l.page, (pages.get(l.page) ?? 0) + 1);
          byMemory.set(l.id, pages);
          if (!found.length) continue;
          const left = Math.min(...found.map((w) => w.xMin));
          const right = Math.max(...found.map((w) => w.xMax));
          const [colLeft, colRight] = [l.column.x, l.column.x + l.column.w];
          if (l.justified && (Math.abs(left - colLeft) > 1.5 || Math.abs(right - colRight) > 1.5)) problems.push(`${l.id}: justified line on page ${l.page} spans ${left.toFixed(1)}–${right.toFixed(1)}, column ${colLeft.toFixed(1)}–${colRight.toFixed(1)}`);
          if (!l.justified && l.align === 'left' && l.dir === 'rtl' && Math.abs(right - colRight) > 1.5) problems.push(`${l.id}: right-to-left line on page ${l.page} ends at ${right.toFixed(1)}, not the column's right ${colRight.toFixed(1)}`);
          if (!l.justified && l.align === 'left' && l.dir === 'ltr' && Math.abs(left - colLeft) > 1.5) problems.push(`${l.id}: line on page ${l.page} starts at ${left.toFixed(1)}, not the column's left ${colLeft.toFixed(1)}`);
          const script = memories.find((m) => m.id === l.id)!.script;
          if (script === 'chinese' || script === 'japanese') {
            // (The display quote mark beside a short memory's first line is not part of it.)
            const height = Math.min(...found.map((w) => w.yMax - w.yMin));
            const text = found
              .filter((w) => w.yMax - w.yMin < height * 1.5)
              .sort((a, b) => a.xMin - b.xMin)
              .map((w) => w.text)
              .join('');
            if (NOT_FIRST.test(text) || NOT_LAST.test(text)) problems.push(`${l.id}: kinsoku broken on page ${l.page}: ${text}`);
          }
        }
        // A paragraph split across pages or columns keeps two lines or more on each side.
        const parts = new Map<string, { paragraph: number; where: string; count: number }[]>();
        for (const l of lines) {
          const list = parts.get(l.id) ?? [];
          const paragraph = (list.at(-1)?.paragraph ?? -1) + (l.first ? 1 : 0);
          const where = `page ${l.page}, column at ${l.column.x.toFixed(0)}`;
          const part = list.at(-1);
          if (part && part.paragraph === paragraph && part.where === where) part.count++;
          else list.push({ paragraph, where, count: 1 });
          parts.set(l.id, list);
        }
        for (const [id, list] of parts) {
          for (const part of list) {
            const split = list.filter((p) => p.paragraph === part.paragraph).length > 1;
            if (split && part.count < 2) problems.push(`${id}: paragraph ${part.paragraph + 1} leaves a single line on ${part.where}`);
          }
        }
        // Long memories (their lines) are set upright, at 10.5 pt or more reversed out of a dark page,
        // to a measure of 75 characters or fewer on average (a book typographer's 45–75).
        // (A theme that sets its words on paper, PdfLook.paper, reads them there: its long text is not reversed.)
        const dark = luminance((PDF_LOOKS[theme as Theme].paper?.palette ?? THEME_STYLES[theme as Theme].palette).background) < 0.35;
        const measures = new Map<string, number[]>();
        for (const l of lines) {
          if (!l.long) continue;
          if (l.italic) problems.push(`${l.id}: long text set in italic on page ${l.page}`);
          if (dark && l.size < 10.5) problems.push(`${l.id}: long text at ${l.size} pt reversed out of a dark page, on page ${l.page}`);
          const found = onLine(l).sort((a, b) => a.xMin - b.xMin);
          // (Characters as a reader counts them: graphemes, a letter with its marks, a Devanagari syllable.)
          if (found.length) measures.set(l.id, [...(measures.get(l.id) ?? []), [...graphemes.segment(found.map((w) => w.text).join(' ').normalize('NFC'))].length]);
        }
        for (const [id, counts] of measures) {
          const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
          if (mean > 75) problems.push(`${id}: long text runs ${mean.toFixed(0)} characters a line`);
        }
        // A memory's photos (and a journal's date above them) never end a page with all its words overleaf. (Unless
        // they open the page: then the photo block's height, not where the page turns, leaves its words no room.)
        for (const pic of new Map(pictures.map((x) => [`${x.id} ${x.page}`, x])).values()) {
          const first = lines.find((l) => l.id === pic.id);
          if (first && first.page !== pic.page && opensPage.get(pic.page) !== pic.id) problems.push(`${pic.id}: its pictures on page ${pic.page}, its words from page ${first.page}`);
        }
        for (const [id, pages] of byMemory) {
          if (pages.size < 2) continue;
          const count = [...pages.values()].reduce((a, b) => a + b, 0);
          if (count <= 12) problems.push(`${id}: ${count} lines split over pages ${[...pages.keys()].join(', ')} (a memory of 12 lines or fewer goes whole to one page)`);
          for (const [page, count] of pages) if (count < 2) problems.push(`${id}: a single line on page ${page} (${[...pages].map(([p, c]) => `p${p}:${c}`).join(' ')})`);
        }
        expect(byMemory.size, 'every memory set').toBe(memories.filter((m) => m.text.trim()).length);

        // ---- pacing, as a reader counts it: no run of more than four spreads of words only, photos allowing ----
        // (A spread breaks a run only when a photo is on it: a memory's, a held photo's, a plate; a quote page is words.)
        const photoKinds: PageKind[] = ['plate', 'breather', 'closing'];
        // (A picture book's drawn picture page is a designed picture page: it breaks a run too.)
        const pictured = new Set([...pictures.map((x) => x.page), ...breathers.map((b) => b.page), ...drawnPictures, ...kinds.flatMap((k, i) => (photoKinds.includes(k) ? [i + 1] : []))]);
        const lastMemoryPage = Math.max(...[...lines, ...signatures, ...pictures].map((x) => x.page));
        const firstMemoryPage = kinds.indexOf('memories') + 1;
        const spreadRuns = wordOnlySpreadRuns(firstMemoryPage, pictured, lastMemoryPage);
        const photosSent = memories.reduce((n, m) => n + m.pictures.filter((x) => x.kind === 'photo').length, 0);
        const memorySpreads = Math.ceil((lastMemoryPage - firstMemoryPage + 1) / 2);
        const longestSpreads = Math.max(0, ...spreadRuns.map((r) => r.spreads));
        if (process.env.MEMORYBOOK_PACING_LOG) console.log(`pacing ${theme} ${intent}: longest word-only run ${longestSpreads} spreads; ${photosSent} photos, ${photosToBreakRuns(memorySpreads)} needed for ${memorySpreads} spreads`);
        if (photosSent >= photosToBreakRuns(memorySpreads)) {
          const longest = Math.max(0, ...wordOnlyRuns(kinds, pictured, lastMemoryPage).map((r) => r.length));
          for (const run of spreadRuns) if (run.spreads > MAX_WORD_SPREADS) problems.push(`${run.spreads} spreads of words only, pages ${run.from}–${run.from + 2 * run.spreads - 1} (the book's longest run of pages of words only: ${longest})`);
        }

        // ---- quote pages: never two in a row, and at most one in the theme's quoteEvery pages ----
        const quotePages = kinds.flatMap((k, i) => (k === 'quote' ? [i + 1] : []));
        const quoteEvery = Math.max(2, PDF_LOOKS[theme as Theme].quoteEvery);
        for (const [i, n] of quotePages.entries()) if (i > 0 && n - quotePages[i - 1] < quoteEvery) problems.push(`quote pages ${quotePages[i - 1]} and ${n}: closer than one in ${quoteEvery} pages`);

        // ---- an album's spreads: a memory's photo alone on its page faces the page its words open on ----
        if (PDF_LOOKS[theme as Theme].photoSpread) {
          const wordsOpen = new Map<string, number>();
          for (const x of [...lines, ...signatures]) wordsOpen.set(x.id, Math.min(wordsOpen.get(x.id) ?? Infinity, x.page));
          const spreads = pictures.filter((x) => kinds[x.page - 1] === 'plate' || kinds[x.page - 1] === 'breather');
          for (const x of spreads) {
            const facing = x.page % 2 === 0 ? x.page + 1 : x.page - 1;
            // (A memory may open with a photo of its own alone on a recto, its spread overleaf.)
            const opensSpread = spreads.some((y) => y.id === x.id && y.page === x.page + 1);
            if (wordsOpen.get(x.id) !== facing && !opensSpread) problems.push(`${x.id}: its photo alone on page ${x.page}, its words opening on page ${wordsOpen.get(x.id)} (not the page facing it)`);
          }
          // Most memories with a photo are set so, and photos are on at least half the pages of memories.
          const withPhoto = new Set(pictures.map((x) => x.id));
          if (spreads.length * 2 < withPhoto.size) problems.push(`${spreads.length} of ${withPhoto.size} memories with a photo set as a spread`);
          const memoryPages = kinds.flatMap((k, i) => (i + 1 <= lastMemoryPage && ['memories', 'plate', 'breather', 'quote'].includes(k) ? [i + 1] : []));
          const photoPages = memoryPages.filter((n) => pictures.some((x) => x.page === n) || breathers.some((b) => b.page === n) || kinds[n - 1] === 'plate');
          // (Half of them, or as many as there are photos among them, each alone on its page but for a memory's held photos two
          // to a page after it, where three or more would not all print within two pages of it: the test book's long
          // letters in every script outnumber its 26 photos.)
          const photos = [...pictures, ...breathers].filter((x) => x.page <= lastMemoryPage).length;
          const paired = new Set(breathers.filter((b, i) => breathers.some((c, j) => j !== i && c.page === b.page)).map((b) => b.page)).size;
          if (photoPages.length < Math.min(Math.ceil(memoryPages.length / 2), photos - paired)) problems.push(`photos on ${photoPages.length} of ${memoryPages.length} pages of memories (${photos} photos)`);
        }

        // A memory's last page: where its last line, signature or picture is; its first, where its first is.
        const lastPage = new Map<string, number>();
        const firstPage = new Map<string, number>();
        for (const x of [...lines, ...signatures, ...pictures]) {
          lastPage.set(x.id, Math.max(lastPage.get(x.id) ?? 0, x.page));
          firstPage.set(x.id, Math.min(firstPage.get(x.id) ?? Infinity, x.page));
        }

        // ---- a picture book's pages (storybook, baby_first_year: PdfLook.pictureOpens) ----
        // Every memory with a photo opens a page of its own with it, its words starting under it on that page; that
        // photo is its page's only one, and a held photo has a page of its own (two share one only when a short
        // memory holds more than two, so they stay near it); together they take a share of the memory pages.
        if (PDF_LOOKS[theme as Theme].pictureOpens) {
          for (const id of new Set(pictures.map((x) => x.id))) {
            const page = Math.min(...pictures.filter((x) => x.id === id).map((x) => x.page));
            if (opensPage.get(page) !== id) problems.push(`${id}: its photo on page ${page}, which ${opensPage.get(page)} opens`);
            const first = lines.find((l) => l.id === id);
            if (first && first.page !== page) problems.push(`${id}: its photo on page ${page}, its words from page ${first.page}`);
          }
          const perPage = new Map<number, number>();
          for (const x of [...pictures, ...breathers]) perPage.set(x.page, (perPage.get(x.page) ?? 0) + 1);
          for (const [page, count] of perPage) {
            const held = breathers.filter((b) => b.page === page);
            if (count > (held.length === count ? 2 : 1)) problems.push(`page ${page}: ${count} photos (a picture book's page has one)`);
            if (held.length === 2 && breathers.filter((b) => b.id === held[0].id).length <= 2) problems.push(`page ${page}: two held photos of ${held[0].id}, which holds two (a page each)`);
          }
          const memoryPages = kinds.flatMap((k, i) => (['memories', 'quote', 'breather', 'plate'].includes(k) && i + 1 <= lastMemoryPage ? [i + 1] : []));
          // (A drawn picture is a picture book's picture where it has no photo left near.)
          const share = memoryPages.filter((n) => perPage.has(n) || drawnPictures.includes(n)).length / memoryPages.length;
          // (The test book is mostly long letters without photos: 26 photos over some 75 pages of memories.)
          if (share < PICTURE_BOOK_SHARE) problems.push(`photos on ${Math.round(share * 100)}% of the ${memoryPages.length} pages of memories`);
        }

        // ---- the flow of photos: each printed once, captioned with whose it is away from its memory, none piled up at the end ----
        // (A memory's held photos beyond the first half are the book's breathers, placed where a run of words needs one: see pacing.ts.)
        for (const m of memories) {
          const sent = m.pictures.filter((x) => x.kind === 'photo').length;
          // (A photo of its own bled off the page before its words, a plate, is not traced as one of its pictures.)
          const plated = firstPage.has(m.id) && kinds[firstPage.get(m.id)! - 2] === 'plate' && !breathers.some((b) => b.page === firstPage.get(m.id)! - 1) ? 1 : 0;
          const printed = pictures.filter((x) => x.id === m.id).length + breathers.filter((b) => b.id === m.id).length + plated;
          if (printed !== sent) problems.push(`${m.id}: ${printed} of its ${sent} photos printed`);
        }
        for (const b of breathers) {
          if (b.page >= firstPage.get(b.id)! && b.page <= lastPage.get(b.id)! + 2) continue;
          const name = bare(memories.find((m) => m.id === b.id)!.signature ?? '').toUpperCase();
          // (pdftotext gives right-to-left words in visual order, between bidi controls.)
          const text = bare(pageTexts[b.page - 1] ?? '').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '').toUpperCase();
          if (name && !text.includes(name) && !text.includes([...name].reverse().join(''))) problems.push(`${b.id}: its photo on page ${b.page}, away from its memory (pages ${firstPage.get(b.id)}–${lastPage.get(b.id)}), without its contributor's name`);
        }
        const heldAtEnd = new Set(breathers.filter((b) => b.page > lastMemoryPage).map((b) => b.page)).size;
        if (heldAtEnd > 1) problems.push(`${heldAtEnd} pages of held photos after the last memory (page ${lastMemoryPage})`);
        const colophon = kinds.indexOf('end');
        if (colophon < 0) problems.push('no colophon page');
        for (const [i, k] of kinds.entries()) if (k === 'blank' && i < colophon) problems.push(`page ${i + 1}: blank before the colophon (page ${colophon + 1})`);
        // The book's end: the pages a print multiple asks for are filled before the ending, the colophon the last
        // printed page; at most the back of its leaf (a recto colophon's) is left blank.
        const afterColophon = kinds.length - 1 - colophon;
        if (afterColophon > 1 || (afterColophon === 1 && (kinds.at(-1) !== 'blank' || (colophon + 1) % 2 !== 1))) problems.push(`${afterColophon} page(s) after the colophon (page ${colophon + 1} of ${kinds.length}): at most the back of its leaf`);
        // The ending is a spread: the contributors' index ends on a verso (even), the colophon's page faces it.
        const indexEnds = kinds.lastIndexOf('contributors') + 1;
        if (indexEnds && indexEnds % 2 !== 0) problems.push(`"With love from" ends on page ${indexEnds}, a recto (the closing page goes overleaf)`);
        if (indexEnds && colophon + 1 !== indexEnds + 1) problems.push(`the colophon on page ${colophon + 1}, not facing the index's last page ${indexEnds}`);

        // ---- picture-led pages: a catalogue's plates on rectos, captioned; a photo-led theme's photos on half its pages ----
        problems.push(...picturePageProblems(theme, PDF_LOOKS[theme as Theme], memories, { kinds, pictures, breathers, pageTexts }));

        // ---- a Swiss grid's photos hang on the text column's line: flush with its left edge, or (wider than it, on a verso) its right ----
        if (PDF_LOOKS[theme as Theme].photoHang) {
          for (const pic of pictures) {
            const cols = lines.filter((l) => l.page === pic.page).map((l) => l.column);
            if (!cols.length || pic.x === undefined || pic.w === undefined) continue;
            const [left, right] = [Math.min(...cols.map((c) => c.x)), Math.max(...cols.map((c) => c.x + c.w))];
            if (Math.abs(pic.x - left) > 0.6 && Math.abs(pic.x + pic.w - right) > 0.6) problems.push(`page ${pic.page}: ${pic.id}'s photo at ${pic.x.toFixed(1)}–${(pic.x + pic.w).toFixed(1)} pt, off the text column's lines ${left.toFixed(1)} / ${right.toFixed(1)}`);
          }
        }

        // ---- sparse pages ----
        const sparse: string[] = [];
        const prefix = path.join(dir, `${theme}-page`);
        await run('pdftoppm', ['-gray', '-r', '20', file, prefix]);
        const g = bookGeometry(bleedMm, gutterMm, PDF_LOOKS[theme as Theme].margins);
        const digits = String(result.pageCount).length;
        for (let n = 1; n <= result.pageCount; n++) {
          if (kinds[n - 1] !== 'memories') continue;
          const { data, info } = readPgm(await readFile(`${prefix}-${String(n).padStart(digits, '0')}.pgm`));
          const counts = new Uint32Array(256);
          for (const v of data) counts[v]++;
          const background = counts.indexOf(Math.max(...counts));
          const scale = info.width / g.page;
          const live = g.content(n);
          const [x0, x1, y0, y1] = [live.x, live.x + live.w, live.y, live.y + live.h].map((v) => Math.round(v * scale));
          let first = -1;
          let last = -1;
          for (let y = y0; y < y1; y++) {
            let inked = false;
            for (let x = x0; x < x1 && !inked; x++) inked = Math.abs(data[y * info.width + x] - background) > 12;
            if (inked) {
              if (first < 0) first = y;
              last = y;
            }
          }
          const share = first < 0 ? 0 : (last - first + 1) / (y1 - y0);
          if (share < 0.4) sparse.push(`page ${n}: ink over ${Math.round(share * 100)}% of the live area's height`);
        }

        expect(problems, `${theme}, ${intent}`).toEqual([]);
        // None: photos that do not fit below what is on a page shrink (within limits) rather than leave it
        // short, a memory that fits on one page goes overleaf only from a page already well filled, and a
        // short memory left alone on its page is set as a quote page (a designed page).
        expect(sparse.length, `sparse pages of memories in ${theme}, ${intent}: ${sparse.join('; ')}`).toBeLessThanOrEqual(SPARSE_PAGES_ALLOWED);
      }, 120_000);
    }
  });
}

export type { TestMemory };
