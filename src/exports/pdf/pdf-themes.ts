/**
 * How each export theme lays out a printed book, on top of its palette and typefaces (media-tools/themes.ts,
 * shared with the share cards): one file per theme in themes/ declares its grid, type, pacing and look; this
 * module gathers them and draws what they share (mounts and frames).
 */
import type { Frame, Mount } from './themes/design.js';
import type { Pen } from './themes/ornaments.js';

export type { Frame, Mount, PdfLook } from './themes/design.js';
export { ORNAMENTS, type Ornament, type Pen } from './themes/ornaments.js';
export { PDF_LOOKS } from './themes/index.js';

/** Space a mount takes around a picture: [top, right, bottom, left], points. */
export function mountPadding(mount: Mount): [number, number, number, number] {
  switch (mount) {
    case 'border':
      return [5, 5, 5, 5];
    case 'polaroid':
    case 'tape':
      return [8, 8, 24, 8];
    case 'mat':
      return [12, 12, 12, 12];
    case 'tipped':
      return [6, 7, 10, 6];
    default:
      return [0, 0, 0, 0];
  }
}

/** Draws a frame of the given kind inset into a box. */
export function drawFrame(pen: Pen, kind: Frame, box: { x: number; y: number; w: number; h: number }, inset: number, colour: string, weight = 0.7) {
  const x = box.x + inset;
  const y = box.y + inset;
  const w = box.w - 2 * inset;
  const h = box.h - 2 * inset;
  pen.save().strokeColor(colour).lineWidth(weight);
  switch (kind) {
    case 'hairline':
      pen.rect(x, y, w, h).stroke();
      break;
    case 'double':
      pen.lineWidth(weight * 1.8).rect(x, y, w, h).stroke();
      pen.lineWidth(weight * 0.6).rect(x + 5, y + 5, w - 10, h - 10).stroke();
      break;
    case 'rounded':
      pen.lineWidth(weight * 2.2).roundedRect(x, y, w, h, 22).stroke();
      break;
    case 'corners': {
      const l = Math.min(w, h) * 0.12;
      for (const [cx, cy, dx, dy] of [
        [x, y, 1, 1],
        [x + w, y, -1, 1],
        [x, y + h, 1, -1],
        [x + w, y + h, -1, -1],
      ] as const) {
        pen.moveTo(cx, cy + dy * l).lineTo(cx, cy).lineTo(cx + dx * l, cy).stroke();
        pen.moveTo(cx + dx * 5, cy + dy * (l * 0.6)).lineTo(cx + dx * 5, cy + dy * 5).lineTo(cx + dx * (l * 0.6), cy + dy * 5).stroke();
        pen.circle(cx + dx * 9, cy + dy * 9, 1.3).fill(colour);
      }
      break;
    }
    default:
      break;
  }
  pen.restore();
}

/**
 * A tipped-in plate's photo corners: a small triangular pocket over each corner of the print (the box), in the
 * colour given, as an album's corners hold a print on its page.
 */
export function drawPhotoCorners(pen: Pen, box: { x: number; y: number; w: number; h: number }, colour: string) {
  const c = Math.max(9, Math.min(18, Math.min(box.w, box.h) * 0.09));
  const o = 1.5;
  const [l, t, r, b] = [box.x - o, box.y - o, box.x + box.w + o, box.y + box.h + o];
  pen.save().fillColor(colour);
  pen.polygon([l, t], [l + c, t], [l, t + c]).fill();
  pen.polygon([r, t], [r - c, t], [r, t + c]).fill();
  pen.polygon([l, b], [l + c, b], [l, b - c]).fill();
  pen.polygon([r, b], [r - c, b], [r, b - c]).fill();
  pen.restore();
}
