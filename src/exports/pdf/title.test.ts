/**
 * Titles: numbers stay with their words at every width, and titles and
 * capitals are set with lining figures (read back from the title page).
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
