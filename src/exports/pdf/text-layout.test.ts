import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { EMOJI_FONT, fontFilePath, THEME_STYLES } from '../../media-tools/themes.js';
import { bookGeometry, mm } from './geometry.js';
import { breakLines, evenLines, normalizeText, TextMeasurer, type TextStyle } from './text-layout.js';

const doc = new PDFDocument({ autoFirstPage: false });
doc.registerFont('quote', fontFilePath(THEME_STYLES.elegant_classic.quote));
doc.registerFont('emoji', fontFilePath(EMOJI_FONT));
const measure = new TextMeasurer(doc);
const style: TextStyle = { face: 'quote', fallbacks: ['emoji'], size: 12, leading: 1.4 };
const text = (lines: ReturnType<typeof breakLines>) => lines.map((l) => l.runs.map((r) => r.text).join(''));

describe('line breaking', () => {
  it('fills lines up to the width and never past it, keeping every word', () => {
    const words = 'The summer the pier broke you taught every one of us to swim in the lake while we held our breath'.repeat(5);
    const lines = breakLines(measure, words, style, 200);
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) {
      expect(l.width).toBeLessThanOrEqual(200);
      doc.font('quote').fontSize(12);
      expect(Math.abs(doc.widthOfString(l.runs.map((r) => r.text).join('')) - l.width)).toBeLessThan(0.01);
    }
    expect(text(lines).join(' ')).toBe(normalizeText(words));
  });

  it('measures spaced capitals as drawn: the spacing after every character, spaces too, never past the width', () => {
    // PDFKit's own measure counts the spacing between the characters of one string; drawn, a line's
    // characters each take it, so words and spaces measured apart must add up to the line as one string.
    const caps: TextStyle = { ...style, size: 9, characterSpacing: 0.9 };
    const lines = breakLines(measure, '— MARGARET ELIZABETH THORNTON-WHITAKER · 14 FEBRUARY 2024 · WITH LOVE FROM ALL OF US', caps, 160);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) {
      doc.font('quote').fontSize(9);
      const drawn = doc.widthOfString(l.runs.map((r) => r.text).join(''), { characterSpacing: 0.9 });
      // (Within kerning across the pieces' joins.)
      expect(Math.abs(drawn - l.width)).toBeLessThan(0.5);
      expect(drawn).toBeLessThanOrEqual(160.5);
    }
  });

  it('keeps paragraphs apart and drops empty lines between them', () => {
    const lines = breakLines(measure, 'First\r\n\r\n\r\nSecond\nThird', style, 400);
    expect(text(lines)).toEqual(['First', 'Second', 'Third']);
    expect(lines.map((l) => l.paragraphStart)).toEqual([false, true, true]);
  });

  it('sets what the typeface lacks (emoji) in the fallback face, mid-line', () => {
    const [line] = breakLines(measure, 'Happy birthday 🎉 Grandma', style, 400);
    expect(line.runs.map((r) => [r.face, r.text])).toEqual([
      ['quote', 'Happy birthday '],
      ['emoji', '🎉'],
      ['quote', ' Grandma'],
    ]);
  });

  it('evens a quote page’s lines out without ever splitting a word between its letters (no “świętowali / śmy”)', () => {
    const quote = 'Nad źródło pamiętam pierogi nad świętowaliśmy ćma.';
    // Display type on a quote page (baby_first_year's face at 28 pt): evening out narrows past the long word.
    doc.registerFont('baby', fontFilePath(THEME_STYLES.baby_first_year.quote));
    const lines = evenLines(measure, quote, { face: 'baby', fallbacks: [], size: 28, leading: 1.2 }, 240);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.some((l) => l.splitWord)).toBe(false);
    // Every line ends at a word's end: the words read back whole.
    expect(text(lines).join(' ')).toBe(quote);
  });

  it('breaks a word longer than the line between graphemes, and ideographs anywhere', () => {
    const long = breakLines(measure, 'x'.repeat(400), style, 100);
    expect(long.length).toBeGreaterThan(3);
    expect(long.every((l) => l.width <= 100)).toBe(true);
    expect(long.slice(0, -1).every((l) => l.splitWord)).toBe(true);
    const cjk = breakLines(measure, '我们在湖边学会了游泳。'.repeat(8), { ...style, fallbacks: [] }, 120);
    expect(cjk.length).toBeGreaterThan(1);
    // A closing full stop never starts a line.
    expect(text(cjk).some((l) => l.startsWith('。'))).toBe(false);
  });

  it('breaks Japanese between any two characters, but never before closing punctuation or small kana nor after an opening bracket', () => {
    const jp = { ...style, fallbacks: [] };
    const sentence = 'おばあちゃん、「いつもありがとう」と言いました。キャラメルはちょっとしょっぱかった。';
    const widths = Array.from({ length: 40 }, (_, i) => 60 + i * 7);
    for (const width of widths) {
      const lines = text(breakLines(measure, sentence.repeat(3), jp, width));
      expect(lines.join('')).toBe(sentence.repeat(3));
      for (const l of lines.slice(1)) expect(l, `a line at ${width} pt`).not.toMatch(/^[、。」ーャュョッっゃゅょぁぃぅぇぉ]/u);
      for (const l of lines.slice(0, -1)) expect(l, `a line at ${width} pt`).not.toMatch(/「$/u);
    }
    // Inside a word too: a line of ideographs ends where the width does, not at the end of a dictionary word.
    const han = breakLines(measure, '富士山富士山富士山富士山富士山', jp, measure.width('quote', 12, '富士山富士'));
    expect(text(han)[0]).toBe('富士山富士');
  });

  it('never breaks at a no-break space in ideographic text (10\u00A0元, 第3\u00A0章)', () => {
    const jp = { ...style, fallbacks: [] };
    const sentence = '奶奶的蛋糕卖10\u00A0元，我们在第3\u00A0章里读到了。';
    for (let width = 40; width <= 200; width += 4) {
      const lines = text(breakLines(measure, sentence.repeat(2), jp, width));
      expect(lines.join('')).toBe(sentence.repeat(2));
      for (const l of lines) expect(l, `a line at ${width} pt`).not.toMatch(/^\u00A0|\u00A0$/u);
      // The piece after the space stays on its line: a line never starts with what a no-break space tied.
      for (const l of lines.slice(1)) expect(l, `a line at ${width} pt`).not.toMatch(/^[元章]/u);
    }
  });

  it('breaks Korean at its spaces, not inside words', () => {
    const lines = text(breakLines(measure, '할머니 모든 것에 감사드려요 할머니 모든 것에 감사드려요', { ...style, fallbacks: [] }, measure.width('quote', 12, '할머니 모든 것')));
    for (const l of lines) expect(['할머니', '모든', '것에', '감사드려요']).toEqual(expect.arrayContaining(l.split(' ')));
  });

  it('breaks after a dash inside a word', () => {
    const lines = breakLines(measure, 'well-known mother-in-law', style, measure.width('quote', 12, 'well-known mother-'));
    expect(text(lines)).toEqual(['well-known mother-', 'in-law']);
  });
});

describe('page geometry', () => {
  it('is the trim plus the bleed, with the gutter on the inner side', () => {
    const g = bookGeometry(3, 15);
    expect(g.page).toBeCloseTo(mm(216), 6);
    expect(g.trimBox).toEqual([mm(3), mm(3), mm(213), mm(213)]);
    expect(g.bleedBox).toEqual([0, 0, g.page, g.page]);
    // Recto (odd): the binding is on the left. Verso (even): on the right.
    expect(g.content(3).x).toBeCloseTo(mm(3 + 18 + 15), 6);
    expect(g.content(4).x).toBeCloseTo(mm(3 + 18), 6);
    expect(g.content(4).x + g.content(4).w).toBeCloseTo(mm(3 + 210 - 18 - 15), 6);
    expect(g.content(3).w).toBe(g.content(4).w);
  });
});
