import { cropRectAround, type FocalPoint } from './focal-crop.js';
import { loadSharp } from './sharp.js';

/** The web form's header picture: a wide band (3:1), at most this many pixels across. */
export const COVER_BANNER_ASPECT = 3;
const COVER_BANNER_WIDTH = 1200;

/**
 * The book's cover as the web form's header shows it: the upright photo
 * cropped around its focal point (cropRectAround, the one cropping function)
 * to a 3:1 band, as a JPEG. null when the photo cannot be decoded.
 */
export async function renderCoverBanner(file: string, focal: FocalPoint): Promise<Buffer | null> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(file, { failOn: 'none' }).rotate().toBuffer({ resolveWithObject: true });
    const rect = cropRectAround({ w: info.width, h: info.height }, COVER_BANNER_ASPECT, focal);
    return await sharp(data, { failOn: 'none' })
      .extract(rect)
      .resize({ width: Math.min(COVER_BANNER_WIDTH, rect.width), withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85 })
      .toBuffer();
  } catch {
    return null;
  }
}
