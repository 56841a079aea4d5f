/**
 * Long memories read back from the PDF (pdftotext's word boxes): in a theme
 * that justifies them, lines flush on both sides but a paragraph's last; in a
 * ragged-right one, flush left only; words broken with a hyphen in their
 * language, and every word of the text still there.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Theme } from '../../media-tools/themes.js';
import { bookGeometry, mm } from './geometry.js';
import { PDF_LOOKS } from './pdf-themes.js';
import { guessLanguage, hyphenatorFor } from './hyphenation.js';
import { renderPdfBook, type PdfMemory } from './pdf-book.js';

const run = promisify(execFile);

interface Word {
  page: number;
  text: string;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

async function wordsOf(file: string): Promise<Word[]> {
  const { stdout } = await run('pdftotext', ['-bbox', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
  const out: Word[] = [];
  let page = 0;
  for (const line of stdout.split('\n')) {
    if (line.includes('<page ')) page++;
    const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/.exec(line);
    if (m) out.push({ page, xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]), text: m[5].replace(/&amp;/g, '&') });
  }
  return out;
}

const VOCABULARY = [
  'we', 'spent', 'every', 'summer', 'at', 'the', 'lake', 'house', 'and', 'you', 'taught', 'us', 'to', 'swim',
  'incomprehensibilities', 'notwithstanding', 'characteristically', 'unquestionably', 'extraordinary',
  'grandmother', 'remembering', 'afternoons', 'photographs', 'neighbourhood', 'responsibilities',
];

/** Paragraphs of words, the last of each paragraph marked so its line can be found. */
function letter(paragraphs: number, perParagraph: number): string {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  return Array.from({ length: paragraphs }, (_, p) => {
    const words = Array.from({ length: perParagraph }, () => VOCABULARY[next() % VOCABULARY.length]);
    return `${words.join(' ')} end${p}.`;
  }).join('\n\n');
}

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

describe('long memories', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-justify-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const theme of ['elegant_classic', 'modern_clean', 'editorial_noir']) {
    const justify = PDF_LOOKS[theme as Theme].justify;
    it(`${theme}: ${justify ? 'justified' : 'ragged-right'}, hyphenated, nothing lost`, async () => {
      const file = path.join(dir, `${theme}.pdf`);
      const text = letter(6, 140);
      const kinds: string[] = [];
      const list: PdfMemory[] = [{ id: 'm', text, signature: 'Rose', date: '2026-05-01T10:00:00Z', pinned: false, pictures: [], recordings: [] }];
      const result = await renderPdfBook({
        title: 'Letters',
        subtitle: '',
        theme,
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: 1,
        memories: iterate(list),
        openPicture: () => Promise.reject(new Error('no pictures')),
        output: createWriteStream(file),
        trace: { page: (n, kind) => (kinds[n - 1] = kind) },
      });
      expect(result.pageCount).toBeGreaterThan(3);
      const g = bookGeometry(3, 10, PDF_LOOKS[theme as Theme].margins);
      const words = (await wordsOf(file)).filter((w) => w.page >= 3 && kinds[w.page - 1] === 'memories');
      // The memory's words, in reading order: from its first word to its last paragraph's end.
      // (Not the pull quote the letter opens with: its sentence again, set larger.)
      const heights = words.map((w) => w.yMax - w.yMin).sort((a, b) => a - b);
      const usual = heights[Math.floor(heights.length / 2)];
      const body = words.filter((w) => /^[a-z]+-?$|^end\d\.$/.test(w.text) && w.yMax - w.yMin < usual * 1.15);
      // The column a word is in: the live area, or one of its two halves in a theme that sets long memories in two columns.
      const columnOf = (page: number, x: number) => {
        const c = g.content(page);
        // The theme's measure, placed as its grid places it in the live area: where the page's words are.
        const on = body.filter((w) => w.page === page);
        const [left, right] = [Math.min(...on.map((w) => w.xMin)), Math.max(...on.map((w) => w.xMax))];
        expect(left, `column inside the live area on page ${page}`).toBeGreaterThan(c.x - 0.5);
        expect(right, `column inside the live area on page ${page}`).toBeLessThanOrEqual(c.x + c.w + 0.5);
        if (PDF_LOOKS[theme as Theme].longColumns === 1) {
          if (PDF_LOOKS[theme as Theme].column === 'centre') expect(Math.abs((left + right) / 2 - (c.x + c.w / 2)), `column centred on page ${page}`).toBeLessThan(10);
          return { x: left, w: right - left, i: 0 };
        }
        const w = (right - left - mm(6)) / 2;
        const i = x >= left + w + mm(3) ? 1 : 0;
        return { x: left + i * (w + mm(6)), w, i };
      };
      // Lines: words of a column sharing their top.
      const lines = new Map<string, Word[]>();
      for (const w of body) {
        const key = `${w.page}:${columnOf(w.page, w.xMin).i}:${Math.round(w.yMin)}`;
        lines.set(key, [...(lines.get(key) ?? []), w]);
      }
      let hyphens = 0;
      let justified = 0;
      let full = 0;
      for (const [key, ws] of lines) {
        const page = Number(key.split(':')[0]);
        const first = ws[0];
        const column = columnOf(page, first.xMin);
        const last = ws[ws.length - 1];
        // Flush left on the column (after the accent bar of themes that draw one beside the words).
        expect(first.xMin - column.x, `line start ${key}`).toBeGreaterThan(-1);
        expect(first.xMin - column.x, `line start ${key}`).toBeLessThan(17);
        expect(Math.abs(first.xMin - Math.min(...body.filter((w) => w.page === page && columnOf(page, w.xMin).i === column.i).map((w) => w.xMin))), `line start ${key}`).toBeLessThan(1);
        if (/^end\d\.$/.test(last.text)) continue; // a paragraph's last line is not stretched
        if (justify) expect(Math.abs(last.xMax - (column.x + column.w)), `line end ${key}: ${ws.map((w) => w.text).join(' ')}`).toBeLessThan(1);
        else expect(last.xMax, `line end ${key} inside its column`).toBeLessThanOrEqual(column.x + column.w + 0.5);
        if (Math.abs(last.xMax - (column.x + column.w)) < 1) justified++;
        full++;
        if (last.text.endsWith('-')) hyphens++;
      }
      expect(full).toBeGreaterThan(40);
      // Ragged-right: most lines end short of the column's edge (its spaces are never widened).
      if (justify) expect(justified).toBe(full);
      else expect(justified / full, 'lines flush right in a ragged column').toBeLessThan(0.5);
      expect(hyphens, 'lines ending in a hyphen').toBeGreaterThan(0);
      // Nothing lost: the words read back, hyphenated ones joined, are the words written.
      const read: string[] = [];
      let carry = '';
      // In reading order: page by page, column by column, line by line.
      const ordered = [...body].sort((a, b) => a.page - b.page || columnOf(a.page, a.xMin).i - columnOf(b.page, b.xMin).i || Math.round(a.yMin) - Math.round(b.yMin) || a.xMin - b.xMin);
      for (const w of ordered) {
        if (w.text.endsWith('-')) carry += w.text.slice(0, -1);
        else {
          read.push(carry + w.text);
          carry = '';
        }
      }
      expect(read).toEqual(text.split(/\s+/));
    }, 60_000);
  }
});

