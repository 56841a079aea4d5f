/**
 * Crops around a photo's subject: the one cropping function shared by the
 * printed book, the cover (its `focal_point`), share cards and the web form.
 *
 * A focal point is where the subject is, as fractions of the upright photo's
 * width and height (0..1 from the left and top edges).
 */
import { loadSharp } from './sharp.js';

export interface FocalPoint {
  x: number;
  y: number;
}

export interface CropRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export const CENTRE: FocalPoint = Object.freeze({ x: 0.5, y: 0.5 });

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0.5);

/**
 * The largest rectangle of `aspect` (width / height) inside a `w` × `h`
 * photo, centred on the focal point as far as the photo's edges allow.
 * Whole pixels, never outside the photo, never empty.
 */
export function cropRectAround(size: { w: number; h: number }, aspect: number, focal: FocalPoint = CENTRE): CropRect {
  const { w, h } = size;
  let width = Math.min(w, Math.round(h * aspect));
  let height = Math.min(h, Math.round(width / aspect));
  width = Math.max(1, width);
  height = Math.max(1, height);
  const cx = clamp01(focal.x) * w;
  const cy = clamp01(focal.y) * h;
  const left = Math.round(Math.min(Math.max(cx - width / 2, 0), w - width));
  const top = Math.round(Math.min(Math.max(cy - height / 2, 0), h - height));
  return { left, top, width, height };
}

/** The longest side of the preview the subject is looked for in: enough for the attention map, cheap to decode. */
const PREVIEW_PX = 384;

/**
 * Where the subject of a photo is, from sharp's attention strategy (skin
 * tones, saturation, luminance frequency) run on a small upright preview:
 * once across (a third of the width) and once down (a third of the height),
 * so both coordinates are found whatever the photo's orientation. The centre
 * when the photo cannot be read.
 */
export async function detectFocalPoint(input: string | Buffer): Promise<FocalPoint> {
  const sharp = await loadSharp();
  try {
    const preview = await sharp(input, { failOn: 'none' })
      .rotate()
      .resize(PREVIEW_PX, PREVIEW_PX, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width: pw, height: ph, channels } = preview.info;
    const raw = { raw: { width: pw, height: ph, channels } } as const;
    const along = async (tw: number, th: number) =>
      (
        await sharp(preview.data, raw)
          .resize(Math.max(1, tw), Math.max(1, th), { fit: 'cover', position: sharp.strategy.attention })
          .toBuffer({ resolveWithObject: true })
      ).info;
    const across = await along(Math.round(pw / 3), ph);
    const down = await along(pw, Math.round(ph / 3));
    const x = across.attentionX ?? -(across.cropOffsetLeft ?? 0) + Math.round(pw / 3) / 2;
    const y = down.attentionY ?? -(down.cropOffsetTop ?? 0) + Math.round(ph / 3) / 2;
    return { x: clamp01(x / pw), y: clamp01(y / ph) };
  } catch {
    return { ...CENTRE };
  }
}
