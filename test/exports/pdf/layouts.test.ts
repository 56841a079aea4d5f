/**
 * Page designs of particular themes, read back from the PDF: wedding_album's
 * plates bleed off every edge of a print-ready page, daily_journal heads an
 * entry with its date above its photos, and a short memory alone on its page
 * is set large, scaled to its length, and centred.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookGeometry, mm } from '../../../src/exports/pdf/geometry.js';
import { PDF_LOOKS } from '../../../src/exports/pdf/pdf-themes.js';
import { quoteTypeSize, renderPdfBook, type PdfBookInput, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import type { Theme } from '../../../src/media-tools/themes.js';
import { imagePlacements, textInDrawingOrder } from '../../helpers/pdf-readback.js';

const run = promisify(execFile);

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const memory = (i: number, o: Partial<PdfMemory> = {}): PdfMemory => ({
  id: `m${i}`,
  text: `Memory ${i}: the lake, the pier and the long drive home in the rain.`,
  signature: `Writer ${i}`,
  date: `2026-05-0${(i % 9) + 1}T10:00:00Z`,
  pinned: false,
  pictures: [],
  recordings: [],
  ...o,
});

async function words(file: string, page: number) {
  const { stdout } = await run('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-']);
  return [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    x0: Number(m[1]),
    y0: Number(m[2]),
    x1: Number(m[3]),
    y1: Number(m[4]),
    text: m[5],
  }));
}

/** A page's boxes as pdfinfo reads them, points. */
async function boxes(file: string, page: number) {
  const { stdout } = await run('pdfinfo', ['-box', '-f', String(page), '-l', String(page), file]);
  const box = (name: string) => stdout.match(new RegExp(`Page\\s+${page} ${name}:\\s+([-\\d.]+)\\s+([-\\d.]+)\\s+([-\\d.]+)\\s+([-\\d.]+)`))!.slice(1).map(Number);
  return { media: box('MediaBox'), bleed: box('BleedBox'), trim: box('TrimBox') };
}

