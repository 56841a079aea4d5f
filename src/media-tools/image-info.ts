import { open } from 'node:fs/promises';
import { loadSharp } from './sharp.js';

export interface ImageInfo {
  /** As displayed: swapped when the EXIF orientation (5–8) or HEIF rotation turns the picture on its side. null when unreadable. */
  width: number | null;
  height: number | null;
  /** EXIF orientation 1–8 as stored (1 = upright); null when the file has none or could not be read. */
  orientation: number | null;
  /** Who answered: sharp (decodes the file), image-size (reads the header only: HEIC and what sharp's libvips lacks), or nobody. */
  source: 'sharp' | 'header' | null;
  /** The format as the reader names it (jpeg, png, webp, heif, heic…); null when unreadable. */
  format: string | null;
}

const HEADER_BYTES = 512 * 1024;

/**
 * Width, height and orientation of an image. sharp first; when it cannot read
 * the file (HEIC: the prebuilt libvips has no HEVC decoder), the header is
 * parsed with image-size; when that fails too the dimensions are null rather
 * than an error, so a picture the service cannot measure still gets stored.
 */
export async function readImageInfo(path: string): Promise<ImageInfo> {
  try {
    const sharp = await loadSharp();
    const meta = await sharp(path, { failOn: 'none' }).metadata();
    if (meta.width && meta.height) {
      const orientation = meta.orientation ?? null;
      // An animated image reports all frames stacked; pageHeight is one frame.
      const height = meta.pageHeight ?? meta.height;
      const sideways = orientation !== null && orientation >= 5 && orientation <= 8;
      return {
        width: sideways ? height : meta.width,
        height: sideways ? meta.width : height,
        orientation,
        source: 'sharp',
        format: meta.format ?? null,
      };
    }
  } catch {
    // fall through to the header
  }
  const head = await readHead(path);
  try {
    const { imageSize } = await import('image-size');
    const size = imageSize(head);
    if (size.width && size.height) {
      // image-size gives a HEIF's first ispe, which may be one grid tile: the largest one is the picture.
      const largest = (size.images ?? [size]).reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
      const sideways = (size.orientation ?? 1) >= 5 || heifQuarterTurn(head, size.type);
      return {
        width: sideways ? largest.height : largest.width,
        height: sideways ? largest.width : largest.height,
        orientation: size.orientation ?? null,
        source: 'header',
        format: size.type ?? null,
      };
    }
  } catch {
    // unreadable
  }
  return { width: null, height: null, orientation: null, source: null, format: null };
}

/**
 * The pixels (width × height, the largest image of a HEIF) an image's header
 * declares, from the first bytes of the file alone: an upload is measured
 * while it streams, before anything decodes it. null when the header is not
 * in these bytes or not one image-size knows.
 */
export async function headerPixels(head: Uint8Array): Promise<{ width: number; height: number; pixels: number } | null> {
  try {
    const { imageSize } = await import('image-size');
    const size = imageSize(head);
    const largest = (size.images ?? [size]).reduce((a, b) => ((b.width ?? 0) * (b.height ?? 0) > (a.width ?? 0) * (a.height ?? 0) ? b : a));
    if (!largest.width || !largest.height) return null;
    return { width: largest.width, height: largest.height, pixels: largest.width * largest.height };
  } catch {
    return null;
  }
}

async function readHead(path: string): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await file.read(buf, 0, HEADER_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * HEIF stores its rotation in an `irot` property (angle × 90° anticlockwise),
 * not in EXIF. Camera files give every item the same one, so the first found
 * stands for the picture.
 */
function heifQuarterTurn(head: Uint8Array, type: string | undefined): boolean {
  if (type !== 'heic' && type !== 'heif' && type !== 'avif') return false;
  const at = Buffer.from(head.buffer, head.byteOffset, head.byteLength).indexOf('irot');
  return at >= 4 && at + 4 < head.length && (head[at + 4]! & 0b11) % 2 === 1;
}
