/**
 * The magazine cover (editorial_noir's): the photo bleeds off every edge, the masthead over a darkened top,
 * the cover line at the foot (both at the foot or both at the top when the subject is there: mastheadPlace). Without a photo: the title as a masthead across the top, rules and an issue
 * line, the subtitle as the cover line below.
 */
import { mm, type Box } from '../geometry.js';
import type { TextStyle } from '../text-layout.js';
import type { CoverDesign } from './design.js';
import { image, printBox } from './drawing.js';
import { bled, countLine, typesetter } from './kit.js';
import { standardSpine } from './spine.js';

/**
 * Where the masthead goes on a photo cover, so its band never lies over the photo's subject (its heads, or
 * the owner's focal point): `top` (the masthead across the top, the cover line at the foot: a magazine's
 * own), `foot` (both at the foot, for a subject high in the frame) or `head` (both at the top, for one low in
 * it). The placement whose bands cover least of the subject, a magazine's own when it covers none.
 * `subject` is in fractions of the photo, drawn over `photoBox`. `mastH`, `lineH`: the depths of the masthead and of the cover line (0 without one), points.
 */
export function mastheadPlace(trim: Box, photoBox: Box, mastH: number, lineH: number, subject: Box | null): 'top' | 'foot' | 'head' {
  if (!subject) return 'top';
  const [y0, y1] = [photoBox.y + subject.y * photoBox.h, photoBox.y + (subject.y + subject.h) * photoBox.h];
  const covered = (from: number, to: number) => Math.max(0, Math.min(to, y1) - Math.max(from, y0));
  const bottom = trim.y + trim.h;
  const places = [
    { place: 'top' as const, cut: covered(-Infinity, trim.y + mastH) + covered(bottom - lineH, Infinity) },
    { place: 'foot' as const, cut: covered(bottom - lineH - mastH - (lineH ? 0 : mm(9)), Infinity) },
    { place: 'head' as const, cut: covered(-Infinity, trim.y + mastH + lineH) },
  ];
  return places.reduce((best, c) => (c.cut < best.cut - 0.5 ? c : best)).place;
}

export const magazineCover: CoverDesign = {
  // Full bleed, the whole front: a magazine cover.
  photoBox: (_theme, panel) => bled(panel),
  front(kit, panel, photo) {
    const { doc, style } = kit;
    const [t, all, p, ts] = [panel.trim, bled(panel), style.palette, typesetter(kit)];
    const left = t.x + mm(14);
    const width = t.w - mm(28);
    const title = ts.fitTitle(width, 2, 60, 28);
    const titleStyle = { ...title.style, leading: 1.02 };
    const titleH = title.lines.length * titleStyle.size * titleStyle.leading;
    const s: TextStyle = { ...ts.subtitle(22), leading: 1.15 };
    const lines = kit.subtitle ? ts.subtitleLines(s, width * 0.75, 3) : [];
    const h = lines.length * s.size * s.leading;
    // The masthead (count line, rule, title) is mm(19) + the title + mm(7) deep; the cover line mm(14) + its lines + mm(16).
    const [mastH, lineH] = [mm(26) + titleH, lines.length ? mm(30) + h : 0];
    // A small original is an inset print on the dark ground, not a blurred bleed: flush with the masthead's
    // column, between the masthead and the cover line (smaller still if need be: its ppi only rises), no band over it.
    let pic = printBox(photo, all);
    const [roomTop, roomBottom] = [t.y + mastH + mm(4), t.y + t.h - (lineH ? lineH - mm(4) : mm(14))];
    const inset = pic !== all;
    if (inset) {
      const k = Math.min(1, (roomBottom - roomTop) / pic.h, width / pic.w);
      pic = { x: left, y: roomTop + (roomBottom - roomTop - pic.h * k) / 2, w: pic.w * k, h: pic.h * k };
    }
    image(doc, photo, pic);
    const place = inset ? 'top' : mastheadPlace(t, pic, mastH, lineH, photo.subject ?? null);
    const band = (y0: number, y1: number) => doc.save().fillOpacity(0.55).rect(all.x, y0, all.w, y1 - y0).fill(p.background).restore();
    // Where the masthead's top and the cover line's top fall, and the bands under them.
    const mastTop = place === 'foot' ? t.y + t.h - lineH - mastH + (lines.length ? mm(4) : -mm(9)) : t.y;
    const lineTop = place === 'head' ? t.y + mastH - mm(4) : t.y + t.h - lineH;
    if (inset) {
      // The ground is the page's own: no band needed.
    } else if (place === 'top') {
      band(all.y, mastTop + mastH);
      if (lines.length) band(lineTop, all.y + all.h);
    } else if (place === 'head') band(all.y, lines.length ? lineTop + lineH - mm(12) : mastTop + mastH);
    else band(mastTop + mm(3), all.y + all.h);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), left, mastTop + mm(12), p.text, width, 'left');
    doc.save().rect(left, mastTop + mm(15), width, 2.2).fill(p.accent).restore();
    ts.block(title.lines, titleStyle, { x: left, w: width }, mastTop + mm(19), 'left', p.text);
    if (!lines.length) return;
    doc.save().rect(left, lineTop + mm(8), mm(18), 3).fill(p.accent).restore();
    ts.block(lines, s, { x: left, w: width }, lineTop + mm(14), 'left', p.text);
  },
  titlePage(kit, { trim: t }) {
    const { doc, style } = kit;
    const [p, ts] = [style.palette, typesetter(kit)];
    const left = t.x + mm(14);
    const width = t.w - mm(28);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), left, t.y + mm(14), p.muted, width, 'left');
    doc.save().rect(left, t.y + mm(17), width, 2.2).fill(p.accent).restore();
    const title = ts.fitTitle(width, 3, 64, 28);
    let at = ts.block(title.lines, { ...title.style, leading: 1.02 }, { x: left, w: width }, t.y + mm(22), 'left', p.text);
    at += mm(3);
    doc.save().lineWidth(0.6).strokeColor(p.muted).moveTo(left, at).lineTo(left + width, at).stroke().restore();
    if (!kit.subtitle) return;
    const line: TextStyle = { ...ts.subtitle(15), size: 24, leading: 1.15 };
    const lines = ts.subtitleLines(line, width * 0.7, 4);
    const h = lines.length * line.size * line.leading;
    doc.save().rect(left, t.y + t.h - mm(22) - h - mm(6), mm(18), 3).fill(p.accent).restore();
    ts.block(lines, line, { x: left, w: width }, t.y + t.h - mm(22) - h, 'left', p.text);
  },
  backTexture: (kit, { trim: t }) => void kit.doc.save().rect(t.x + mm(14), t.y + mm(17), t.w - mm(28), 2.2).fill(kit.style.palette.accent).restore(),
  spine: standardSpine,
};
