/**
 * The classic cover: the photograph in a window on the page, the title centred beneath it in the theme's
 * serif or script. Four themes take it, each with its own window: a framed print (elegant_classic), an
 * arched one (memorial_service), a round one in a double ring (wedding_album), a conservatory's wide arch
 * over a gilt plate (botanical_luxe). Without a photo: a framed title page, the ornament above the title.
 */
import type { Theme } from '../../../media-tools/themes.js';
import { mm, type Box } from '../geometry.js';
import { drawFrame, type PdfLook } from '../pdf-themes.js';
import type { PreparedPicture } from '../pictures.js';
import type { CoverDesign } from './design.js';
import { archPath, image, printBox, segmentalArch } from './drawing.js';
import { countLine, typesetter, type CoverKit, type Panel } from './kit.js';
import { standardSpine } from './spine.js';

type Window = (kit: CoverKit, panel: Panel, photo: PreparedPicture, look: PdfLook) => void;

/** A framed photograph on the page: double frame round the cover, a keyline round the print. */
const framed: Window = (kit, { trim: t }, photo, look) => {
  const { doc, style } = kit;
  const [p, ts, cx, box] = [style.palette, typesetter(kit), t.x + t.w / 2, WINDOW_BOXES.elegant_classic(t)];
  const pic = printBox(photo, box);
  drawFrame(doc, 'double', t, mm(12), p.accent, 0.9);
  doc.save().lineWidth(0.6).strokeColor(p.accent).rect(pic.x - 6, pic.y - 6, pic.w + 12, pic.h + 12).stroke().restore();
  image(doc, photo, pic);
  const width = t.w - mm(60);
  const column = { x: cx - width / 2, w: width };
  const title = ts.fitTitle(width, 2, 34, 20);
  let at = ts.block(title.lines, title.style, column, box.y + box.h + mm(11), 'center', p.text);
  if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(14), width, 2), ts.subtitle(14), column, at + mm(2), 'center', p.muted);
  look.ornament(doc, cx, Math.min(at + mm(8), t.y + t.h - mm(34)), 0.9, p);
  ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), cx, t.y + t.h - mm(22), p.muted, width);
};

/** The portrait in an arched window, a hairline arch round it, the laurel below, the name in quiet capitals. */
const arched: Window = (kit, { trim: t }, photo, look) => {
  const { doc, style } = kit;
  const [p, ts, cx, box] = [style.palette, typesetter(kit), t.x + t.w / 2, WINDOW_BOXES.memorial_service(t)];
  const pic = printBox(photo, box);
  drawFrame(doc, 'hairline', t, mm(12), p.accent, 0.6);
  image(doc, photo, pic, (pen) => archPath(pen, pic));
  doc.save().lineWidth(0.7).strokeColor(p.accent);
  archPath(doc, pic, 5);
  doc.stroke().restore();
  look.ornament(doc, cx, box.y + box.h + mm(10), 1, p);
  const width = t.w - mm(56);
  const column = { x: cx - width / 2, w: width };
  const title = ts.fitTitle(width, 2, 32, 18);
  const at = ts.block(title.lines, title.style, column, box.y + box.h + mm(17), 'center', p.text);
  if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(14), width, 2), ts.subtitle(14), column, at + mm(1), 'center', p.muted);
};

/** A round window with a double ring, corners on the page, the title in script. */
const round: Window = (kit, { trim: t }, photo, look) => {
  const { doc, style } = kit;
  const [p, ts, cx, box] = [style.palette, typesetter(kit), t.x + t.w / 2, WINDOW_BOXES.wedding_album(t)];
  drawFrame(doc, 'corners', t, mm(11), p.accent, 0.8);
  const pic = printBox(photo, box);
  const r = pic.w / 2;
  const [ccx, ccy] = [pic.x + r, pic.y + r];
  image(doc, photo, pic, (pen) => pen.circle(ccx, ccy, r));
  doc.save().lineWidth(0.8).strokeColor(p.accent).circle(ccx, ccy, r + 5).stroke().lineWidth(0.4).circle(ccx, ccy, r + 8).stroke().restore();
  const width = t.w - mm(50);
  const column = { x: cx - width / 2, w: width };
  const title = ts.fitTitle(width, 2, 44, 24);
  const at = ts.block(title.lines, title.style, column, box.y + box.h + mm(12), 'center', p.accent);
  look.ornament(doc, cx, at + mm(3), 0.8, p);
  if (kit.subtitle) ts.block(ts.subtitleLines(ts.subtitle(14), width, 2), ts.subtitle(14), column, at + mm(7), 'center', p.muted);
};

/**
 * A luxe album: the photograph in a wide arched window edged in gilt; a gilt-framed plate rises into it with
 * the title in the book's serif, sprigs of leaves climbing from its corners; the count in spaced capitals below.
 */
