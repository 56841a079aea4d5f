import { stat, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import { describe, expect, it } from 'vitest';
import { bigFile, bigFileStream, ensureFixtures, FIXTURES, readFixture, type BigFileKind, type FixtureName } from '../helpers/media-fixtures.js';

describe('media fixtures', () => {
  it('are what their names say, by content sniffing', async () => {
    const paths = await ensureFixtures();
    const expected: Partial<Record<FixtureName, string>> = {
      jpeg: 'image/jpeg', jpegRotated: 'image/jpeg', png: 'image/png', webp: 'image/webp', mp4: 'video/mp4', mp4Rotated: 'video/mp4',
      movShort: 'video/quicktime', movLong: 'video/quicktime', mp3: 'audio/mpeg', wav: 'audio/wav', pdf: 'application/pdf', eicarJpeg: 'image/jpeg',
    };
    for (const [name, mime] of Object.entries(expected)) {
      expect((await fileTypeFromFile(paths[name as FixtureName]))?.mime, name).toBe(mime);
      expect(FIXTURES[name as FixtureName].mime).toBe(mime);
    }
    expect((await readFixture('pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('bigFileStream gives exactly the bytes asked, with a sniffable header', async () => {
    const kinds: [BigFileKind, string][] = [['mp4', 'video/mp4'], ['mov', 'video/quicktime'], ['png', 'image/png'], ['jpeg', 'image/jpeg'], ['mp3', 'audio/mpeg'], ['wav', 'audio/wav'], ['pdf', 'application/pdf']];
    for (const [kind, mime] of kinds) {
      let total = 0;
      let head: Buffer | null = null;
      for await (const chunk of bigFileStream(kind, 3 * 1024 * 1024 + 7)) {
        head ??= Buffer.from(chunk as Buffer);
        total += (chunk as Buffer).length;
      }
      expect(total, kind).toBe(3 * 1024 * 1024 + 7);
      expect((await fileTypeFromBuffer(head!))?.mime, kind).toBe(mime);
    }
  });

  it('bigFile writes it to disk', async () => {
    const file = await bigFile('png', 5_000_000);
    try {
      expect((await stat(file)).size).toBe(5_000_000);
      expect((await fileTypeFromFile(file))?.mime).toBe('image/png');
    } finally {
      await rm(path.dirname(file), { recursive: true, force: true });
    }
  });
});
