import { cellOfShape, chooseCellShape, OTHER_SHAPES } from '../../media-tools/cell-shape.js';
import { cropRectAround, subjectOfPhoto, type Box, type FocalPoint, type PhotoFile } from '../../media-tools/focal-crop.js';
import type Sharp from 'sharp';
import { loadSharp } from '../../media-tools/sharp.js';

/**
 * Photos and poster frames for the PDF, at print resolution: resampled to
 * 300 dpi at the size they are printed (never above it: a larger original
 * is scaled down, so the file stays small and the printer gets what it can
 * use) and never scaled up (a smaller original keeps its pixels). A small
 * picture is not blown up past 150 dpi either: it is printed smaller, so
 * nothing in the book looks blurred.
 */

export const PRINT_DPI = 300;
export const MIN_DPI = 150;

export interface PreparedPicture {
  jpeg: Buffer;
  /** Pixels of the embedded image. */
  widthPx: number;
  heightPx: number;
  /** Printed size in points. */
  width: number;
  height: number;
  /**
   * Where its subject is in the printed picture (fractions of it): the heads' box, or a box round the focal
   * point when no face was found or the owner chose one. Known for a picture cropped around its subject.
   */
  subject?: Box | null;
}

/** Printed size (points) of a picture of w×h pixels fitted into a box, at no less than MIN_DPI. */
export function printedSize(w: number, h: number, box: { w: number; h: number }): { width: number; height: number } {
  const aspect = w / h;
  let width = Math.min(box.w, box.h * aspect);
  width = Math.min(width, (w / MIN_DPI) * 72);
  return { width, height: width / aspect };
}

/**
 * Reads the file, turns it upright (EXIF orientation), fits it into `box`
 * (points) and encodes it as an sRGB JPEG at 300 dpi of its printed size.
 * Transparent areas take `background`. Null when the file is not a picture
 * sharp can decode (an unsupported format): the book is still worth having.
 */
export async function preparePicture(file: string, box: { w: number; h: number }, background: string): Promise<PreparedPicture | null> {
  const sharp = await loadSharp();
  const upright = await uprightSize(file);
  if (!upright) return null;
  const { w, h } = upright;
  const size = printedSize(w, h, box);
  const targetW = Math.min(w, Math.max(1, Math.round((size.width / 72) * PRINT_DPI)));
  const targetH = Math.min(h, Math.max(1, Math.round((size.height / 72) * PRINT_DPI)));
  try {
    const { data, info } = await sharp(file, { failOn: 'none' })
      .rotate()
      .resize(targetW, targetH, { fit: 'fill', withoutEnlargement: true })
      .flatten({ background })
      .toColorspace('srgb')
      .jpeg({ quality: 86, chromaSubsampling: '4:2:0', optimiseCoding: false })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: data, widthPx: info.width, heightPx: info.height, width: size.width, height: size.height };
  } catch {
    return null;
  }
}

/**
 * A photo cropped to fill a cell of w × h points around its subject: the
 * largest part of the photo of the cell's shape centred on `focal` (as far
 * as the photo's edges allow), its subject's when none is given (stored
 * with its media when it was processed, else detected now: subjectOfPhoto),
 * and then placed to cut no face (a cover's focal_point, chosen by its
 * owner, is given and wins). At 300 dpi
 * of the cell's size, or the photo's own pixels when it has fewer (see
 * cellAtLeast for keeping those at MIN_PRINT_PPI). `ppi` is what it prints at.
 */
export async function prepareCroppedPicture(
  photo: string | PhotoFile,
  cell: { w: number; h: number },
  background: string,
  focal?: FocalPoint,
): Promise<(PreparedPicture & { ppi: number; focal: FocalPoint }) | null> {
  const file = typeof photo === 'string' ? photo : photo.path;
  const upright = await uprightSize(file);
  if (!upright) return null;
  const subject = focal ? null : await subjectOfPhoto(photo);
  const at = focal ?? subject!.focal;
  const rect = cropRectAround(upright, cell.w / cell.h, at, subject?.heads);
  const plan = shrinkThenCrop(upright, rect, cell);
  try {
    const { data, info } = await (await shrunkAndCropped(file, upright.turned, plan))
      .flatten({ background })
      .toColorspace('srgb')
      .jpeg({ quality: 88, chromaSubsampling: '4:2:0' })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: data, widthPx: info.width, heightPx: info.height, width: cell.w, height: cell.h, ppi: info.width / (cell.w / 72), focal: at, subject: subjectInCrop(upright, rect, subject?.box ?? null, at) };
  } catch {
    return null;
  }
}

