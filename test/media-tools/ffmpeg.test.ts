import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPosterFrame, MediaToolError, POSTER_MAX_SIDE, probeMedia, resolveTool } from '../../src/media-tools/ffmpeg.js';
import { ensureFixtures, FIXTURES, fixturePaths, type FixtureName } from '../helpers/media-fixtures.js';

const config = { media: { ffmpegPath: null, ffprobePath: null } };
let dir: string;

beforeAll(async () => {
  await ensureFixtures();
  dir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-ffmpeg-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** An H.264 clip of ffmpeg's test pattern. */
async function makeVideo(out: string, size: string, rate: number, seconds: number): Promise<void> {
  const ffmpeg = await resolveTool('ffmpeg', config);
  const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=${rate}:duration=${seconds}`, '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', out];
  await new Promise<void>((resolve, reject) => execFile(ffmpeg, args, (e) => (e ? reject(e) : resolve())));
}

describe('probeMedia', () => {
  const media = Object.entries(FIXTURES).filter(([, f]) => f.kind !== null) as [FixtureName, (typeof FIXTURES)[FixtureName]][];

  it.each(media)('%s: kind, size and duration', async (name, f) => {
    const probe = await probeMedia(fixturePaths[name], { config });
    expect(probe.kind).toBe(f.kind);
    if (f.kind === 'video') {
      expect([probe.width, probe.height]).toEqual([f.width, f.height]);
      expect(probe.durationSeconds).toBeCloseTo((f as { durationSeconds: number }).durationSeconds, 0);
      expect(Math.abs(probe.durationSeconds! - (f as { durationSeconds: number }).durationSeconds)).toBeLessThan(0.15);
      expect(probe.videoCodec).toBe('h264');
      expect(probe.audioCodec).toBe('aac');
    } else if (f.kind === 'audio') {
      expect(probe.width).toBeNull();
      expect(probe.height).toBeNull();
      expect(Math.abs(probe.durationSeconds! - (f as { durationSeconds: number }).durationSeconds)).toBeLessThan(0.15);
    } else {
      // Still images: ffprobe knows no EXIF orientation, so the stored size (readImageInfo gives the displayed one).
      expect(probe.durationSeconds).toBeNull();
      expect(probe.width).toBeGreaterThan(0);
      expect(probe.rotation).toBeUndefined();
    }
  });

  it('reads a phone-style rotation: 90° clockwise, width and height as displayed', async () => {
    const probe = await probeMedia(fixturePaths.mp4Rotated, { config });
    expect(probe).toMatchObject({ kind: 'video', width: 240, height: 320, rotation: 90 });
    const plain = await probeMedia(fixturePaths.mp4, { config });
    expect(plain.rotation).toBe(0);
  });

  it('tells QuickTime from MP4 only by format, both are video', async () => {
    const mov = await probeMedia(fixturePaths.movShort, { config });
    expect(mov.formatName).toContain('mov');
    expect(mov.kind).toBe('video');
  });

  it('gives kind null for what is not media (a PDF, random bytes, an empty file)', async () => {
    expect((await probeMedia(fixturePaths.pdf, { config })).kind).toBeNull();
    // ffprobe itself reads a .bin or .txt file as "bintext"/"ansi" video.
    for (const ext of ['bin', 'txt', 'dat', 'mp4']) {
      const junk = path.join(dir, `junk.${ext}`);
      await writeFile(junk, Buffer.from('this is not a media file at all '.repeat(100)));
      expect(await probeMedia(junk, { config }), ext).toMatchObject({ kind: null, width: null, height: null, durationSeconds: null });
    }
    const empty = path.join(dir, 'empty.mp4');
    await writeFile(empty, '');
    expect((await probeMedia(empty, { config })).kind).toBeNull();
  });

  it('throws for a missing input file rather than calling it unknown', async () => {
    await expect(probeMedia(path.join(dir, 'nope.mp4'), { config })).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('names FFPROBE_PATH when the binary is not executable or missing', async () => {
    const notExecutable = path.join(dir, 'ffprobe-noexec');
    await writeFile(notExecutable, '#!/bin/sh\n');
    await chmod(notExecutable, 0o644);
    const err = await probeMedia(fixturePaths.mp4, { config: { media: { ffmpegPath: null, ffprobePath: notExecutable } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaToolError);
    expect((err as MediaToolError).code).toBe('tool_unavailable');
    expect((err as Error).message).toMatch(/not executable.*FFPROBE_PATH/);
    const missing = await probeMedia(fixturePaths.mp4, { config: { media: { ffmpegPath: null, ffprobePath: path.join(dir, 'no-such-ffprobe') } } }).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/does not exist.*FFPROBE_PATH/);
  });

  it('names FFMPEG_PATH when ffmpeg is unusable', async () => {
    const err = await extractPosterFrame(fixturePaths.mp4, path.join(dir, 'x.jpg'), {
      config: { media: { ffmpegPath: path.join(dir, 'no-such-ffmpeg'), ffprobePath: null } },
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/FFMPEG_PATH/);
  });

  it('stops at the timeout and on abort', async () => {
    // A stand-in ffprobe that never answers.
    const slow = path.join(dir, 'ffprobe-slow');
    await writeFile(slow, '#!/bin/sh\nexec sleep 30\n');
    await chmod(slow, 0o755);
    const slowConfig = { media: { ffmpegPath: null, ffprobePath: slow } };
    const started = Date.now();
    await expect(probeMedia(fixturePaths.mp4, { config: slowConfig, timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(probeMedia(fixturePaths.mp4, { config: slowConfig, signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('uses FFPROBE_PATH when set', async () => {
    const copy = path.join(dir, 'my-ffprobe');
    const shipped = (await import('@ffprobe-installer/ffprobe')).default.path as string;
    await symlink(shipped, copy);
    const probe = await probeMedia(fixturePaths.wav, { config: { media: { ffmpegPath: null, ffprobePath: copy } } });
    expect(probe.kind).toBe('audio');
  });
});

describe('extractPosterFrame', () => {
  it.each(['mp4', 'movShort', 'movLong'] as const)('%s: a decodable JPEG of the video size', async (name) => {
    const out = path.join(dir, `${name}.jpg`);
    const frame = await extractPosterFrame(fixturePaths[name], out, { config });
    expect(frame).toMatchObject({ width: 320, height: 240 });
    expect(frame.sizeBytes).toBeGreaterThan(1000);
    const meta = await sharp(out).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
    // Decodes for real, and is not a blank frame.
    const stats = await sharp(out).stats();
    expect(stats.channels[0]!.stdev).toBeGreaterThan(10);
  });

  it('turns a rotated video upright', async () => {
    const out = path.join(dir, 'rotated.jpg');
    const frame = await extractPosterFrame(fixturePaths.mp4Rotated, out, { config });
    expect([frame.width, frame.height]).toEqual([240, 320]);
    expect(await sharp(out).metadata()).toMatchObject({ width: 240, height: 320 });
  });

  it(`scales down to ${POSTER_MAX_SIDE} px on the long side, keeping the aspect ratio`, async () => {
    const big = path.join(dir, 'big.mp4');
    await makeVideo(big, '1920x1080', 5, 0.4);
    const frame = await extractPosterFrame(big, path.join(dir, 'big.jpg'), { config });
    expect([frame.width, frame.height]).toEqual([1280, 720]);
  });

  it('falls back to the first frame of a clip shorter than one frame interval', async () => {
    const tiny = path.join(dir, 'tiny.mp4');
    await makeVideo(tiny, '160x120', 5, 0.2);
    const frame = await extractPosterFrame(tiny, path.join(dir, 'tiny.jpg'), { config });
    expect([frame.width, frame.height]).toEqual([160, 120]);
  });

  it('refuses audio and non-media with a MediaToolError', async () => {
    await expect(extractPosterFrame(fixturePaths.mp3, path.join(dir, 'a.jpg'), { config })).rejects.toBeInstanceOf(MediaToolError);
    await expect(extractPosterFrame(fixturePaths.pdf, path.join(dir, 'b.jpg'), { config })).rejects.toBeInstanceOf(MediaToolError);
  });

  it('reuses a probe the caller already has', async () => {
    const probe = await probeMedia(fixturePaths.mp4, { config });
    const frame = await extractPosterFrame(fixturePaths.mp4, path.join(dir, 'reuse.jpg'), { config, probe });
    expect(frame.width).toBe(320);
  });
});
