/**
 * The gallery cover (heirloom_gallery's): a museum plate, the photograph on a wide white mat with a keyline,
 * the title beneath like a wall label. Without a photo: an exhibition's title wall, the title set large on
 * the paper under a keyline, with the same label at the foot (never an empty window).
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
  // A gallery's title wall, set in type on the paper (no mat or panel: an empty window reads as a missing
  // photo): a keyline in the accent, the title large and flush left under it as an exhibition's title, the
  // subtitle beneath, and at the foot a label with the count, the front's own foot line.
  titlePage(kit, { trim: t }, look) {
    const { doc, style } = kit;
    const [p, ts, plate] = [style.palette, typesetter(kit), photoBox(t)];
    const width = plate.w;
    const title = ts.fitTitle(width, 3, 40, 22);
    const titleH = title.lines.length * title.style.size * title.style.leading;
    // (The title's block a little above the page's middle, the keyline a step over it.)
    const top = t.y + t.h * 0.42 - titleH / 2;
    doc.save().lineWidth(0.75).strokeColor(p.accent).moveTo(plate.x, top - mm(12)).lineTo(plate.x + mm(40), top - mm(12)).stroke().restore();
    const at = ts.block(title.lines, title.style, { x: plate.x, w: width }, top, 'left', p.text);
    if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(16), width, 2), ts.subtitle(16), { x: plate.x, w: width }, at + mm(4), 'left', p.muted);
    look.ornament(doc, plate.x + plate.w - mm(16), t.y + t.h - mm(21), 0.6, p);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), plate.x, t.y + t.h - mm(20), p.muted, width / 2, 'left');
  },
  backTexture: (kit, { trim: t }) => void kit.doc.save().lineWidth(0.5).strokeColor(kit.style.palette.accent).moveTo(t.x + mm(24), t.y + mm(20)).lineTo(t.x + t.w - mm(24), t.y + mm(20)).stroke().restore(),
  spine: standardSpine,
};
