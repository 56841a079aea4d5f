/**
 * A book with memories in every script, rendered in each theme and read
 * back: every character maps to a real glyph of an embedded font, and the
 * text layer (pdftotext) has every character.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJoiner } from '../../../src/media-tools/font-fallback.js';
import { THEMES } from '../../../src/media-tools/themes.js';
import { blankGlyphs, drawnCodePoints, embeddedFonts } from '../../helpers/pdf-readback.js';
import { SCRIPTS } from '../../helpers/scripts.js';
import { renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';

const run = promisify(execFile);
const invisible = (ch: string) => /\s/u.test(ch) || isJoiner(ch.codePointAt(0)!);

export function scriptMemories(): PdfMemory[] {
  const names = ['Nguyễn Thị Hương', 'Łukasz Żółć', 'Αλέξανδρος', 'Дмитрий', 'فاطمة', 'אביגיל', 'अनीता', '王小明', '山田花子', '김민준'];
  const memories = Object.entries(SCRIPTS).map(([script, line], i) => ({
    id: `m${i}`,
    text: script === 'arabic' ? `${line}. عمري ٩٠ سنة، وأتذكر 1956 جيدا!` : `${line}\n\n${line} — “${line.slice(0, 12)}”`,
    signature: names[i % names.length],
    date: '2026-05-01T10:00:00Z',
    pinned: i === 0,
    pictures: [],
    recordings: [],
  }));
  memories.push({ id: 'long', text: Object.values(SCRIPTS).join(' ').repeat(6), signature: 'Ünal Şahin', date: '2026-05-02T10:00:00Z', pinned: false, pictures: [], recordings: [] });
  return memories;
}

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

describe('every script, in every theme', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-scripts-'));
  });
  afterAll(async () => {
    // MEMORYBOOK_KEEP_PDFS=dir keeps the books, to look at.
    if (process.env.MEMORYBOOK_KEEP_PDFS) await cp(dir, process.env.MEMORYBOOK_KEEP_PDFS, { recursive: true });
    await rm(dir, { recursive: true, force: true });
  });

  for (const theme of THEMES) {
    it(`${theme}: each character has a glyph in an embedded font, and the text layer has it`, async () => {
      const memories = scriptMemories();
      const file = path.join(dir, `${theme}.pdf`);
      await renderPdfBook({
        title: 'Bà nội 90 — 奶奶 — جدتي',
        subtitle: 'Cảm ơn bà ❤️',
        theme,
        bleedMm: 3,
        gutterMm: 10,
        memoryCount: memories.length,
        memories: iterate(memories),
        openPicture: () => Promise.reject(new Error('no pictures here')),
        output: createWriteStream(file),
        now: new Date('2026-06-01T00:00:00Z'),
      });
      const bytes = await readFile(file);
      // No glyph drawn is .notdef or empty (a box or a hole on paper), read with fontkit from the embedded font files.
      const blanks = await blankGlyphs(bytes);
      expect(blanks, `glyphs that print as boxes in ${theme}`).toEqual([]);
      // And the fonts' ToUnicode maps name a real glyph for each character (those a font draws decomposed, as a base and a mark, aside).
      const drawn = drawnCodePoints(await embeddedFonts(bytes));
      const wanted = new Set<string>();
      for (const m of memories) for (const ch of (m.text + (m.signature ?? '')).normalize('NFC')) if (!invisible(ch)) wanted.add(ch);
      const missing = [...wanted].filter((ch) => !drawn.has(ch.codePointAt(0)!) && !drawn.has(ch.normalize('NFD').codePointAt(0)!));
      expect(missing.join(''), `characters without a glyph in ${theme}`).toBe('');
      const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 32 * 1024 * 1024 });
      const layer = new Set([...stdout.normalize('NFC')]);
      const dropped = [...wanted].filter((ch) => !layer.has(ch));
      expect(dropped.join(''), `characters missing from the text layer in ${theme}`).toBe('');
    }, 60_000);
  }
});
