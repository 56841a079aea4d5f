import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readImageInfo } from '../../src/media-tools/image-info.js';
import { ensureFixtures, fixturePaths } from '../helpers/media-fixtures.js';

let dir: string;
beforeAll(async () => {
  await ensureFixtures(['jpeg', 'jpegRotated', 'png', 'webp', 'eicarJpeg', 'heicHeader', 'pdf', 'mp4']);
  dir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-image-info-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('readImageInfo', () => {
  it.each([
    ['jpeg', 640, 480, 'jpeg'],
    ['png', 400, 300, 'png'],
    ['webp', 300, 200, 'webp'],
    ['eicarJpeg', 640, 480, 'jpeg'],
  ] as const)('%s: size by sharp', async (name, width, height, format) => {
    expect(await readImageInfo(fixturePaths[name])).toEqual({ width, height, orientation: null, source: 'sharp', format });
  });

  it('swaps width and height for EXIF orientation 6 (stored 640×480, shown 480×640)', async () => {
    expect(await readImageInfo(fixturePaths.jpegRotated)).toEqual({ width: 480, height: 640, orientation: 6, source: 'sharp', format: 'jpeg' });
  });

  it.each([
    [2, false],
    [3, false],
    [4, false],
    [5, true],
    [7, true],
    [8, true],
  ])('orientation %i swaps: %s', async (orientation, swaps) => {
    const file = path.join(dir, `o${orientation}.jpg`);
    await sharp({ create: { width: 200, height: 100, channels: 3, background: '#468' } }).jpeg().withMetadata({ orientation }).toFile(file);
    const info = await readImageInfo(file);
    expect(info.orientation).toBe(orientation);
    expect([info.width, info.height]).toEqual(swaps ? [100, 200] : [200, 100]);
  });

  it('gives one frame of an animated image', async () => {
    const file = path.join(dir, 'anim.webp');
    const frames = 3;
    const frame = (colour: string) => sharp({ create: { width: 50, height: 40, channels: 3, background: colour } }).png().toBuffer();
    const pages = await Promise.all(['#f00', '#0f0', '#00f'].slice(0, frames).map(frame));
    await sharp(pages, { join: { animated: true } }).webp({ loop: 0 }).toFile(file);
    expect((await sharp(file).metadata()).pages).toBe(frames);
    const info = await readImageInfo(file);
    expect([info.width, info.height]).toEqual([50, 40]);
  });

  it('reads a HEIC header when sharp cannot decode it: largest item, quarter-turn applied', async () => {
    // sharp's prebuilt libvips has no HEVC decoder; the size comes from the HEIF boxes (image-size).
    await expect(sharp(fixturePaths.heicHeader).metadata()).rejects.toThrow();
    expect(await readImageInfo(fixturePaths.heicHeader)).toEqual({ width: 3024, height: 4032, orientation: null, source: 'header', format: 'heic' });
  });

  it('gives null dimensions for what it cannot read, without throwing', async () => {
    const nothing = { width: null, height: null, orientation: null, source: null, format: null };
    expect(await readImageInfo(fixturePaths.pdf)).toEqual(nothing);
    expect(await readImageInfo(fixturePaths.mp4)).toEqual(nothing);
    const truncated = path.join(dir, 'truncated.png');
    await writeFile(truncated, Buffer.from('89504e470d0a1a0a0000', 'hex'));
    expect(await readImageInfo(truncated)).toEqual(nothing);
    const empty = path.join(dir, 'empty.jpg');
    await writeFile(empty, '');
    expect(await readImageInfo(empty)).toEqual(nothing);
  });

  it('throws for a missing file', async () => {
    await expect(readImageInfo(path.join(dir, 'missing.jpg'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
