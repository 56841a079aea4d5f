/**
 * Real media files for tests, made at test time (sharp, the shipped ffmpeg)
 * into a cache folder shared by all test processes: os.tmpdir()/memorybook-fixtures-<version>.
 * Each file is written under a temporary name and renamed into place, so
 * concurrent vitest workers never see half a file. Bump FIXTURES_VERSION when
 * a recipe changes.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import sharp, { type Sharp } from 'sharp';
import { resolveTool } from '../../src/media-tools/ffmpeg.js';

export const FIXTURES_VERSION = 2;
export const FIXTURES_DIR = path.join(os.tmpdir(), `memorybook-fixtures-${FIXTURES_VERSION}`);

/** What each fixture is, for assertions: displayed size and duration. */
export const FIXTURES = {
  jpeg: { file: 'photo.jpg', kind: 'image', mime: 'image/jpeg', width: 640, height: 480 },
  /** Stored 640×480 with EXIF orientation 6 (turn 90° clockwise): displayed 480×640. */
  jpegRotated: { file: 'photo-exif6.jpg', kind: 'image', mime: 'image/jpeg', width: 480, height: 640, orientation: 6 },
  png: { file: 'picture.png', kind: 'image', mime: 'image/png', width: 400, height: 300 },
  webp: { file: 'picture.webp', kind: 'image', mime: 'image/webp', width: 300, height: 200 },
  /** H.264 + AAC, 2 s, 320×240, isom brand. */
  mp4: { file: 'clip.mp4', kind: 'video', mime: 'video/mp4', width: 320, height: 240, durationSeconds: 2 },
  /** The same picture stored 320×240 with a 90° rotation in its track matrix, as phones record portrait: displayed 240×320. */
  mp4Rotated: { file: 'clip-rotated.mp4', kind: 'video', mime: 'video/mp4', width: 240, height: 320, durationSeconds: 2 },
  /** QuickTime (brand "qt  "), H.264 + AAC, 3 s. */
  movShort: { file: 'short.mov', kind: 'video', mime: 'video/quicktime', width: 320, height: 240, durationSeconds: 3 },
  /** QuickTime, 10 s: longer than the shortest movie limits. */
  movLong: { file: 'long.mov', kind: 'video', mime: 'video/quicktime', width: 320, height: 240, durationSeconds: 10 },
  mp3: { file: 'tone.mp3', kind: 'audio', mime: 'audio/mpeg', durationSeconds: 2 },
  wav: { file: 'tone.wav', kind: 'audio', mime: 'audio/wav', durationSeconds: 1 },
  /** A one-page PDF, hand-written. */
  pdf: { file: 'doc.pdf', kind: null, mime: 'application/pdf' },
  /** The JPEG fixture with the EICAR test string appended (see test/helpers/clamd.ts for the signature). */
  eicarJpeg: { file: 'eicar.jpg', kind: 'image', mime: 'image/jpeg', width: 640, height: 480 },
  /**
   * Not a decodable picture: only the HEIF boxes a reader needs for the size (ftyp heic, meta/iprp/ipco with a
   * 512×512 tile ispe, a 4032×3024 ispe and irot 90°): no HEVC encoder is at hand to make a real one.
   */
  heicHeader: { file: 'header-only.heic', kind: null, mime: 'image/heic', width: 3024, height: 4032 },
} as const;

export type FixtureName = keyof typeof FIXTURES;

/** Where each fixture lives (it exists only after `fixture(name)` / `ensureFixtures()`). */
export const fixturePaths: Readonly<Record<FixtureName, string>> = Object.freeze(
  Object.fromEntries(Object.entries(FIXTURES).map(([name, f]) => [name, path.join(FIXTURES_DIR, f.file)])) as Record<FixtureName, string>,
);

/** The EICAR anti-virus test string, assembled here so this source file does not itself carry it. */
export const EICAR = ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-', 'ANTIVIRUS-TEST-FILE!$H+H*'].join('');

const run = promisify(execFile);
const pending = new Map<FixtureName, Promise<string>>();