const conservatory: Window = (kit, { trim: t }, photo, look) => {
  const { doc, style } = kit;
  const [p, ts, cx, box] = [style.palette, typesetter(kit), t.x + t.w / 2, WINDOW_BOXES.botanical_luxe(t)];
  const pic = printBox(photo, box);
  const rise = (mm(16) * pic.w) / box.w;
  image(doc, photo, pic, (pen) => segmentalArch(pen, pic, rise));
  doc.save().lineWidth(1).strokeColor(p.accent);
  segmentalArch(doc, pic, rise, 4);
  doc.stroke().lineWidth(0.4);
  segmentalArch(doc, pic, rise, 7);
  doc.stroke().restore();
  const width = t.w - mm(76);
  const column = { x: cx - width / 2, w: width };
  const title = ts.fitTitle(width, 2, 36, 22);
  const sub = ts.subtitle(13);
  const subLines = kit.subtitle ? ts.subtitleLines(sub, width, 2) : [];
  const titleH = title.lines.length * title.style.size * title.style.leading;
  const subH = subLines.length ? mm(3) + subLines.length * sub.size * sub.leading : 0;
  const plate = { x: cx - width / 2 - mm(12), y: 0, w: width + mm(24), h: mm(20) + titleH + subH };
  plate.y = Math.min(box.y + box.h - mm(20), t.y + t.h - mm(34) - plate.h);
  doc.save().rect(plate.x, plate.y, plate.w, plate.h).fill(p.background).restore();
  doc.save().lineWidth(1).strokeColor(p.accent).rect(plate.x + mm(2), plate.y + mm(2), plate.w - mm(4), plate.h - mm(4)).stroke().restore();
  doc.save().lineWidth(0.4).strokeColor(p.accent).rect(plate.x + mm(3.3), plate.y + mm(3.3), plate.w - mm(6.6), plate.h - mm(6.6)).stroke().restore();
  // Sprigs growing out of the plate's top corners, over the photograph's edge.
  for (const d of [-1, 1]) {
    const [sx, sy] = [cx + d * (plate.w / 2 - mm(2)), plate.y + mm(2)];
    doc.save().rotate(d * -50, { origin: [sx, sy] });
    look.ornament(doc, sx + d * 46, sy, 1.1, p);
    doc.restore();
  }
  const at = ts.block(title.lines, title.style, column, plate.y + mm(10), 'center', p.text);
  if (subLines.length) ts.block(subLines, sub, column, at + mm(3), 'center', p.accent);
  const below = plate.y + plate.h;
  look.ornament(doc, cx, below + mm(8), 0.7, p);
  ts.line(countLine(kit.memoryCount).toUpperCase(), { ...ts.smallCaps(9.5), fallbacks: kit.fallbacks.body }, cx, Math.min(below + mm(20), t.y + t.h - mm(14)), p.accent, width);
};

type ClassicTheme = 'elegant_classic' | 'memorial_service' | 'wedding_album' | 'botanical_luxe';

/** Each window's place on the trimmed front. */
const WINDOW_BOXES: Record<ClassicTheme, (t: Box) => Box> = {
  elegant_classic: (t) => ({ x: t.x + mm(32), y: t.y + mm(26), w: t.w - mm(64), h: mm(100) }),
  memorial_service: (t) => ({ x: t.x + t.w / 2 - mm(42), y: t.y + mm(22), w: mm(84), h: mm(102) }),
  wedding_album: (t) => ({ x: t.x + t.w / 2 - mm(48), y: t.y + mm(20), w: mm(96), h: mm(96) }),
  // A wide conservatory window, its top a shallow arch, down to the gilt plate that carries the title.
  botanical_luxe: (t) => ({ x: t.x + mm(13), y: t.y + mm(13), w: t.w - mm(26), h: mm(124) }),
};
const WINDOWS: Record<ClassicTheme, Window> = { elegant_classic: framed, memorial_service: arched, wedding_album: round, botanical_luxe: conservatory };
const windowOf = (theme: Theme): ClassicTheme => (theme in WINDOWS ? (theme as ClassicTheme) : 'elegant_classic');

/**
 * The title page of the classic and playful covers: the theme's frame, a large ornament above the title set
 * centred about the page's upper middle, the subtitle below, the count at the foot.
 */
export function framedTitlePage(kit: CoverKit, { trim: t }: Panel, look: PdfLook, o: { playful: boolean; titleColour: string }) {
  const { doc, style } = kit;
  const [p, ts, cx] = [style.palette, typesetter(kit), t.x + t.w / 2];
  const { playful } = o;
  drawFrame(doc, look.coverFrame, t, playful ? mm(11) : mm(12), p.accent, playful ? 1.2 : 0.9);
  look.ornament(doc, cx, t.y + (playful ? mm(52) : mm(58)), playful ? 2.2 : 1.25, p);
  const width = t.w - mm(56);
  const column = { x: t.x + mm(28), w: width };
  const title = ts.fitTitle(width, 3, playful ? 44 : 40, 20);
  const titleHeight = title.lines.length * title.style.size * title.style.leading;
  let at = ts.block(title.lines, title.style, column, t.y + mm(105) - titleHeight / 2, 'center', o.titleColour);
  if (kit.subtitle) at = ts.block(ts.subtitleLines(ts.subtitle(15), width, 3), ts.subtitle(15), column, at + mm(6), 'center', p.muted);
  if (!playful) look.ornament(doc, cx, Math.max(at + mm(12), t.y + mm(150)), 0.8, p);
  ts.line(countLine(kit.memoryCount).toUpperCase(), ts.smallCaps(), cx, t.y + t.h - mm(30), p.muted, width);
}

export const classicCover: CoverDesign = {
  photoBox: (theme, panel) => WINDOW_BOXES[windowOf(theme)](panel.trim),
  front: (kit, panel, photo, look) => WINDOWS[windowOf(kit.style.theme)](kit, panel, photo, look),
  // A script title (the wedding album's) is set in the accent, as on its front.
  titlePage: (kit, panel, look) => framedTitlePage(kit, panel, look, { playful: false, titleColour: kit.style.theme === 'wedding_album' ? kit.style.palette.accent : kit.style.palette.text }),
  backTexture: (kit, panel, look) => drawFrame(kit.doc, look.coverFrame === 'none' ? 'hairline' : look.coverFrame, panel.trim, mm(12), kit.style.palette.accent, 0.7),
  spine: standardSpine,
};
