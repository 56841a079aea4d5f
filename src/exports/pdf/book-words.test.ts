/**
 * The book's own words in its language: a German book's contents, "With love from", colophon and title verso
 * read back from the PDF in German (pdftotext), an English one as it always read, and an unknown language in
 * English. Names are never translated; dates take the language's own order.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookWords } from './book-words.js';
import { renderPdfBook, type PdfMemory } from './pdf-book.js';

const run = promisify(execFile);

describe('the book’s own words', () => {
  it('reads as it always did in English, and in the owner’s language otherwise', () => {
    const en = bookWords(null);
    expect(en.fromLine(['Rose'])).toBe('With love from Rose');
    expect(en.fromLine(['Rose', 'Sam', 'Ana'])).toBe('With love from 3 people: Rose, Sam and Ana');
    expect(en.fromLine(['Rose', 'Sam', 'Ana', 'Li'], 2)).toBe('With love from 4 people: Rose, Sam and 2 more');
    expect(en.memoriesFrom(12, 5)).toBe('12 memories from 5 people');
    expect(en.memoriesFrom(1, 1)).toBe('1 memory from 1 person');
    expect(en.madeWith(new Date('2026-11-29T12:00:00Z'))).toBe('Made with memorybook, 29 November 2026');
    expect(bookWords('tlh').contents).toBe('Contents');

    const de = bookWords('de');
    expect(de.fromLine(['Rose', 'Sam', 'Ana'])).toBe('In Liebe von 3 Menschen: Rose, Sam und Ana');
    expect(de.memoriesFrom(12, 5)).toBe('12 Erinnerungen von 5 Personen');
    expect(bookWords('ru').memories(5)).toBe('5 воспоминаний');
    expect(bookWords('ru').memories(22)).toBe('22 воспоминания');
    expect(bookWords('ja').fromLine(['ローズ', 'サム'])).toBe('2人より愛をこめて：ローズ、サム');
    expect(bookWords('fr').madeWith(new Date('2026-11-29T12:00:00Z'))).toBe('Réalisé avec memorybook, 29 novembre 2026');
  });

  describe('read back from a printed book', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'memorybook-words-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('a German book: contents, “With love from”, colophon and verso in German', async () => {
      const list: PdfMemory[] = Array.from({ length: 12 }, (_, m) => ({
        id: `m${m}`,
        text: `Erinnerung ${m}: wir waren am See, und alle haben gelacht.`,
        signature: m % 2 ? 'Sam' : 'Rose',
        date: '2026-05-01T10:00:00Z',
        pinned: false,
        pictures: [],
        recordings: [],
      }));
      const file = path.join(dir, 'de.pdf');
      await renderPdfBook({
        title: 'Für Oma',
        subtitle: '',
        theme: 'elegant_classic',
        bleedMm: 0,
        gutterMm: 0,
        memoryCount: list.length,
        memories: (async function* () {
          yield* list;
        })(),
        openPicture: () => Promise.reject(new Error('no pictures')),
        output: createWriteStream(file),
        now: new Date('2026-11-29T12:00:00Z'),
        language: 'de',
      });
      const { stdout } = await run('pdftotext', ['-layout', file, '-'], { maxBuffer: 16 * 1024 * 1024 });
      const text = stdout.replace(/\s+/g, ' ');
      for (const want of ['Inhalt', 'In Liebe von', '12 Erinnerungen von 2 Personen', 'Erstellt mit memorybook, 29. November 2026', 'Erstellt mit memorybook am 29. November 2026']) expect(text).toContain(want);
      for (const english of ['Contents', 'With love from', 'Made with', 'memories from']) expect(text).not.toContain(english);
    });
  });
});