/** The path of a fixture, made first when missing. */
export function fixture(name: FixtureName): Promise<string> {
  let p = pending.get(name);
  if (!p) {
    p = ensure(name);
    pending.set(name, p);
    p.catch(() => pending.delete(name));
  }
  return p;
}

/** Makes the named fixtures (all by default); resolves with their paths. */
export async function ensureFixtures(names: FixtureName[] = Object.keys(FIXTURES) as FixtureName[]): Promise<Record<FixtureName, string>> {
  // Videos one at a time (ffmpeg is the slow part); the rest alongside.
  for (const n of names) await fixture(n);
  return fixturePaths;
}

export async function readFixture(name: FixtureName): Promise<Buffer> {
  return readFile(await fixture(name));
}

async function ensure(name: FixtureName): Promise<string> {
  const target = fixturePaths[name];
  const existing = await stat(target).catch(() => null);
  if (existing && existing.size > 0) return target;
  await mkdir(FIXTURES_DIR, { recursive: true });
  const tmp = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp${path.extname(target)}`;
  try {
    await MAKERS[name](tmp);
    await rename(tmp, target);
  } finally {
    await rm(tmp, { force: true });
  }
  return target;
}

async function ffmpeg(args: string[]): Promise<void> {
  const bin = await resolveTool('ffmpeg', { media: { ffmpegPath: process.env.FFMPEG_PATH || null, ffprobePath: null } });
  await run(bin, ['-v', 'error', '-nostdin', '-y', ...args], { timeout: 120_000 });
}

/** A test card: colour gradient with a dark square top-left, so a wrong rotation shows. */
async function pictureSharp(width: number, height: number): Promise<Sharp> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const marker = x < width / 5 && y < height / 5;
      raw[i] = marker ? 20 : Math.round((x / width) * 255);
      raw[i + 1] = marker ? 20 : Math.round((y / height) * 255);
      raw[i + 2] = marker ? 20 : 160;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

const AV_IN = (seconds: number, size = '320x240', rate = 25) => [
  '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=${rate}:duration=${seconds}`,
  '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`,
];
const H264_AAC = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '64k', '-shortest'];

const MAKERS: Record<FixtureName, (out: string) => Promise<void>> = {
  jpeg: async (out) => void (await (await pictureSharp(640, 480)).jpeg({ quality: 85 }).toFile(out)),
  jpegRotated: async (out) => void (await (await pictureSharp(640, 480)).jpeg({ quality: 85 }).withMetadata({ orientation: 6 }).toFile(out)),
  png: async (out) => void (await (await pictureSharp(400, 300)).ensureAlpha(0.9).png().toFile(out)),
  webp: async (out) => void (await (await pictureSharp(300, 200)).webp({ quality: 80 }).toFile(out)),
  mp4: (out) => ffmpeg([...AV_IN(2), ...H264_AAC, '-movflags', '+faststart', '-f', 'mp4', out]),
  // Re-muxed from the plain clip: ffmpeg drops the tag while encoding. This ffmpeg (4.1) writes the matrix of
  // the opposite turn, so "270" here gives a file every reader (ffmpeg included) takes as 90° clockwise.
  mp4Rotated: async (out) => ffmpeg(['-i', await fixture('mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=270', '-f', 'mp4', out]),
  movShort: (out) => ffmpeg([...AV_IN(3, '320x240', 30), ...H264_AAC, '-f', 'mov', out]),
  movLong: (out) => ffmpeg([...AV_IN(10, '320x240', 15), ...H264_AAC, '-f', 'mov', out]),
  mp3: (out) => ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=2', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', out]),
  wav: (out) => ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=22050:duration=1', '-c:a', 'pcm_s16le', '-f', 'wav', out]),
  pdf: (out) => writeFile(out, minimalPdf()),
  eicarJpeg: async (out) => writeFile(out, Buffer.concat([await readFixture('jpeg'), Buffer.from(EICAR, 'latin1')])),
  heicHeader: (out) => writeFile(out, heifHeader()),
};

