/**
 * The nursery cover (baby_first_year's): polka dots all over and a big rounded label, the photo in a rounded
 * window at its top and the name below it; without a photo, the title alone on the label under the ornament.
 */
import { mm, type Box } from '../geometry.js';
import type { CoverDesign } from './design.js';
import { image, polkaDots, printBox } from './drawing.js';
import { bled, countLine, typesetter } from './kit.js';
import { standardSpine } from './spine.js';

const photoBox = (t: Box): Box => ({ x: t.x + mm(30), y: t.y + mm(28), w: t.w - mm(60), h: mm(100) });

export const nurseryCover: CoverDesign = {
  photoBox: (_theme, panel) => photoBox(panel.trim),
  front(kit, panel, photo, look) {
    const { doc, style } = kit;
    const [t, p, ts, box] = [panel.trim, style.palette, typesetter(kit), photoBox(panel.trim)];
    polkaDots(doc, bled(panel), p, 0.3);
    const label = { x: t.x + mm(20), y: t.y + mm(18), w: t.w - mm(40), h: t.h - mm(36) };
    doc.save().roundedRect(label.x, label.y, label.w, label.h, mm(14)).fill('#FFFFFF').restore();
    doc.save().lineWidth(2.4).strokeColor(p.accent).roundedRect(label.x + mm(4), label.y + mm(4), label.w - mm(8), label.h - mm(8), mm(11)).stroke().restore();
    const pic = printBox(photo, box);
    image(doc, photo, pic, (pen) => pen.roundedRect(pic.x, pic.y, pic.w, pic.h, Math.min(mm(8), pic.w / 6)));
    const width = label.w - mm(24);
    const column = { x: label.x + mm(12), w: width };
    const title = ts.fitTitle(width, 2, 36, 20);
    let at = ts.block(title.lines, title.style, column, box.y + box.h + mm(6), 'center', p.accent);
    if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(13), width, 1), ts.subtitle(13), column, at, 'center', p.text);
    look.ornament(doc, t.x + t.w / 2, Math.min(at + mm(7), label.y + label.h - mm(18)), 1, p);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), t.x + t.w / 2, label.y + label.h - mm(10), p.muted, width);
  },
  titlePage(kit, panel, look) {
    const { doc, style } = kit;
    const [t, p, ts, cx] = [panel.trim, style.palette, typesetter(kit), panel.trim.x + panel.trim.w / 2];
    polkaDots(doc, bled(panel), p, 0.35);
    const label = { x: t.x + mm(22), y: t.y + mm(50), w: t.w - mm(44), h: mm(110) };
    doc.save().roundedRect(label.x, label.y, label.w, label.h, mm(14)).fill('#FFFFFF').restore();
    doc.save().lineWidth(2.4).strokeColor(p.accent).roundedRect(label.x + mm(4), label.y + mm(4), label.w - mm(8), label.h - mm(8), mm(11)).stroke().restore();
    look.ornament(doc, cx, label.y + mm(20), 1.8, p);
    const width = label.w - mm(20);
    const column = { x: label.x + mm(10), w: width };
    const title = ts.fitTitle(width, 3, 46, 22);
    const at = ts.block(title.lines, title.style, column, label.y + mm(34), 'center', p.accent);
    if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(15), width, 2), ts.subtitle(15), column, at + mm(4), 'center', p.text);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), cx, label.y + label.h - mm(9), p.muted, width);
  },
  backTexture: (kit, panel) => polkaDots(kit.doc, bled(panel), kit.style.palette, 0.18),
  spine: standardSpine,
};
