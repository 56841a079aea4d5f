/**
 * The editorial cover (modern_clean's, a Swiss grid): the photo bleeds off the top and both sides, an accent
 * band under it, the title flush left on white. Without a photo: a band of the accent across the top, the
 * title large and flush left in the lower half.
 */
import { mm } from '../geometry.js';
import type { CoverDesign } from './design.js';
import { image, printBox } from './drawing.js';
import { bled, countLine, typesetter } from './kit.js';
import { standardSpine } from './spine.js';
import { ornamentHalfWidth } from '../themes/ornaments.js';

export const editorialCover: CoverDesign = {
  // Full bleed across the top three fifths.
  photoBox: (_theme, panel) => {
    const all = bled(panel);
    return { x: all.x, y: all.y, w: all.w, h: panel.bleed.top + panel.trim.h * 0.6 };
  },
  front(kit, panel, photo) {
    const { doc, style } = kit;
    const [t, all, p, ts] = [panel.trim, bled(panel), style.palette, typesetter(kit)];
    const box = editorialCover.photoBox(style.theme, panel);
    // A small original is a print on the page rather than a bled one: flush with the text's column, standing
    // on the accent band (centred in the bled area when it is too wide or too tall for that).
    let pic = printBox(photo, box);
    const column = t.x + mm(18);
    if (pic !== box && pic.w <= t.w - mm(36) && pic.h <= box.y + box.h - t.y - mm(24)) pic = { ...pic, x: column, y: box.y + box.h - mm(12) - pic.h };
    image(doc, photo, pic);
    const band = box.y + box.h;
    doc.save().rect(all.x, band, all.w, mm(4)).fill(p.accent).restore();
    const left = t.x + mm(18);
    const width = t.w - mm(36);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(8.5), left, band + mm(13), p.accent, width, 'left');
    const title = ts.fitTitle(width, 2, 38, 20);
    const at = ts.block(title.lines, title.style, { x: left, w: width }, band + mm(17), 'left', p.text);
    if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(13), width, 2), ts.subtitle(13), { x: left, w: width }, at + mm(1.5), 'left', p.muted);
  },
  titlePage(kit, panel, look) {
    const { doc, style } = kit;
    const [t, all, p, ts] = [panel.trim, bled(panel), style.palette, typesetter(kit)];
    doc.rect(all.x, all.y, all.w, t.y - all.y + mm(46)).fill(p.accent);
    const left = t.x + mm(20);
    const width = t.w - mm(40);
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), left, t.y + mm(36), p.background, width, 'left');
    const title = ts.fitTitle(width, 4, 46, 22);
    let at = ts.block(title.lines, title.style, { x: left, w: width }, t.y + mm(96), 'left', p.text);
    at += mm(5);
    // The rule flush with the title's left edge.
    look.ornament(doc, left + ornamentHalfWidth(look.ornament) * 0.5, at, 0.5, p);
    at += mm(8);
    if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(15), width), ts.subtitle(15), { x: left, w: width }, at, 'left', p.muted);
  },
  backTexture(kit, panel) {
    const all = bled(panel);
    kit.doc.save().rect(all.x, all.y, all.w, panel.trim.y - all.y + mm(14)).fill(kit.style.palette.accent).restore();
  },
  spine: standardSpine,
};
