/**
 * Titles: split into title and subtitle at a natural break, numbers stay with
 * their words at every width, lines never break a word, end or start on a
 * dash or leave a word alone, and titles and capitals are set with lining
 * figures (read back from the title page).
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fontFilePath, THEMES, THEME_STYLES } from '../../media-tools/themes.js';
import { splitTitle } from './covers.js';
import { renderPdfBook } from './pdf-book.js';
import { breakLines, keepNumbersWithWords, LINING_FIGURES, TextMeasurer, type TextStyle } from './text-layout.js';
import { drawLine } from './typeset.js';

const run = promisify(execFile);

describe('numbers in titles', () => {
  it('ties a number to the word before it (after it when it opens the title)', () => {
    const tied = (t: string) => keepNumbersWithWords(t).replace(/\u00a0/g, '~');
    expect(tied('Grandma Rose turns 90')).toBe('Grandma Rose turns~90');
    expect(tied('90 years of Rose')).toBe('90~years of Rose');
    expect(tied('Happy 50th, Dad')).toBe('Happy~50th, Dad');
    expect(tied('Dad at 60!')).toBe('Dad at~60!');
    expect(tied('No numbers here')).toBe('No numbers here');
  });

  it('never leaves the number alone on a line, at any width', () => {
    const doc = new PDFDocument({ autoFirstPage: false });
    doc.registerFont('title', fontFilePath(THEME_STYLES.elegant_classic.title));
    const m = new TextMeasurer(doc);
    const s: TextStyle = { face: 'title', fallbacks: [], size: 30, leading: 1.15, features: LINING_FIGURES };
    const title = keepNumbersWithWords('Grandma Rose turns 90');
    let sawBreak = false;
    // From the narrowest measure that holds "turns 90" (narrower, even a word is broken).
    for (let width = Math.ceil(m.width('title', 30, 'turns\u00a090', 0, false, LINING_FIGURES)); width <= 500; width += 5) {
      const lines = breakLines(m, title, s, width).map((l) => l.runs.map((r) => r.text).join(''));
      if (lines.length > 1) sawBreak = true;
      expect(lines.some((l) => l.trim() === '90'), `at ${width}: ${lines.join(' | ')}`).toBe(false);
      expect(lines.join(' ').replace(/\u00a0/g, ' ').replace(/ +/g, ' ')).toContain('turns 90');
    }
    expect(sawBreak).toBe(true);
  });
});

describe('splitting a title', () => {
  const split = (t: string, sub = '') => Object.values(splitTitle(t, sub));

  it('splits at a colon or a dash between words, the subtitle capitalised', () => {
    expect(split('Grandma Rose turns 90: a book of memories from all of us')).toEqual(['Grandma Rose turns 90', 'A book of memories from all of us']);
    expect(split('Grandma Rose turns 90 – a book of memories from all of us')).toEqual(['Grandma Rose turns 90', 'A book of memories from all of us']);
    expect(split('Dad at 60 — forty years of Sunday lunches')).toEqual(['Dad at 60', 'Forty years of Sunday lunches']);
    expect(split('Nonna Lucia—una vita in cucina')).toEqual(['Nonna Lucia', 'Una vita in cucina']);
    expect(split('Bà nội 90 — Cảm ơn bà')).toEqual(['Bà nội 90', 'Cảm ơn bà']);
  });

  it('splits Chinese at a full-width colon and Arabic at its colon', () => {
    expect(split('奶奶九十岁：全家人的回忆')).toEqual(['奶奶九十岁', '全家人的回忆']);
    expect(split('جدتي في التسعين: ذكريات من العائلة')).toEqual(['جدتي في التسعين', 'ذكريات من العائلة']);
  });

  it('leaves whole a title with no natural break, a date range, a given subtitle, or a part too short to stand', () => {
    expect(split('Happy birthday to the one and only Grandma Rose, who turns 90')).toEqual(['Happy birthday to the one and only Grandma Rose, who turns 90', '']);
    expect(split('In memory of Rose Hall, 1934 – 2024')).toEqual(['In memory of Rose Hall, 1934 – 2024', '']);
    expect(split('Mother-in-law of the year')).toEqual(['Mother-in-law of the year', '']);
    expect(split('Rose: a life', 'For her family')).toEqual(['Rose: a life', 'For her family']);
    expect(split('Us: 2024')).toEqual(['Us: 2024', '']);
  });
});

describe('the title page', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-title-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps "90" on the line of "turns" in every theme', async () => {
    for (const theme of THEMES) {
      for (const title of ['Grandma Rose turns 90', 'Happy birthday to the one and only Grandma Rose, who turns 90']) {
        const file = path.join(dir, `${theme}.pdf`);
        await renderPdfBook({
          title,
          subtitle: 'Memories from the family',
          theme,
          bleedMm: 0,
          gutterMm: 0,
          memoryCount: 0,
          memories: (async function* () {})(),
          openPicture: () => Promise.reject(new Error('no pictures')),
          output: createWriteStream(file),
        });
        const { stdout } = await run('pdftotext', ['-bbox', '-f', '1', '-l', '1', file, '-']);
        const words = [...stdout.matchAll(/<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">([^<]*)<\/word>/g)].map((x) => ({ y: Math.round(Number(x[1])), text: x[2] }));
        const ninety = words.find((w) => /90/.test(w.text));
        expect(ninety, `${theme}: ${words.map((w) => w.text).join(' ')}`).toBeDefined();
        const turns = words.find((w) => /turns/i.test(w.text));
        expect(turns?.y, `${theme}: "90" with "turns"`).toBe(ninety!.y);
      }
    }
  }, 120_000);

  it('breaks titles between whole words, never on a dash nor leaving one word alone, in lines of even length', async () => {
    // With a subtitle of its own a title keeps its dash: it must not end or start a line.
    const titles: [string, string][] = [
      ['Grandma Rose turns 90 – a book of memories from all of us', 'For her birthday'],
      ['Grandma Rose turns 90: a book of memories from all of us', ''],
      ['Happy birthday to the one and only Grandma Rose, who turns 90', 'For her birthday'],
    ];
    for (const theme of THEMES) {
      for (const [title, subtitle] of titles) {
        const file = path.join(dir, `${theme}-breaks.pdf`);
        await renderPdfBook({ title, subtitle, theme, bleedMm: 0, gutterMm: 0, memoryCount: 0, memories: (async function* () {})(), openPicture: () => Promise.reject(new Error('no pictures')), output: createWriteStream(file) });
        // The page's lines in the order they were set (a run with accents or a tied space reads back whole, as written).
        const { stdout } = await run('pdftotext', ['-raw', '-f', '1', '-l', '1', file, '-']);
        const rows = stdout.replace(/\u00a0/g, ' ').split('\n').map((l) => l.trim()).filter(Boolean);
        const main = splitTitle(title, subtitle).title;
        const titleWords = new Set(main.toLowerCase().split(/\s+/));
        // A title with a subtitle of its own may turn its line at a spaced dash, the dash dropped.
        const undashed = (t: string) => t.replace(/ [—–] /, ' ');
        const at = `${theme}, “${title}”`;
        // The title's lines: all their words are words of the title (a broken word is not one).
        const start = rows.findIndex((r) => r.toLowerCase().split(' ').every((w) => titleWords.has(w)));
        const lines: string[][] = [];
        for (let i = start; i >= 0 && i < rows.length && lines.flat().length < titleWords.size; i++) {
          const words = rows[i].split(' ');
          if (!words.every((w) => titleWords.has(w.toLowerCase()))) break;
          lines.push(words);
        }
        const read = lines.map((l) => l.join(' ')).join(' | ');
        expect(undashed(lines.flat().join(' ').toLowerCase()), `${at}: ${rows.join(' | ')}`).toBe(undashed(main.toLowerCase()));
        for (const line of lines) {
          expect(/^[—–-]$/.test(line[0]) || /^[—–-]$/.test(line[line.length - 1]), `${at}: a dash at a line's end: ${read}`).toBe(false);
          expect(line.length, `${at}: a word alone: ${read}`).toBeGreaterThan(1);
        }
        const lengths = lines.map((l) => l.join(' ').length);
        if (lines.length > 1) expect(Math.min(...lengths) / Math.max(...lengths), `${at}: uneven lines: ${read}`).toBeGreaterThan(0.45);
      }
    }
  }, 180_000);

  it('turns a mixed-script title\u2019s line at its spaced dash, never leaving the dash at a line\u2019s end', async () => {
    const [title, subtitle] = ['Bà nội 90 — 奶奶 — جدتي', 'Cảm ơn bà ❤️'];
    for (const theme of THEMES) {
      const file = path.join(dir, `${theme}-dash.pdf`);
      await renderPdfBook({ title, subtitle, theme, bleedMm: 0, gutterMm: 0, memoryCount: 0, memories: (async function* () {})(), openPicture: () => Promise.reject(new Error('no pictures')), output: createWriteStream(file) });
      const { stdout } = await run('pdftotext', ['-raw', '-f', '1', '-l', '1', file, '-']);
      const rows = stdout.replace(/\u00a0/g, ' ').split('\n').map((l) => l.trim()).filter(Boolean);
      const at = `${theme}: ${rows.join(' | ')}`;
      for (const row of rows) expect(/^[—–-]|[—–-]$/.test(row), `${at}: a dash at a line's end`).toBe(false);
      // The first part is a line of its own ("BÀ NỘI 90" in capitals), the second keeps its own dash inside a line.
      expect(rows.some((r) => r.toLowerCase() === 'bà nội 90'), at).toBe(true);
      expect(rows.some((r) => /奶奶 — /.test(r)), at).toBe(true);
    }
  }, 180_000);

  it('sets titles and capitals with lining figures', () => {
    // Playfair Display and Cormorant Garamond default to old-style figures: the feature changes the glyphs.
    const doc = new PDFDocument();
    doc.registerFont('title', fontFilePath(THEME_STYLES.memorial_service.title));
    const calls: unknown[] = [];
    const spy = new Proxy(doc, {
      get(target, prop, receiver) {
        if (prop === 'text') return (...args: unknown[]) => (calls.push(args[3]), receiver);
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (...a: unknown[]) => (v.apply(target, a), receiver) : v;
      },
    });
    const m = new TextMeasurer(doc);
    const s: TextStyle = { face: 'title', fallbacks: [], size: 30, leading: 1.15, features: LINING_FIGURES };
    const [line] = breakLines(m, '1934 2024', s, 1000);
    expect(m.width('title', 30, '1934', 0, false, LINING_FIGURES)).not.toBeCloseTo(m.width('title', 30, '1934'), 1);
    drawLine(spy as unknown as PDFKit.PDFDocument, line, 0, 100, s, '#000000');
    expect(calls.length).toBeGreaterThan(0);
    for (const options of calls) expect((options as { features?: string[] }).features).toEqual(['lnum']);
  });
});
