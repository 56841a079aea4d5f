/** The shapes and textures the cover designs share: photos in clipped windows, arches, ruled paper, tape, dots. */
import type { ThemePalette } from '../../../media-tools/themes.js';
import { mm, type Box } from '../geometry.js';
import type { Pen } from '../pdf-themes.js';
import type { PreparedPicture } from '../pictures.js';
import { bled, type Panel } from './kit.js';

/** The least a cover photo prints at, pixels per inch: a smaller original gets a smaller print, not a blurred one. */
export const COVER_MIN_PPI = 200;

/**
 * Where a photo prepared for `box` prints: the whole box when it has the pixels for COVER_MIN_PPI there, else
 * a smaller box of the same shape centred in it (the print on its mat, in its frame or window).
 */
export function printBox(photo: Pick<PreparedPicture, 'widthPx' | 'heightPx'>, box: Box): Box {
  const room = Math.min(1, (photo.widthPx * 72) / (COVER_MIN_PPI * box.w), (photo.heightPx * 72) / (COVER_MIN_PPI * box.h));
  if (room >= 1) return box;
  const [w, h] = [box.w * room * 0.999, box.h * room * 0.999];
  return { x: box.x + (box.w - w) / 2, y: box.y + (box.h - h) / 2, w, h };
}

export function image(pen: Pen, photo: PreparedPicture, box: Box, clip?: (pen: Pen) => void) {
  pen.save();
  if (clip) {
    clip(pen);
    pen.clip();
  }
  pen.image(photo.jpeg, box.x, box.y, { width: box.w, height: box.h });
  pen.restore();
}

/** A rectangle whose top is a shallow arch rising `rise` above its sides, like a conservatory's window. */
export function segmentalArch(pen: Pen, b: Box, rise: number, grow = 0) {
  const [x, y, w, h] = [b.x - grow, b.y - grow, b.w + 2 * grow, b.h + 2 * grow];
  pen.path(`M ${x} ${y + h} L ${x} ${y + rise} A ${w / 2} ${rise} 0 0 1 ${x + w} ${y + rise} L ${x + w} ${y + h} Z`);
}

/** A rectangle with a round top, like a church window. */
export function archPath(pen: Pen, b: Box, grow = 0) {
  const [x, y, w, h] = [b.x - grow, b.y - grow, b.w + 2 * grow, b.h + 2 * grow];
  const r = w / 2;
  pen.path(`M ${x} ${y + h} L ${x} ${y + r} A ${r} ${r} 0 0 1 ${x + w} ${y + r} L ${x + w} ${y + h} Z`);
}

/** Ruled lines and a red margin rule over the whole panel, as on a journal's page. */
export function ruledPaper(doc: Pen, panel: Panel, p: ThemePalette) {
  const t = panel.trim;
  const all = bled(panel);
  const rule = mm(9);
  const first = t.y + mm(27);
  doc.save().lineWidth(0.5).strokeColor(p.muted).strokeOpacity(0.3);
  for (let at = first; at < t.y + t.h - mm(10); at += rule) doc.moveTo(all.x, at).lineTo(all.x + all.w, at).stroke();
  doc.restore();
  doc.save().lineWidth(1).strokeColor(p.accent).strokeOpacity(0.75).moveTo(t.x + mm(26), all.y).lineTo(t.x + mm(26), all.y + all.h).stroke().restore();
  return { rule, first };
}

/** A strip of translucent paper tape, `w` × `h`, its top left at (x, y), turned `angle` degrees; finely striped. */
export function washiTape(doc: Pen, x: number, y: number, w: number, h: number, angle: number, p: ThemePalette) {
  doc.save().rotate(angle, { origin: [x + w / 2, y + h / 2] });
  doc.save().fillOpacity(0.7).rect(x, y, w, h).fill(p.accent).restore();
  doc.save().fillOpacity(0.35);
  for (let sx = x + 3; sx < x + w - 2; sx += 7) doc.rect(sx, y, 2.5, h).fill('#FFFFFF');
  doc.restore();
  doc.restore();
}

export function polkaDots(doc: Pen, area: Box, p: ThemePalette, opacity: number) {
  doc.save().fillOpacity(opacity);
  for (let row = 0, yy = area.y + mm(8); yy < area.y + area.h; row++, yy += mm(16)) {
    for (let xx = area.x + (row % 2 ? mm(16) : mm(8)); xx < area.x + area.w; xx += mm(16)) doc.circle(xx, yy, mm(2.6)).fill(row % 3 ? p.accent : p.muted);
  }
  doc.restore();
}