/** The subject's box (or a box of a quarter of the crop round the focal point) in fractions of the crop `rect`, clipped to it. */
export function subjectInCrop(size: { w: number; h: number }, rect: { left: number; top: number; width: number; height: number }, box: Box | null, focal: FocalPoint): Box {
  const around = { x: focal.x * size.w - rect.width / 8, y: focal.y * size.h - rect.height / 8, w: rect.width / 4, h: rect.height / 4 };
  const px = box ? { x: box.x * size.w, y: box.y * size.h, w: box.w * size.w, h: box.h * size.h } : around;
  const x0 = Math.max(0, (px.x - rect.left) / rect.width);
  const y0 = Math.max(0, (px.y - rect.top) / rect.height);
  const x1 = Math.min(1, (px.x + px.w - rect.left) / rect.width);
  const y1 = Math.min(1, (px.y + px.h - rect.top) / rect.height);
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/**
 * How to get the part `rect` of an upright photo of `size` pixels at 300 dpi of `cell` (points), never
 * scaled up: the whole photo resized by the factor the crop needs, then the crop's rectangle scaled to it.
 * The output has the same pixels as cropping first and resizing after, but the decoder can shrink on load.
 */
export function shrinkThenCrop(
  size: { w: number; h: number },
  rect: { left: number; top: number; width: number; height: number },
  cell: { w: number; h: number },
): { resize: { w: number; h: number }; extract: { left: number; top: number; width: number; height: number } } {
  const scale = Math.min(1, ((cell.w / 72) * PRINT_DPI) / rect.width);
  const width = Math.max(1, Math.round(rect.width * scale));
  const height = Math.max(1, Math.round(width / (cell.w / cell.h)));
  // Rounding may leave the resized photo a pixel short of the crop: it is never smaller than the crop.
  const resize = { w: Math.max(width, Math.round(size.w * scale)), h: Math.max(height, Math.round(size.h * scale)) };
  const left = Math.max(0, Math.min(resize.w - width, Math.round(rect.left * scale)));
  const top = Math.max(0, Math.min(resize.h - height, Math.round(rect.top * scale)));
  return { resize, extract: { left, top, width, height } };
}

/**
 * The photo resized, then cropped (shrinkThenCrop), still to be encoded. Resized before the crop so a JPEG is
 * decoded already shrunk (libjpeg's shrink-on-load), not at its full size. sharp turns a photo upright before
 * anything else when a crop follows, which stops the shrink-on-load: a turned photo is resized (and turned) on
 * its own first, and cropped from those pixels.
 */
async function shrunkAndCropped(file: string, turned: boolean, plan: ReturnType<typeof shrinkThenCrop>): Promise<ReturnType<typeof Sharp>> {
  const sharp = await loadSharp();
  const resized = sharp(file, { failOn: 'none' }).rotate().resize(plan.resize.w, plan.resize.h, { fit: 'fill' });
  if (!turned) return resized.extract(plan.extract);
  const { data, info } = await resized.toColorspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).extract(plan.extract);
}

/**
 * The cell a photo is printed in, inside the `slot` its layout gives it: the slot itself, unless the photo
 * is a portrait that the slot's landscape shape would cut by more than a sliver, or the slot's crop cannot
 * hold its subject (its faces); then the shape that cuts least (chooseCellShape), centred in the slot.
 */
export async function cellForPhoto<T extends { x: number; y: number; w: number; h: number }>(photo: string | PhotoFile, slot: T, photoAspect: number): Promise<T> {
  const subject = await subjectOfPhoto(photo);
  return cellOfShape(slot, chooseCellShape(photoAspect, subject.box, [slot.w / slot.h, ...OTHER_SHAPES]));
}

