/**
 * Photos with a marked subject, for the read-back check that a crop never
 * cuts one: a face (skin, eyes, a mouth, a body below it) ringed in pure
 * magenta, set off the middle of a quiet landscape, in every orientation.
 * A printed crop keeps the subject when the whole ring is in the picture:
 * some magenta, none of it touching an edge.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';

/** Width, height, and where the subject's centre is (fractions of the upright photo). */
export const MARKED = {
  landscape: [1800, 1200, 0.18, 0.4],
  portrait: [1200, 1800, 0.5, 0.17],
  square: [1400, 1400, 0.8, 0.22],
  panorama: [2700, 900, 0.1, 0.5],
  tall: [900, 1950, 0.35, 0.12],
  /** Large enough for a whole page (a gallery plate), the subject near the left. */
  plate: [2600, 1900, 0.2, 0.35],
  /** A small original (640 px): it must get a smaller cell, not print soft. */
  small: [640, 480, 0.75, 0.3],
  /** Stored landscape with EXIF orientation 6: seen upright as portrait, its subject near the top. */
  turned: [1200, 1800, 0.55, 0.15],
} as const;
export type Marked = keyof typeof MARKED;

function svgOf(w: number, h: number, fx: number, fy: number): string {
  const r = Math.min(w, h) * 0.09;
  const [cx, cy] = [w * fx, h * fy];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#9fb4c2"/><stop offset="1" stop-color="#7d8f7a"/></linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <rect y="${h * 0.75}" width="${w}" height="${h * 0.25}" fill="#6e7d62"/>
  <ellipse cx="${cx}" cy="${cy + r * 2.2}" rx="${r * 1.3}" ry="${r * 1.4}" fill="#3d5a80"/>
  <circle cx="${cx}" cy="${cy}" r="${r * 1.12}" fill="#ff00ff"/>
  <ellipse cx="${cx}" cy="${cy}" rx="${r * 0.85}" ry="${r}" fill="#e0ac8a"/>
  <circle cx="${cx - r * 0.3}" cy="${cy - r * 0.15}" r="${r * 0.09}" fill="#2a1a10"/><circle cx="${cx + r * 0.3}" cy="${cy - r * 0.15}" r="${r * 0.09}" fill="#2a1a10"/>
  <path d="M ${cx - r * 0.3} ${cy + r * 0.4} Q ${cx} ${cy + r * 0.6} ${cx + r * 0.3} ${cy + r * 0.4}" stroke="#8a3b2b" stroke-width="${r * 0.06}" fill="none"/>
  </svg>`;
}

/** Writes one marked photo of w × h pixels, its subject's centre at (fx, fy) (fractions), to `file`. */
export async function makeMarkedPhoto(file: string, w: number, h: number, fx: number, fy: number): Promise<void> {
  await writeFile(file, await sharp(Buffer.from(svgOf(w, h, fx, fy))).jpeg({ quality: 85 }).toBuffer());
}

/** Writes the marked photos into `dir` as `<name>.jpg`. */
export async function makeMarkedPhotos(dir: string): Promise<void> {
  for (const [name, [w, h, fx, fy]] of Object.entries(MARKED)) {
    let img;
    if (name === 'turned') {
      // Drawn upright, then stored turned a quarter left with orientation 6 saying to turn it back.
      const upright = await sharp(Buffer.from(svgOf(w, h, fx, fy))).png().toBuffer();
      img = sharp(await sharp(upright).rotate(-90).png().toBuffer()).withMetadata({ orientation: 6 });
    } else {
      img = sharp(Buffer.from(svgOf(w, h, fx, fy)));
    }
    await writeFile(path.join(dir, `${name}.jpg`), await img.jpeg({ quality: 85 }).toBuffer());
  }
}

/**
 * Whether a picture (any file sharp reads, as printed) shows its marked subject whole: the magenta ring is
 * there and reaches no edge. Returns what is wrong, or null.
 */
export async function subjectCut(file: string | Buffer): Promise<string | null> {
  const { data, info } = await sharp(file).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels } = info;
  let [x0, y0, x1, y1, n] = [w, h, -1, -1, 0];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * channels;
      if (data[i] > 180 && data[i + 1] < 100 && data[i + 2] > 180) {
        n++;
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x);
        y1 = Math.max(y1, y);
      }
    }
  }
  if (n < 8) return `no subject in a ${w}×${h} picture`;
  if (x0 <= 0 || y0 <= 0 || x1 >= w - 1 || y1 >= h - 1) return `subject cut at the edge of a ${w}×${h} picture (ring ${x0}..${x1} × ${y0}..${y1})`;
  return null;
}
