/**
 * The certificate cover (retirement_tribute's): a heavy double frame with corner stars, "in honour of", the
 * title between rules, a line to sign; with a photo, a portrait medallion at its head.
 */
import { mm, type Box } from '../geometry.js';
import { drawFrame } from '../pdf-themes.js';
import type { CoverDesign } from './design.js';
import { image, printBox } from './drawing.js';
import { countLine, typesetter } from './kit.js';
import { standardSpine } from './spine.js';

const photoBox = (t: Box): Box => ({ x: t.x + t.w / 2 - mm(32), y: t.y + mm(24), w: mm(64), h: mm(64) });

export const certificateCover: CoverDesign = {
  photoBox: (_theme, panel) => photoBox(panel.trim),
  front(kit, { trim: t }, photo, look) {
    const { doc, style } = kit;
    const [p, ts, cx, box] = [style.palette, typesetter(kit), t.x + t.w / 2, photoBox(t)];
    drawFrame(doc, 'double', t, mm(9), p.accent, 1.4);
    drawFrame(doc, 'corners', t, mm(16), p.accent, 0.8);
    const pic = printBox(photo, box);
    const r = pic.w / 2;
    const [ccx, ccy] = [pic.x + r, pic.y + r];
    image(doc, photo, pic, (pen) => pen.circle(ccx, ccy, r));
    doc.save().lineWidth(2).strokeColor(p.accent).circle(ccx, ccy, r + 4).stroke().lineWidth(0.6).circle(ccx, ccy, r + 8).stroke().restore();
    const width = t.w - mm(64);
    const column = { x: cx - width / 2, w: width };
    ts.line('IN HONOUR OF', ts.smallCaps(10), cx, box.y + box.h + mm(14), p.accent, width);
    const top = box.y + box.h + mm(18);
    doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, top).lineTo(cx + width / 2, top).stroke().restore();
    const title = ts.fitTitle(width, 2, 30, 18);
    let at = ts.block(title.lines, title.style, column, top + mm(3), 'center', p.text) + mm(3);
    doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, at).lineTo(cx + width / 2, at).stroke().restore();
    if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(13), width, 2), ts.subtitle(13), column, at + mm(4), 'center', p.muted);
    look.ornament(doc, cx, Math.min(at + mm(9), t.y + t.h - mm(48)), 0.9, p);
    // A line to sign, and how many wrote.
    doc.save().lineWidth(0.5).strokeColor(p.muted).moveTo(cx - mm(35), t.y + t.h - mm(38)).lineTo(cx + mm(35), t.y + t.h - mm(38)).stroke().restore();
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), cx, t.y + t.h - mm(32), p.muted, width);
  },
  titlePage(kit, { trim: t }, look) {
    const { doc, style } = kit;
    const [p, ts, cx] = [style.palette, typesetter(kit), t.x + t.w / 2];
    drawFrame(doc, 'double', t, mm(9), p.accent, 1.4);
    drawFrame(doc, 'corners', t, mm(16), p.accent, 0.8);
    const width = t.w - mm(64);
    const column = { x: cx - width / 2, w: width };
    ts.line('IN HONOUR OF', ts.smallCaps(10), cx, t.y + mm(56), p.accent, width);
    const title = ts.fitTitle(width, 3, 34, 18);
    doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, t.y + mm(64)).lineTo(cx + width / 2, t.y + mm(64)).stroke().restore();
    let at = ts.block(title.lines, title.style, column, t.y + mm(68), 'center', p.text) + mm(4);
    doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, at).lineTo(cx + width / 2, at).stroke().restore();
    if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(15), width, 3), ts.subtitle(15), column, at + mm(7), 'center', p.muted);
    look.ornament(doc, cx, Math.max(at + mm(14), t.y + mm(150)), 1.2, p);
    doc.save().lineWidth(0.5).strokeColor(p.muted).moveTo(cx - mm(35), t.y + t.h - mm(38)).lineTo(cx + mm(35), t.y + t.h - mm(38)).stroke().restore();
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), cx, t.y + t.h - mm(32), p.muted, width);
  },
  backTexture: (kit, { trim: t }) => drawFrame(kit.doc, 'double', t, mm(9), kit.style.palette.accent, 1.4),
  spine: standardSpine,
};