describe('hyphenation by language', () => {
  it('guesses the language from script, letters and common words', () => {
    expect(guessLanguage('We spent every summer at the lake and you taught us to swim.')).toBe('en');
    expect(guessLanguage('Wir haben jeden Sommer am See verbracht und du hast uns das Schwimmen beigebracht, das ist nicht vergessen.')).toBe('de');
    expect(guessLanguage('Nous avons passé tous les étés au lac et tu nous as appris à nager avec une patience infinie.')).toBe('fr');
    expect(guessLanguage('Каждое лето мы проводили на озере, и ты учила нас плавать, как никто.')).toBe('ru');
    expect(guessLanguage('Кожного літа ми їздили на озеро, і ти вчила нас плавати.')).toBe('uk');
    expect(guessLanguage('Chúc mừng sinh nhật bà! Cháu yêu bà nhiều lắm, mùa hè nào chúng cháu cũng về quê.')).toBeNull();
    expect(guessLanguage('我们每年夏天都在湖边度过')).toBeNull();
    // Without a common word, a language's own letters tell it (not English patterns: "dz-iękujemy", "świętowal-iśmy").
    expect(guessLanguage('Gęślą ogród dziękujemy, zażółć. Nad źródło pamiętam pierogi nad świętowaliśmy ćma.')).toBe('pl');
    expect(guessLanguage('Příliš žluťoučký kůň úpěl ďábelské ódy, babička děkujeme.')).toBe('cs');
    expect(guessLanguage('Ağabeyim ışığı söndürdü, Şükrü güldü; babaannem çay.')).toBe('tr');
    // (A borrowed name's letters do not.)
    expect(guessLanguage(`${'We spent every summer at the lake and you taught us to swim. '.repeat(5)}Łukasz came too.`)).toBe('en');
  });

  it('breaks words by the language’s patterns, and leaves numbers and short words whole', () => {
    expect(hyphenatorFor('en')!('extraordinary').length).toBeGreaterThan(2);
    expect(hyphenatorFor('en')!('extraordinary').join('')).toBe('extraordinary');
    expect(hyphenatorFor('de')!('Schwimmunterricht').length).toBeGreaterThan(2);
    expect(hyphenatorFor('en')!('1234567890')).toEqual(['1234567890']);
    expect(hyphenatorFor('en')!('https://example.com/long')).toEqual(['https://example.com/long']);
    expect(hyphenatorFor(null)).toBeNull();
    expect(hyphenatorFor(guessLanguage('Gęślą ogród dziękujemy, nad świętowaliśmy ćma.'))!('świętowaliśmy')).toEqual(['świę', 'to', 'wa', 'li', 'śmy']);
  });
});