/**
 * The cell (points) a photo of `size` pixels fills at no less than `minPpi`: the cell itself when the
 * photo has the pixels for it, else the largest cell of the same shape it has them for (a small original
 * gets a smaller cell rather than printing soft).
 */
export function cellAtLeast(size: { w: number; h: number }, cell: { w: number; h: number }, minPpi: number): { w: number; h: number } {
  const usedW = Math.min(size.w, size.h * (cell.w / cell.h));
  const most = (usedW / minPpi) * 72;
  if (most >= cell.w) return cell;
  return { w: most, h: most / (cell.w / cell.h) };
}

/** The shapes a photo alone in a box keeps of its own: within 4:5 and 3:2, or (see ownShapeIn) within 1:2 and 2:1. */
const OWN_SHAPE = { narrow: [0.8, 1.5], wide: [0.5, 2] } as const;

/**
 * The shape (width / height) a photo of `size` pixels takes alone in `box` (points): its own within 4:5 and
 * 3:2, unless its own within 1:2 and 2:1 prints it larger at `minPpi` or more. A panorama or a tall photo
 * from a phone has the pixels for the box along its length, not across: cut to 3:2 (or 4:5) it loses half of
 * them and prints at half the box, while a 2:1 strip of it fills the box's width at full sharpness.
 */
export function ownShapeIn(size: { w: number; h: number }, box: { w: number; h: number }, minPpi: number): number {
  const own = size.w / size.h;
  const area = (range: readonly [number, number]) => {
    const shape = Math.min(range[1], Math.max(range[0], own));
    const fit = box.w / shape <= box.h ? { w: box.w, h: box.w / shape } : { w: box.h * shape, h: box.h };
    const cell = cellAtLeast(size, fit, minPpi);
    return { shape, printed: cell.w * cell.h };
  };
  const [narrow, wide] = [area(OWN_SHAPE.narrow), area(OWN_SHAPE.wide)];
  // (A tenth larger at least: a photo that fills its box either way keeps the calmer shape.)
  return wide.printed > narrow.printed * 1.1 ? wide.shape : narrow.shape;
}

/**
 * A prepared picture to be printed at `scale` of its size: fewer pixels, so it still prints at no more
 * than 300 dpi (a picture with fewer keeps its own). Unchanged when it has none to spare.
 */
export async function resamplePicture<T extends PreparedPicture & { ppi: number }>(pic: T, scale: number): Promise<T> {
  const ratio = Math.min(1, (PRINT_DPI * scale) / pic.ppi);
  const widthPx = Math.max(1, Math.round(pic.widthPx * ratio));
  if (ratio >= 1 || widthPx >= pic.widthPx) return pic;
  const heightPx = Math.max(1, Math.round((widthPx * pic.heightPx) / pic.widthPx));
  const sharp = await loadSharp();
  const { data, info } = await sharp(pic.jpeg).resize(widthPx, heightPx, { fit: 'fill' }).jpeg({ quality: 88, chromaSubsampling: '4:2:0' }).toBuffer({ resolveWithObject: true });
  return { ...pic, jpeg: data, widthPx: info.width, heightPx: info.height, ppi: info.width / ((pic.width * scale) / 72) };
}

/**
 * Pixel size of a picture as it is seen (EXIF orientation applied); null when it cannot be read.
 * `turned`: its EXIF orientation is other than as stored.
 */
export async function uprightSize(file: string): Promise<{ w: number; h: number; turned: boolean } | null> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(file, { failOn: 'none' }).metadata();
    if (!meta.width || !meta.height) return null;
    const orientation = meta.orientation ?? 1;
    const turned = orientation > 1;
    return orientation >= 5 ? { w: meta.height, h: meta.width, turned } : { w: meta.width, h: meta.height, turned };
  } catch {
    return null;
  }
}

/** Width / height of a picture as it is seen (EXIF orientation applied); null when it cannot be read. */
export async function aspectOf(file: string): Promise<number | null> {
  const size = await uprightSize(file);
  return size ? size.w / size.h : null;
}
