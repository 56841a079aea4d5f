/**
 * The playful cover (storybook's): a polaroid stuck on slightly crooked inside a rounded frame, the title big
 * and round below it. Without a photo: the framed title page with a big ornament, the title in the accent.
 */
import { mm, type Box } from '../geometry.js';
import { drawFrame } from '../pdf-themes.js';
import { framedTitlePage } from './classic.js';
import type { CoverDesign } from './design.js';
import { image, printBox } from './drawing.js';
import { typesetter } from './kit.js';
import { standardSpine } from './spine.js';

const photoBox = (t: Box): Box => ({ x: t.x + t.w / 2 - mm(56), y: t.y + mm(24), w: mm(112), h: mm(84) });

export const playfulCover: CoverDesign = {
  photoBox: (_theme, panel) => photoBox(panel.trim),
  front(kit, { trim: t }, photo, look) {
    const { doc, style } = kit;
    const [p, ts, cx, box] = [style.palette, typesetter(kit), t.x + t.w / 2, photoBox(t)];
    // A small original is a smaller polaroid, centred where the big one goes.
    const pic = printBox(photo, box);
    drawFrame(doc, 'rounded', t, mm(11), p.accent, 1.2);
    const [pcx, pcy] = [pic.x + pic.w / 2, pic.y + pic.h / 2];
    doc.save().rotate(-3, { origin: [pcx, pcy] });
    doc.save().fillOpacity(0.16).rect(pic.x - 6, pic.y - 4, pic.w + 16, pic.h + 34).fill('#000000').restore();
    doc.save().rect(pic.x - 9, pic.y - 9, pic.w + 18, pic.h + 38).fill('#FFFFFF').restore();
    image(doc, photo, pic);
    doc.restore();
    const width = t.w - mm(44);
    const column = { x: cx - width / 2, w: width };
    const title = ts.fitTitle(width, 2, 40, 22);
    let at = ts.block(title.lines, title.style, column, box.y + box.h + mm(22), 'center', p.accent);
    if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(14), width, 2), ts.subtitle(14), column, at + mm(1), 'center', p.text);
    look.ornament(doc, cx, Math.min(at + mm(9), t.y + t.h - mm(20)), 1.2, p);
  },
  titlePage: (kit, panel, look) => framedTitlePage(kit, panel, look, { playful: true, titleColour: kit.style.palette.accent }),
  backTexture: (kit, panel, look) => drawFrame(kit.doc, look.coverFrame === 'none' ? 'hairline' : look.coverFrame, panel.trim, mm(12), kit.style.palette.accent, 0.7),
  spine: standardSpine,
};