describe('theme page designs', () => {
  let dir: string;
  let big: string;
  let small: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-layouts-'));
    big = path.join(dir, 'big.jpg');
    small = path.join(dir, 'small.jpg');
    await sharp({ create: { width: 2400, height: 1800, channels: 3, background: '#2b5797' } }).jpeg().toFile(big);
    await sharp({ create: { width: 900, height: 700, channels: 3, background: '#2b5797' } }).jpeg().toFile(small);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function render(name: string, theme: Theme, memories: PdfMemory[], o: Partial<PdfBookInput> = {}) {
    const file = path.join(dir, `${name}.pdf`);
    const files: Record<string, string> = { big, small };
    const kinds: string[] = [];
    const result = await renderPdfBook({
      title: 'Layouts',
      subtitle: '',
      theme,
      bleedMm: 3,
      gutterMm: 10,
      memoryCount: memories.length,
      memories: iterate(memories),
      openPicture: async (key) => ({ path: files[key], release: async () => {} }),
      output: createWriteStream(file),
      printReady: true,
      trace: { page: (n, kind) => (kinds[n - 1] = kind) },
      ...o,
    });
    return { file, result, kinds };
  }

  it('wedding_album: a sharp photo becomes a plate bled 3 mm past the trim on every side, its words on the next page', async () => {
    const list = [
      memory(0, { text: 'The lake at dawn, the year the pier was rebuilt.', pictures: [{ key: 'big', kind: 'photo' }] }),
      memory(1, { text: 'A second photo, matted like a print.', pictures: [{ key: 'big', kind: 'photo' }] }),
      memory(2, { text: 'Too small a photo for a whole page.', pictures: [{ key: 'small', kind: 'photo' }] }),
      memory(3, { text: 'Matted: only two prints since the plate.', pictures: [{ key: 'big', kind: 'photo' }] }),
      memory(4, { text: 'Another plate: three matted prints came between.', pictures: [{ key: 'big', kind: 'photo' }] }),
    ];
    const { file, result, kinds } = await render('album', 'wedding_album', list);
    const placed = await imagePlacements(file);
    const g = bookGeometry(3, 10, PDF_LOOKS.wedding_album.margins);
    // (The page that puts the ending on its spread may show the cover photo at full page too: not a memory's plate.)
    const plates = placed.filter((im) => im.x0 <= 0.01 && im.y0 <= 0.01 && im.x1 >= g.page - 0.01 && im.y1 >= g.page - 0.01 && kinds[im.page - 1] !== 'closing');
    expect(plates.length, 'plates (memories 0 and 4)').toBe(2);
    for (const plate of plates) {
      // The page's boxes: the bleed box is the whole page, the trim 3 mm in from it on every side, so the plate runs 3 mm past the trim.
      const b = await boxes(file, plate.page);
      expect(b.bleed).toEqual(b.media);
      for (const [i, v] of b.trim.entries()) expect(v).toBeCloseTo(i < 2 ? b.bleed[i] + mm(3) : b.bleed[i] - mm(3), 1);
      expect(b.trim[2] - b.trim[0]).toBeCloseTo(mm(210), 1);
      // Nothing else on the plate's page: no running head, folio or words.
      expect(await words(file, plate.page)).toEqual([]);
    }
    // The caption follows: the memory's words open the next page.
    const following = await words(file, plates[0].page + 1);
    expect(following.map((w) => w.text).join(' ')).toContain('The lake at dawn');
    // The other photos are not plates (those are counted above): matted inside the page, or (wide and sharp enough
    // for the page's width, not its height) bled across it, off both sides (album-spread.ts bledAcross).
    const others = placed.filter((im) => im.page > 2 && !['end', 'closing'].includes(kinds[im.page - 1]) && !plates.includes(im));
    expect(others.length).toBe(3);
    for (const im of others) {
      const across = im.x0 <= 0.01 && im.x1 >= g.page - 0.01;
      if (!across) expect(im.x0, `page ${im.page}: matted`).toBeGreaterThan(g.bleed + mm(5));
    }
    expect(result.pictures).toBe(5);
    expect(result.pageCount % 4).toBe(0);
  }, 60_000);

  it('a held photo is captioned with who sent it, never with the memory\u2019s words cut short', async () => {
    const text = 'Garden, little thermos, the letters and the stones we carried home from the beach that summer.';
    const photos = Array.from({ length: 5 }, () => ({ key: 'big', kind: 'photo' as const }));
    const { file, kinds } = await render('captions', 'elegant_classic', [memory(0, { text, signature: 'Rose & Tom', pictures: photos }), memory(1)]);
    const breathers = kinds.flatMap((k, i) => (k === 'breather' || k === 'plate' ? [i + 1] : []));
    expect(breathers.length, 'pages of held photos').toBeGreaterThan(0);
    for (const page of breathers) {
      const caption = (await words(file, page)).map((w) => w.text).join(' ');
      expect(caption.replace(/&amp;/g, '&')).toContain('Rose & Tom');
      expect(caption).not.toContain('Garden');
      expect(caption).not.toContain('\u2026');
    }
  }, 60_000);

  it('a bar theme marks a memory\u2019s opening, not every paragraph of a long letter', async () => {
    const paragraph = (n: number) => `Paragraph ${n}: we drove to the lake every summer, the car full of towels, sandwiches and the old blue thermos, and stayed until the light went.`;
    const letter = [1, 2, 3, 4].map((n) => `${paragraph(n)} ${paragraph(n)}`).join('\n\n');
    for (const theme of ['modern_clean', 'editorial_noir'] as const) {
      const { file, kinds } = await render(`bars-${theme}`, theme, [memory(0, { text: letter }), memory(1, { text: 'Short and barred.' })]);
      // The accent bars (upright rectangles 2.6 pt wide, wider beside large type), joined where one line's bar meets the next: one per memory.
      const pdf = await PDFDocument.load(await readFile(file), { updateMetadata: false });
      let bars = 0;
      // (The ending's quote pages, which fill the book before it, carry the theme's bar as every quote page does: not a memory's.)
      for (const [i, page] of pdf.getPages().entries()) {
        if (kinds[i] === 'closing') continue;
        const contents = page.node.Contents();
        const streams = contents instanceof PDFArray ? contents.asArray().map((r) => pdf.context.lookup(r)) : [contents];
        let text = '';
        for (const st of streams) if (st instanceof PDFRawStream) text += Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') + '\n';
        const rects = [...text.matchAll(/[-\d.]+ ([-\d.]+) ([\d.]+) ([-\d.]+) re/g)].filter((m) => Number(m[2]) >= 2.6 && Number(m[2]) < 8 && Number(m[3]) > 2 * Number(m[2]));
        const spans = rects.map((m) => [Number(m[1]), Number(m[1]) + Number(m[3])]).sort((a, b) => a[0] - b[0]);
        spans.forEach((s, k) => (bars += k === 0 || s[0] > spans[k - 1][1] + 0.5 ? 1 : 0));
      }
      expect(bars, `${theme}: bars, one beside each memory's opening`).toBe(2);
    }
  }, 60_000);

  it('daily_journal: the date heading comes before the photos of its entry', async () => {
    const list = [
      memory(0, { text: 'First entry, with a photo.', date: '2026-03-14T10:00:00Z', pictures: [{ key: 'small', kind: 'photo' }] }),
      memory(1, { text: 'Second entry, with two photos.', date: '2026-04-02T10:00:00Z', pictures: [{ key: 'small', kind: 'photo' }, { key: 'big', kind: 'photo' }] }),
    ];
    const { file, kinds } = await render('journal', 'daily_journal', list, { printReady: false, bleedMm: 0, gutterMm: 0 });
    const placed = (await imagePlacements(file)).filter((im) => im.page >= 3 && kinds[im.page - 1] === 'memories');
    // (A short entry's print is taped beside its words, a second one on a page of its own: one print with each entry.)
    expect(placed.length).toBe(2);
    expect(kinds).toContain('breather');
    for (const [day, month] of [
      ['14', 'March'],
      ['2', 'April'],
    ]) {
      let found = false;
      for (const n of new Set(placed.map((im) => im.page))) {
        const ws = await words(file, n);
        const heading = ws.find((w, i) => w.text === month && ws[i - 1]?.text === day);
        if (!heading) continue;
        found = true;
        // Its photos: those on the page below the heading and above the entry's words.
        const entry = ws.find((w) => w.text === (month === 'March' ? 'First' : 'Second'))!;
        // (Both entries may share a page: the first one's print is above the second's heading, not counted for it.)
        const mine = placed.filter((im) => im.page === n && im.y0 < entry.y0 && im.y1 > heading.y0);
        expect(mine.length, `${day} ${month}: photos between heading and words`).toBe(1);
        for (const im of mine) expect(heading.y1, `${day} ${month} above its photo`).toBeLessThan(im.y0);
      }
      expect(found, `${day} ${month} heading`).toBe(true);
    }
  }, 60_000);

  it('a short memory alone on its page is set large, scaled to its length, and centred', async () => {
    const theme = 'elegant_classic';
    const g = bookGeometry(3, 10, PDF_LOOKS[theme].margins);
    const live = g.content(3);
    const size = async (name: string, list: PdfMemory[], marker: string) => {
      const { file } = await render(name, theme, list);
      const ws = (await words(file, 3)).filter((w) => w.y0 >= live.y && w.y1 <= live.y + live.h);
      const mine = ws.filter((w) => w.text.startsWith(marker));
      expect(mine.length, name).toBeGreaterThan(0);
      const inked = ws.filter((w) => !/^[—–-]+$/.test(w.text));
      return { height: mine[0].y1 - mine[0].y0, top: Math.min(...inked.map((w) => w.y0)), bottom: Math.max(...inked.map((w) => w.y1)), left: Math.min(...inked.map((w) => w.x0)), right: Math.max(...inked.map((w) => w.x1)) };
    };
    // (Three words: a word or two is never set large alone, see tiny-memory.test.ts.)
    const short = await size('quote-short', [memory(0, { text: 'Always our Grandma.' })], 'Always');
    const medium = await size('quote-medium', [memory(0, { text: 'Sundays meant cardamom buns and the corner piece kept for me, even when my brothers begged for it, and tea on the porch until dark.' })], 'Sundays');
    const shared = await size('shared', [memory(0, { text: 'Sharing a page with others.' }), memory(1), memory(2), memory(3)], 'Sharing');
    // Word heights follow the type size: the shortest memory largest, all of them above a shared page's.
    expect(short.height).toBeGreaterThan(medium.height * 1.3);
    expect(medium.height).toBeGreaterThan(shared.height * 1.15);
    expect(short.height / shared.height).toBeGreaterThan(2);
    expect(quoteTypeSize(12.5, 15)).toBeCloseTo(12.5 * 2.6);
    expect(quoteTypeSize(12.5, 900)).toBeCloseTo(12.5 * 1.25);
    // Balanced: centred on the live area both ways.
    for (const q of [short, medium]) {
      expect(Math.abs((q.top + q.bottom) / 2 - (live.y + live.h / 2))).toBeLessThan(live.h * 0.06);
      expect(Math.abs((q.left + q.right) / 2 - (live.x + live.w / 2))).toBeLessThan(mm(3));
    }
  }, 60_000);
  it('who first, dates where they tell something: the byline opens a memory; one day prints no date, months open chapters', async () => {
    const text = (file: string) => run('pdftotext', ['-enc', 'UTF-8', file, '-']).then((r) => r.stdout);
    // All sent the same day: no date anywhere, each memory opens with its writer's name.
    const sameDay = [0, 1, 2].map((i) => memory(i, { date: '2026-05-03T10:00:00Z', text: `Memory ${i} remembers the pier and the rain on the long drive home.` }));
    const one = await render('same-day', 'modern_clean', sameDay, { dates: { first: '2026-05-03T10:00:00Z', last: '2026-05-03T10:00:00Z' } });
    expect(await text(one.file)).not.toMatch(/May\s2026/i);
    // (In the order drawn: pdftotext reads a byline, an ActualText span, where its marked content starts.)
    const drawn = (await textInDrawingOrder(await readFile(one.file))).join(' ');
    for (const i of [0, 1, 2]) expect(drawn.indexOf(`Writer ${i}`), `byline ${i} before its words`).toBeLessThan(drawn.indexOf(`Memory ${i} remembers`));
    // Across days and weeks: the day in the byline.
    const weeks = [0, 1].map((i) => memory(i, { date: `2026-05-0${i + 1}T10:00:00Z` }));
    const two = await text((await render('weeks', 'modern_clean', weeks, { dates: { first: '2026-05-01T10:00:00Z', last: '2026-05-02T10:00:00Z' } })).file);
    expect(two).toMatch(/Writer 0 · 1\s+May\s+2026/i);
    // Across months: a chapter head for each month, once, and no date in the bylines.
    const months = ['2026-01-05', '2026-01-20', '2026-03-02', '2026-03-09', '2026-07-14'].map((d, i) => memory(i, { date: `${d}T10:00:00Z` }));
    const three = await text((await render('months', 'elegant_classic', months, { dates: { first: '2026-01-05T10:00:00Z', last: '2026-07-14T10:00:00Z' } })).file);
    for (const month of ['January', 'March', 'July']) expect(three.split(new RegExp(`${month}\\s+2026`)).length - 1, month).toBe(1);
    expect(three).not.toMatch(/\d+[ \u00a0](January|March|July)[ \u00a0]2026/);
  }, 60_000);

  it('a long book opens with its contents (each long letter by its writer, the contributors’ index) facing its first page; a long letter opens with a pull quote', async () => {
    const letter = (who: string) =>
      `Every summer we drove to the lake with ${who} and the car full of sandwiches. ` +
      Array.from({ length: 30 }, (_, i) => `On day ${i + 1} the pier was wet, the water cold, and she laughed at all of us.`).join(' ');
    const list = Array.from({ length: 14 }, (_, i) =>
      memory(i, { signature: i === 3 ? 'Rose' : i === 9 ? 'Tom' : `Writer ${i}`, text: i === 3 || i === 9 ? letter(i === 3 ? 'Rose' : 'Tom') : `Memory ${i}: the lake, the pier and the rain.` }),
    );
    const bylines = new Map<string, number>();
    const kinds: string[] = [];
    const { file } = await render('contents', 'elegant_classic', list, {
      trace: { page: (n, kind) => (kinds[n - 1] = kind), signature: (n, id) => bylines.has(id) || bylines.set(id, n) },
    });
    expect(kinds[1]).toBe('contents');
    expect(kinds[2]).toBe('memories');
    const contents = (await words(file, 2)).map((w) => w.text).join(' ');
    expect(contents).toContain('Contents');
    // Each letter listed with the page it opens on; the index too.
    expect(contents).toContain(`Rose ${bylines.get('m3')}`);
    expect(contents).toContain(`Tom ${bylines.get('m9')}`);
    expect(contents).toMatch(new RegExp(`With love from ${kinds.indexOf('contributors') + 1}`));
    // The pull quote: the letter's first sentence, set before it as well as in it.
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', '-f', String(bylines.get('m3')), '-l', String(bylines.get('m3')), file, '-']);
    expect(stdout.replace(/\s+/g, ' ').split('sandwiches.').length - 1).toBeGreaterThanOrEqual(2);
  }, 60_000);
  it('a voice note is its own block: whose voice and how long beside its code, its transcript under it', async () => {
    const list = [
      memory(0, {
        signature: 'Natalya',
        text: 'Happy birthday, Grandma!',
        recordings: [{ kind: 'audio', url: 'https://memorybook.example/play/abc/', duration: 83, transcript: 'Бабушка, с днём рождения! Помню лето на даче и твои пироги.' }],
      }),
    ];
    const { file } = await render('voice', 'wedding_album', list);
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-']);
    expect(stdout).toMatch(/Hear Natalya’s voice \(1:23\)/);
    // (In the order drawn, a word hyphenated at a line's end joined again.)
    const drawn = (await textInDrawingOrder(await readFile(file))).join(' ').replace(/(\p{Script=Cyrillic})-\s*(\p{Script=Cyrillic})/gu, '$1$2');
    expect(drawn.replace(/\s+/g, ' ')).toContain('Бабушка, с днём рождения! Помню лето на даче и твои пироги.');
  }, 60_000);
  it('the book ends with “With love from” and every contributor with their pages, then a closing photo above the colophon; spare leaves after it; ruled notes only in a journal on light paper', async () => {
    const list = [0, 1, 2, 3, 4].map((i) => memory(i, { signature: ['Rose', 'Tom', 'Natalya'][i % 3], pictures: i === 0 ? [{ key: 'big', kind: 'photo' }] : [] }));
    for (const theme of ['elegant_classic', 'editorial_noir', 'daily_journal'] as Theme[]) {
      const { file, result, kinds } = await render(`ending-${theme}`, theme, list);
      expect(result.pageCount % 4, theme).toBe(0);
      // The colophon's page is the last but for blank leaves after it (a multiple of 4), where a printer expects them.
      const end = kinds.indexOf('end') + 1;
      expect(end, theme).toBeGreaterThan(0);
      expect(kinds.slice(end).every((k) => k === 'blank'), `${theme}: ${kinds.slice(end)}`).toBe(true);
      expect(kinds.slice(0, end), theme).not.toContain('blank');
      // The closing photo shares it.
      expect((await imagePlacements(file)).filter((im) => im.page === end).length, theme).toBe(1);
      const index = kinds.indexOf('contributors') + 1;
      expect(index, theme).toBeGreaterThan(0);
      const text = (await words(file, index)).map((w) => w.text).join(' ');
      expect(text, theme).toContain('With love from');
      // Alphabetical, each with the pages its memories open on.
      expect(text, theme).toMatch(/Natalya \d+.*Rose \d+(, \d+)?.*Tom \d+/);
      const colophon = (await words(file, end)).map((w) => w.text).join(' ');
      expect(colophon, theme).toContain('5 memories from 3 people');
      // Ruled pages only where a theme is meant for writing, and never on dark paper.
      if (theme !== 'daily_journal') expect(kinds, theme).not.toContain('notes');
      // The closing photo is not one of the memories' pictures.
      expect(result.pictures, theme).toBe(1);
    }
  }, 60_000);
});
