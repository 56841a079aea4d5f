/**
 * The magazine cover (editorial_noir's): the photo bleeds off every edge, the masthead over a darkened top,
 * the cover line at the foot. Without a photo: the title as a masthead across the top, rules and an issue
 * line, the subtitle as the cover line below.
 */
import { mm } from '../geometry.js';
import type { TextStyle } from '../text-layout.js';
import type { CoverDesign } from './design.js';
import { image } from './drawing.js';
import { bled, countLine, typesetter } from './kit.js';
import { standardSpine } from './spine.js';

export const magazineCover: CoverDesign = {
  // Full bleed, the whole front: a magazine cover.
  photoBox: (_theme, panel) => bled(panel),
  front(kit, panel, photo) {
    const { doc, style } = kit;
    const [t, all, p, ts] = [panel.trim, bled(panel), style.palette, typesetter(kit)];
    image(doc, photo, all);
    const left = t.x + mm(14);
    const width = t.w - mm(28);
    const title = ts.fitTitle(width, 2, 60, 28);
    const titleStyle = { ...title.style, leading: 1.02 };
    // The masthead's band runs down to just below the title, the cover line's up from the foot.
    const head = t.y + mm(19) + title.lines.length * titleStyle.size * titleStyle.leading + mm(7);
    doc.save().fillOpacity(0.55).rect(all.x, all.y, all.w, head - all.y).fill(p.background).restore();
    ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), left, t.y + mm(12), p.text, width, 'left');
    doc.save().rect(left, t.y + mm(15), width, 2.2).fill(p.accent).restore();
    ts.block(title.lines, titleStyle, { x: left, w: width }, t.y + mm(19), 'left', p.text);
    if (!kit.subtitle) return;
    const s: TextStyle = { ...ts.subtitle(22), leading: 1.15 };
    const lines = ts.subtitleLines(s, width * 0.75, 3);
    const h = lines.length * s.size * s.leading;
    const foot = t.y + t.h - mm(16) - h - mm(14);
    doc.save().fillOpacity(0.55).rect(all.x, foot, all.w, all.y + all.h - foot).fill(p.background).restore();
    doc.save().rect(left, t.y + t.h - mm(16) - h - mm(6), mm(18), 3).fill(p.accent).restore();
    ts.block(lines, s, { x: left, w: width }, t.y + t.h - mm(16) - h, 'left', p.text);
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
