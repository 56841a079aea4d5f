/**
 * The gallery cover (heirloom_gallery's): a museum plate, the photograph on a wide white mat with a keyline,
 * the title beneath like a wall label. Without a photo: an exhibition's title wall, the matted window in the
 * accent colour carrying the title itself.
 */
import { mm, type Box } from '../geometry.js';
import type { CoverDesign } from './design.js';
import { image, printBox } from './drawing.js';
import { countLine, typesetter } from './kit.js';
import { standardSpine } from './spine.js';

const photoBox = (t: Box): Box => ({ x: t.x + mm(24), y: t.y + mm(20), w: t.w - mm(48), h: t.h * 0.52 });

export const galleryCover: CoverDesign = {
  photoBox: (_theme, panel) => photoBox(panel.trim),
  front(kit, { trim: t }, photo, look) {
    const { doc, style } = kit;
    const [p, ts, box] = [style.palette, typesetter(kit), photoBox(t)];
    // The mat keeps its size; a small original is a smaller print centred on it, the keyline round the print.
    const pic = printBox(photo, box);
    doc.save().rect(box.x - mm(6), box.y - mm(6), box.w + mm(12), box.h + mm(12)).fill('#FFFFFF').restore();
    doc.save().lineWidth(0.5).strokeColor(p.accent).rect(pic.x - 2, pic.y - 2, pic.w + 4, pic.h + 4).stroke().restore();
    image(doc, photo, pic);
    const width = box.w;
    const title = ts.fitTitle(width, 2, 30, 18);
    const at = ts.block(title.lines, title.style, { x: box.x, w: width }, box.y + box.h + mm(16), 'left', p.text);
    if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(14), width, 2), ts.subtitle(14), { x: box.x, w: width }, at + mm(2), 'left', p.muted);
    look.ornament(doc, box.x + box.w - mm(16), t.y + t.h - mm(21), 0.6, p);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), box.x, t.y + t.h - mm(20), p.muted, width / 2, 'left');
  },
  // The title set in the page's colour between two ornaments on the accent plate; the subtitle and the count
  // beneath it like a museum label.
  titlePage(kit, { trim: t }, look) {
    const { doc, style } = kit;
    const [p, ts, plate] = [style.palette, typesetter(kit), photoBox(t)];
    doc.save().rect(plate.x - mm(6), plate.y - mm(6), plate.w + mm(12), plate.h + mm(12)).fill('#FFFFFF').restore();
    doc.save().rect(plate.x, plate.y, plate.w, plate.h).fill(p.accent).restore();
    const reversedInk = { ...p, accent: p.background, muted: p.background };
    const width = plate.w - mm(24);
    const title = ts.fitTitle(width, 3, 34, 18);
    const titleH = title.lines.length * title.style.size * title.style.leading;
    const top = plate.y + (plate.h - titleH) / 2;
    look.ornament(doc, plate.x + plate.w / 2, top - mm(10), 0.9, reversedInk);
    const end = ts.block(title.lines, title.style, { x: plate.x + mm(12), w: width }, top, 'center', p.background);
    look.ornament(doc, plate.x + plate.w / 2, end + mm(8), 0.9, reversedInk);
    let at = plate.y + plate.h + mm(14);
    if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(15), plate.w, 2), ts.subtitle(15), { x: plate.x, w: plate.w }, at, 'left', p.text);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), plate.x, Math.max(at + mm(8), t.y + t.h - mm(20)), p.muted, plate.w, 'left');
  },
  backTexture: (kit, { trim: t }) => void kit.doc.save().lineWidth(0.5).strokeColor(kit.style.palette.accent).moveTo(t.x + mm(24), t.y + mm(20)).lineTo(t.x + t.w - mm(24), t.y + mm(20)).stroke().restore(),
  spine: standardSpine,
};
