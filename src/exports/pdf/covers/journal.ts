/**
 * The journal cover (daily_journal's): a cloth-bound notebook, its binding band stitched down the left, an
 * elastic band on the right, a big snapshot taped onto the ruled paper, the title written on a label stuck
 * below it. Without a photo: lined paper, the title and subtitle written on its lines.
 */
import { mm, type Box } from '../geometry.js';
import type { PdfLook } from '../pdf-themes.js';
import type { PreparedPicture } from '../pictures.js';
import type { TextStyle } from '../text-layout.js';
import { drawLine } from '../typeset.js';
import type { CoverDesign } from './design.js';
import { image, printBox, ruledPaper, washiTape } from './drawing.js';
import { bled, countLine, typesetter, type CoverKit, type Panel } from './kit.js';
import { standardSpine } from './spine.js';

// A big snapshot between the notebook's cloth binding (left) and its elastic band (right).
const photoBox = (t: Box): Box => ({ x: t.x + mm(36), y: t.y + mm(17), w: mm(146), h: mm(100) });

/** The binding, the elastic band and the taped snapshot. */
function notebook(kit: CoverKit, panel: Panel, photo: PreparedPicture) {
  const { doc, style } = kit;
  // A small original is a smaller snapshot, centred where the big one goes.
  const [t, all, p, box] = [panel.trim, bled(panel), style.palette, printBox(photo, photoBox(panel.trim))];
  ruledPaper(doc, panel, p);
  const band = t.x + mm(17);
  doc.save().rect(all.x, all.y, band - all.x, all.h).fill(p.accent).restore();
  doc.save().lineWidth(0.8).strokeColor(p.background).strokeOpacity(0.8).dash(5, { space: 4 }).moveTo(band - mm(4), all.y).lineTo(band - mm(4), all.y + all.h).stroke().undash().restore();
  doc.save().fillOpacity(0.18).rect(band, all.y, mm(1.2), all.h).fill('#000000').restore();
  const elastic = t.x + t.w - mm(15);
  doc.save().rect(elastic, all.y, mm(5), all.h).fill(p.text).restore();
  doc.save().fillOpacity(0.22).rect(elastic + mm(0.8), all.y, mm(1), all.h).fill('#FFFFFF').restore();
  // The snapshot, a little crooked, with washi tape at two corners.
  const [pcx, pcy] = [box.x + box.w / 2, box.y + box.h / 2];
  doc.save().rotate(-1.6, { origin: [pcx, pcy] });
  doc.save().fillOpacity(0.16).rect(box.x - 5, box.y - 3, box.w + 15, box.h + 15).fill('#000000').restore();
  doc.save().rect(box.x - 8, box.y - 8, box.w + 16, box.h + 16).fill('#FFFFFF').restore();
  image(doc, photo, box);
  for (const [tx, ty, angle] of [
    [box.x - mm(6), box.y - mm(2), -38],
    [box.x + box.w - mm(12), box.y + box.h - mm(3), -38],
  ] as const) washiTape(doc, tx, ty, mm(22), mm(7), angle, p);
  doc.restore();
}

/** The label: white, a double rule in the accent, the title in the journal's hand, the subtitle under a rule. */
function label(kit: CoverKit, { trim: t }: Panel, look: PdfLook) {
  const { doc, style } = kit;
  const [p, ts, box] = [style.palette, typesetter(kit), photoBox(t)];
  const area = { x: t.x + mm(38), y: 0, w: t.w - mm(38) - mm(26), h: 0 };
  const inner = { x: area.x + mm(9), w: area.w - mm(18) };
  const title = ts.fitTitle(inner.w, 3, 44, 22);
  const sub = ts.subtitle(15);
  const subLines = kit.subtitle ? ts.subtitleLines(sub, inner.w, 2) : [];
  // As tall as the title's lines (a long title takes more than one), the subtitle's and the count's.
  area.h = mm(5.5) + title.lines.length * title.style.size * title.style.leading + mm(2.5) + subLines.length * sub.size * sub.leading + mm(14);
  // Midway between the snapshot and the foot of the cover, and never past the foot: a tall label covers the snapshot's edge instead.
  area.y = Math.min((box.y + box.h + mm(8) + t.y + t.h - mm(4) - area.h) / 2, t.y + t.h - mm(4) - area.h);
  const [lcx, lcy] = [area.x + area.w / 2, area.y + area.h / 2];
  doc.save().rotate(0.8, { origin: [lcx, lcy] });
  doc.save().fillOpacity(0.12).roundedRect(area.x + 3, area.y + 4, area.w, area.h, mm(3)).fill('#000000').restore();
  doc.save().roundedRect(area.x, area.y, area.w, area.h, mm(3)).fill('#FFFFFF').restore();
  doc.save().lineWidth(1.2).strokeColor(p.accent).roundedRect(area.x + mm(2.5), area.y + mm(2.5), area.w - mm(5), area.h - mm(5), mm(2)).stroke().restore();
  doc.save().lineWidth(0.4).strokeColor(p.accent).roundedRect(area.x + mm(3.6), area.y + mm(3.6), area.w - mm(7.2), area.h - mm(7.2), mm(1.5)).stroke().restore();
  const at = ts.block(title.lines, title.style, inner, area.y + mm(5.5), 'left', p.text);
  doc.save().lineWidth(0.5).strokeColor(p.muted).strokeOpacity(0.5).moveTo(inner.x, at + mm(0.5)).lineTo(inner.x + inner.w, at + mm(0.5)).stroke().restore();
  if (subLines.length) ts.block(subLines, sub, inner, at + mm(2.5), 'left', p.muted);
  const countStyle: TextStyle = { ...ts.smallCaps(12), characterSpacing: 0, fallbacks: kit.fallbacks.body };
  ts.line(countLine(kit.memoryCount), countStyle, inner.x + inner.w, area.y + area.h - mm(6), p.accent, inner.w / 2, 'right');
  look.ornament(doc, inner.x + 30, area.y + area.h - mm(7.5), 0.7, p);
  doc.restore();
}

export const journalCover: CoverDesign = {
  photoBox: (_theme, panel) => photoBox(panel.trim),
  front(kit, panel, photo, look) {
    notebook(kit, panel, photo);
    label(kit, panel, look);
  },
  titlePage(kit, panel, look) {
    const { doc, style } = kit;
    const [t, p, ts] = [panel.trim, style.palette, typesetter(kit)];
    const { rule, first } = ruledPaper(doc, panel, p);
    const left = t.x + mm(33);
    const width = t.w - mm(50);
    const title = ts.fitTitle(width, 3, 40, 22);
    let line = 6;
    for (const l of title.lines) {
      drawLine(doc, l, left, first + rule * line - mm(1.2), title.style, p.text);
      line += title.style.size > 30 ? 2 : 1;
    }
    look.ornament(doc, left + 40, first + rule * line - rule / 2, 0.9, p);
    line += 1;
    if (kit.subtitle) {
      const sub: TextStyle = { ...ts.subtitle(15), size: 17 };
      for (const l of ts.subtitleLines(sub, width, 3)) drawLine(doc, l, left, first + rule * line++ - mm(1.2), sub, p.muted);
    }
    const countStyle: TextStyle = { ...ts.smallCaps(), characterSpacing: 0, size: 12 };
    ts.line(countLine(kit.memoryCount), countStyle, left, first + rule * Math.max(16, line + 1) - mm(1.2), p.accent, width, 'left');
  },
  backTexture: (kit, panel) => void ruledPaper(kit.doc, panel, kit.style.palette),
  spine: standardSpine,
};