/** A valid one-page PDF with one line of text; xref offsets computed, not guessed. */
export function minimalPdf(): Buffer {
  const stream = 'BT /F1 24 Tf 72 720 Td (memorybook fixture) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function box(type: string, ...content: Buffer[]): Buffer {
  const payload = Buffer.concat(content);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}
const u32 = (...n: number[]) => Buffer.concat(n.map((v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; }));

/** The HEIF boxes that carry a picture's size and rotation, as an iPhone writes them (grid of 512×512 tiles). */
function heifHeader(): Buffer {
  const ftyp = box('ftyp', Buffer.from('heic', 'latin1'), u32(0), Buffer.from('mif1heic', 'latin1'));
  const ispe = (w: number, h: number) => box('ispe', u32(0, w, h));
  const irot = box('irot', Buffer.from([1])); // 90° anticlockwise
  const ipco = box('ipco', ispe(512, 512), ispe(4032, 3024), irot);
  const hdlr = box('hdlr', u32(0, 0), Buffer.from('pict', 'latin1'), u32(0, 0, 0), Buffer.from([0]));
  const meta = box('meta', u32(0), hdlr, box('iprp', ipco));
  return Buffer.concat([ftyp, meta, box('mdat', Buffer.alloc(64))]);
}

export type BigFileKind = 'mp4' | 'mov' | 'png' | 'jpeg' | 'mp3' | 'wav' | 'pdf';

/** The first bytes of each kind: enough for content sniffing (file-type) to name it. */
function headerOf(kind: BigFileKind): Buffer {
  switch (kind) {
    case 'mp4':
      return box('ftyp', Buffer.from('isom', 'latin1'), u32(512), Buffer.from('isomiso2avc1mp41', 'latin1'));
    case 'mov':
      return box('ftyp', Buffer.from('qt  ', 'latin1'), u32(0x20050300), Buffer.from('qt  ', 'latin1'));
    case 'png': {
      const ihdr = Buffer.from('0000000d49484452000003e8000003e80806000000', 'hex'); // 1000×1000 RGBA; CRC below
      return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), ihdr, u32(crc32(ihdr.subarray(4)))]);
    }
    case 'jpeg':
      return Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex');
    case 'mp3':
      return Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from('fffb9064', 'hex')]);
    case 'wav': {
      const h = Buffer.alloc(44);
      h.write('RIFF', 0, 'latin1');
      h.writeUInt32LE(0xffffffff - 8, 4);
      h.write('WAVEfmt ', 8, 'latin1');
      h.writeUInt32LE(16, 16);
      h.writeUInt16LE(1, 20);
      h.writeUInt16LE(1, 22);
      h.writeUInt32LE(22050, 24);
      h.writeUInt32LE(44100, 28);
      h.writeUInt16LE(2, 32);
      h.writeUInt16LE(16, 34);
      h.write('data', 36, 'latin1');
      h.writeUInt32LE(0xffffffff - 44, 40);
      return h;
    }
    case 'pdf':
      return Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  }
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/**
 * A stream of exactly `bytes` bytes that starts like a file of `kind` and goes
 * on with filler: for upload-size caps, without holding the file in memory.
 */
export function bigFileStream(kind: BigFileKind, bytes: number): Readable {
  const header = headerOf(kind).subarray(0, bytes);
  const filler = Buffer.alloc(1024 * 1024, 0x2e);
  let left = bytes - header.length;
  let first = true;
  return new Readable({
    read() {
      if (first) {
        first = false;
        this.push(header);
        if (left <= 0) this.push(null);
        return;
      }
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, filler.length);
      left -= n;
      this.push(n === filler.length ? filler : filler.subarray(0, n));
    },
  });
}

/** Writes a bigFileStream to a new file in its own temp folder; remove it with `rm(path.dirname(file), {recursive: true})`. */
export async function bigFile(kind: BigFileKind, bytes: number): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-big-'));
  const file = path.join(dir, `big.${kind === 'jpeg' ? 'jpg' : kind}`);
  await pipeline(bigFileStream(kind, bytes), createWriteStream(file));
  return file;
}
