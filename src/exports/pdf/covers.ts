/**
 * Each theme's cover, drawn the same way on the first page of the book and
 * on the front of a printed book's cover wrap: the photo treatment (full
 * bleed, framed, a window cut in the page, or none: a typographic cover),
 * the title and subtitle in the theme's faces and colours, its ornament.
 * The spine and back of the wrap are here too, in the same colours.
 */
import type { Theme, ThemePalette, ThemeStyle } from '../../media-tools/themes.js';
import { mm, type Box } from './geometry.js';
import { drawFrame, PDF_LOOKS, type Pen, type PdfLook } from './pdf-themes.js';
import type { PreparedPicture } from './pictures.js';
import { breakLines, keepNumbersWithWords, LINING_FIGURES, type Line, type TextStyle } from './text-layout.js';
import { baselineOffset, drawLine, type registerThemeFaces } from './typeset.js';

/** Below this the spine carries no words (print providers ask for about 6 mm). */
export const SPINE_TEXT_MIN_MM = 6;

export interface CoverKit extends ReturnType<typeof registerThemeFaces> {
  doc: Pen;
  style: ThemeStyle;
  title: string;
  subtitle: string;
  memoryCount: number;
}

/** A cover's trimmed face, and how far the sheet runs past each of its edges (the bleed; nothing at a fold). */
export interface Panel {
  trim: Box;
  bleed: { top: number; right: number; bottom: number; left: number };
}

/** What the back cover says: a short memory, and when the book's memories were written. */
export interface BackText {
  quote: { text: string; signature: string | null } | null;
  dates: { first: string; last: string } | null;
}

/** The area a print shop puts its barcode in, at the back's bottom right: width × height, mm, and its inset from the trim. */
export const BARCODE_AREA_MM = { w: 50, h: 30, inset: 14 } as const;

const bled = ({ trim: t, bleed: b }: Panel): Box => ({ x: t.x - b.left, y: t.y - b.top, w: t.w + b.left + b.right, h: t.h + b.top + b.bottom });

/** Relative luminance of a #rrggbb colour (0 black … 1 white). */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const countLine = (n: number) => (n === 1 ? '1 memory' : `${n.toLocaleString('en-GB')} memories`);

/**
 * Where the theme's front cover puts its photo (the crop box the picture is prepared for).
 * Every theme has one: the cover photo is the book's, whichever theme it is printed in.
 */
export function coverPhotoBox(theme: Theme, panel: Panel): Box {
  const t = panel.trim;
  const cx = t.x + t.w / 2;
  const all = bled(panel);
  switch (theme) {
    case 'modern_clean':
      // Full bleed across the top three fifths.
      return { x: all.x, y: all.y, w: all.w, h: panel.bleed.top + t.h * 0.6 };
    case 'editorial_noir':
      // Full bleed, the whole front: a magazine cover.
      return all;
    case 'storybook':
      return { x: cx - mm(56), y: t.y + mm(24), w: mm(112), h: mm(84) };
    case 'memorial_service':
      return { x: cx - mm(42), y: t.y + mm(22), w: mm(84), h: mm(102) };
    case 'wedding_album':
      return { x: cx - mm(48), y: t.y + mm(20), w: mm(96), h: mm(96) };
    case 'baby_first_year':
      return { x: t.x + mm(30), y: t.y + mm(28), w: t.w - mm(60), h: mm(100) };
    case 'daily_journal':
      // A big snapshot between the notebook's cloth binding (left) and its elastic band (right).
      return { x: t.x + mm(36), y: t.y + mm(17), w: mm(146), h: mm(100) };
    case 'retirement_tribute':
      return { x: cx - mm(32), y: t.y + mm(24), w: mm(64), h: mm(64) };
    case 'botanical_luxe':
      // A wide conservatory window, its top a shallow arch, down to the gilt plate that carries the title.
      return { x: t.x + mm(13), y: t.y + mm(13), w: t.w - mm(26), h: mm(124) };
    case 'heirloom_gallery':
      return { x: t.x + mm(24), y: t.y + mm(20), w: t.w - mm(48), h: t.h * 0.52 };
    case 'elegant_classic':
    default:
      return { x: t.x + mm(32), y: t.y + mm(26), w: t.w - mm(64), h: mm(100) };
  }
}

/** Drawing helpers bound to one document and theme. */
function typesetter(kit: CoverKit) {
  const { doc, faces, fallbacks, measure, style } = kit;
  const title = (size: number): TextStyle => ({ face: faces.title, fallbacks: fallbacks.title, size, leading: 1.15, characterSpacing: style.titleUppercase ? size * 0.06 : 0, features: LINING_FIGURES });
  return {
    /** The title at the largest size that fits in `maxLines`, its lines balanced (no word left alone on the last one). */
    fitTitle(maxWidth: number, maxLines: number, from: number, to: number): { lines: Line[]; style: TextStyle } {
      const text = keepNumbersWithWords(style.titleUppercase ? kit.title.toUpperCase() : kit.title);
      let s = title(to);
      let lines: Line[] = [];
      for (let size = from; size >= to; size -= 2) {
        s = title(size);
        lines = breakLines(measure, text, s, maxWidth);
        if (lines.length <= maxLines) break;
      }
      if (lines.length > 1) {
        // The narrowest measure that still gives as many lines evens them out.
        let [lo, hi] = [maxWidth / 2, maxWidth];
        for (let i = 0; i < 12; i++) {
          const mid = (lo + hi) / 2;
          if (breakLines(measure, text, s, mid).length > lines.length) lo = mid;
          else hi = mid;
        }
        lines = breakLines(measure, text, s, hi);
      }
      return { lines, style: s };
    },
    /** Lines set in a column: returns the y below the last line. */
    block(lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, align: 'left' | 'center', colour: string): number {
      let at = top;
      for (const line of lines) {
        drawLine(doc, line, align === 'center' ? box.x + (box.w - line.width) / 2 : box.x, at + baselineOffset(s), s, colour);
        at += s.size * s.leading;
      }
      return at;
    },
    /** One line centred on x (or starting or ending at it), shrunk to `maxWidth` if need be. */
    line(text: string, s: TextStyle, x: number, baseline: number, colour: string, maxWidth: number, align: 'left' | 'center' | 'right' = 'center') {
      const flat = text.replace(/\s+/g, ' ');
      let [l] = breakLines(measure, flat, s, Number.MAX_SAFE_INTEGER);
      if (!l) return;
      let used = s;
      if (l.width > maxWidth) {
        used = { ...s, size: Math.max(5, (s.size * maxWidth) / l.width) };
        [l] = breakLines(measure, flat, used, Number.MAX_SAFE_INTEGER);
      }
      drawLine(doc, l, align === 'center' ? x - l.width / 2 : align === 'right' ? x - l.width : x, baseline, used, colour);
    },
    lines: (text: string, s: TextStyle, width: number, max = 99) => breakLines(measure, text, s, width).slice(0, max),
    subtitle: (size = 15): TextStyle => ({ face: faces.quote, fallbacks: fallbacks.quote, size, leading: 1.35 }),
    smallCaps: (size = 9): TextStyle => ({ face: faces.body, fallbacks: [], size, leading: 1, characterSpacing: size * 0.18, features: LINING_FIGURES }),
  };
}

function image(pen: Pen, photo: PreparedPicture, box: Box, clip?: (pen: Pen) => void) {
  pen.save();
  if (clip) {
    clip(pen);
    pen.clip();
  }
  pen.image(photo.jpeg, box.x, box.y, { width: box.w, height: box.h });
  pen.restore();
}

/** A rectangle whose top is a shallow arch rising `rise` above its sides, like a conservatory's window. */
function segmentalArch(pen: Pen, b: Box, rise: number, grow = 0) {
  const [x, y, w, h] = [b.x - grow, b.y - grow, b.w + 2 * grow, b.h + 2 * grow];
  pen.path(`M ${x} ${y + h} L ${x} ${y + rise} A ${w / 2} ${rise} 0 0 1 ${x + w} ${y + rise} L ${x + w} ${y + h} Z`);
}

/** A rectangle with a round top, like a church window. */
function archPath(pen: Pen, b: Box, grow = 0) {
  const [x, y, w, h] = [b.x - grow, b.y - grow, b.w + 2 * grow, b.h + 2 * grow];
  const r = w / 2;
  pen.path(`M ${x} ${y + h} L ${x} ${y + r} A ${r} ${r} 0 0 1 ${x + w} ${y + r} L ${x + w} ${y + h} Z`);
}

/**
 * The theme's front cover on `panel`. `photo` was prepared for coverPhotoBox(theme, panel); without one
 * the cover is typographic: the theme's title page.
 */
export function drawFrontCover(kit: CoverKit, panel: Panel, photo: PreparedPicture | null) {
  // A title with a natural break and no subtitle is set as the two.
  kit = { ...kit, ...splitTitle(kit.title, kit.subtitle) };
  const { doc, style } = kit;
  const look = PDF_LOOKS[style.theme];
  const p = style.palette;
  const t = panel.trim;
  const all = bled(panel);
  const ts = typesetter(kit);
  const cx = t.x + t.w / 2;
  const count = countLine(kit.memoryCount);
  const box = coverPhotoBox(style.theme, panel);
  doc.save().rect(all.x, all.y, all.w, all.h).fill(p.background).restore();
  if (!photo) return typographicCover(kit, panel, look);

  switch (style.theme) {
    case 'elegant_classic': {
      // A framed photograph on the page: double frame round the cover, a keyline round the print.
      drawFrame(doc, 'double', t, mm(12), p.accent, 0.9);
      doc.save().lineWidth(0.6).strokeColor(p.accent).rect(box.x - 6, box.y - 6, box.w + 12, box.h + 12).stroke().restore();
      image(doc, photo, box);
      const width = t.w - mm(60);
      const title = ts.fitTitle(width, 2, 34, 20);
      let at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, box.y + box.h + mm(11), 'center', p.text);
      if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, ts.subtitle(14), width, 2), ts.subtitle(14), { x: cx - width / 2, w: width }, at + mm(2), 'center', p.muted);
      look.ornament(doc, cx, Math.min(at + mm(8), t.y + t.h - mm(34)), 0.9, p);
      ts.line(count.toUpperCase(), ts.smallCaps(), cx, t.y + t.h - mm(22), p.muted, width);
      return;
    }
    case 'modern_clean': {
      // The photo bleeds off the top and both sides; an accent band, then the title flush left on white.
      image(doc, photo, box);
      const band = box.y + box.h;
      doc.save().rect(all.x, band, all.w, mm(4)).fill(p.accent).restore();
      const left = t.x + mm(18);
      const width = t.w - mm(36);
      ts.line(count.toUpperCase(), ts.smallCaps(8.5), left, band + mm(13), p.accent, width, 'left');
      const title = ts.fitTitle(width, 2, 38, 20);
      const at = ts.block(title.lines, title.style, { x: left, w: width }, band + mm(17), 'left', p.text);
      if (kit.subtitle) ts.block(ts.lines(kit.subtitle, ts.subtitle(13), width, 2), ts.subtitle(13), { x: left, w: width }, at + mm(1.5), 'left', p.muted);
      return;
    }
    case 'storybook': {
      // A polaroid stuck on slightly crooked, dots above, the title big and round below.
      drawFrame(doc, 'rounded', t, mm(11), p.accent, 1.2);
      const [pcx, pcy] = [box.x + box.w / 2, box.y + box.h / 2];
      doc.save().rotate(-3, { origin: [pcx, pcy] });
      doc.save().fillOpacity(0.16).rect(box.x - 6, box.y - 4, box.w + 16, box.h + 34).fill('#000000').restore();
      doc.save().rect(box.x - 9, box.y - 9, box.w + 18, box.h + 38).fill('#FFFFFF').restore();
      image(doc, photo, box);
      doc.restore();
      const width = t.w - mm(44);
      const title = ts.fitTitle(width, 2, 40, 22);
      let at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, box.y + box.h + mm(22), 'center', p.accent);
      if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, ts.subtitle(14), width, 2), ts.subtitle(14), { x: cx - width / 2, w: width }, at + mm(1), 'center', p.text);
      look.ornament(doc, cx, Math.min(at + mm(9), t.y + t.h - mm(20)), 1.2, p);
      return;
    }
    case 'memorial_service': {
      // The portrait in an arched window, a hairline arch round it, the laurel below, the name in quiet capitals.
      drawFrame(doc, 'hairline', t, mm(12), p.accent, 0.6);
      image(doc, photo, box, (pen) => archPath(pen, box));
      doc.save().lineWidth(0.7).strokeColor(p.accent);
      archPath(doc, box, 5);
      doc.stroke().restore();
      look.ornament(doc, cx, box.y + box.h + mm(10), 1, p);
      const width = t.w - mm(56);
      const title = ts.fitTitle(width, 2, 32, 18);
      const at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, box.y + box.h + mm(17), 'center', p.text);
      if (kit.subtitle) ts.block(ts.lines(kit.subtitle, ts.subtitle(14), width, 2), ts.subtitle(14), { x: cx - width / 2, w: width }, at + mm(1), 'center', p.muted);
      return;
    }
    case 'wedding_album': {
      // A round window with a double ring, corners on the page, the title in script.
      drawFrame(doc, 'corners', t, mm(11), p.accent, 0.8);
      const r = box.w / 2;
      const [ccx, ccy] = [box.x + r, box.y + r];
      image(doc, photo, box, (pen) => pen.circle(ccx, ccy, r));
      doc.save().lineWidth(0.8).strokeColor(p.accent).circle(ccx, ccy, r + 5).stroke().lineWidth(0.4).circle(ccx, ccy, r + 8).stroke().restore();
      const width = t.w - mm(50);
      const title = ts.fitTitle(width, 2, 44, 24);
      let at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, box.y + box.h + mm(12), 'center', p.accent);
      look.ornament(doc, cx, at + mm(3), 0.8, p);
      if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, ts.subtitle(14), width, 2), ts.subtitle(14), { x: cx - width / 2, w: width }, at + mm(7), 'center', p.muted);
      return;
    }
    case 'baby_first_year': {
      // Polka dots, a big rounded label, the photo in a rounded window at its top, the name below it.
      polkaDots(doc, all, p, 0.3);
      const label = { x: t.x + mm(20), y: t.y + mm(18), w: t.w - mm(40), h: t.h - mm(36) };
      doc.save().roundedRect(label.x, label.y, label.w, label.h, mm(14)).fill('#FFFFFF').restore();
      doc.save().lineWidth(2.4).strokeColor(p.accent).roundedRect(label.x + mm(4), label.y + mm(4), label.w - mm(8), label.h - mm(8), mm(11)).stroke().restore();
      image(doc, photo, box, (pen) => pen.roundedRect(box.x, box.y, box.w, box.h, mm(8)));
      const width = label.w - mm(24);
      const title = ts.fitTitle(width, 2, 36, 20);
      let at = ts.block(title.lines, title.style, { x: label.x + mm(12), w: width }, box.y + box.h + mm(6), 'center', p.accent);
      if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, ts.subtitle(13), width, 1), ts.subtitle(13), { x: label.x + mm(12), w: width }, at, 'center', p.text);
      look.ornament(doc, cx, Math.min(at + mm(7), label.y + label.h - mm(18)), 1, p);
      ts.line(count.toUpperCase(), ts.smallCaps(), cx, label.y + label.h - mm(10), p.muted, width);
      return;
    }
    case 'daily_journal': {
      // A cloth-bound notebook: a binding band with its stitching down the left, an elastic band on the right,
      // a big snapshot taped onto the ruled paper, the title written on a label stuck below it.
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
      // The label: white, a double rule in the accent, the title in the journal's hand, the subtitle under a rule.
      const label = { x: t.x + mm(38), y: 0, w: t.w - mm(38) - mm(26), h: 0 };
      const inner = { x: label.x + mm(9), w: label.w - mm(18) };
      const title = ts.fitTitle(inner.w, 3, 44, 22);
      const sub = ts.subtitle(15);
      const subLines = kit.subtitle ? ts.lines(kit.subtitle, sub, inner.w, 2) : [];
      // As tall as the title's lines (a long title takes more than one), the subtitle's and the count's.
      label.h = mm(5.5) + title.lines.length * title.style.size * title.style.leading + mm(2.5) + subLines.length * sub.size * sub.leading + mm(14);
      // Midway between the snapshot and the foot of the cover, and never past the foot: a tall label covers the snapshot's edge instead.
      label.y = Math.min((box.y + box.h + mm(8) + t.y + t.h - mm(4) - label.h) / 2, t.y + t.h - mm(4) - label.h);
      const [lcx, lcy] = [label.x + label.w / 2, label.y + label.h / 2];
      doc.save().rotate(0.8, { origin: [lcx, lcy] });
      doc.save().fillOpacity(0.12).roundedRect(label.x + 3, label.y + 4, label.w, label.h, mm(3)).fill('#000000').restore();
      doc.save().roundedRect(label.x, label.y, label.w, label.h, mm(3)).fill('#FFFFFF').restore();
      doc.save().lineWidth(1.2).strokeColor(p.accent).roundedRect(label.x + mm(2.5), label.y + mm(2.5), label.w - mm(5), label.h - mm(5), mm(2)).stroke().restore();
      doc.save().lineWidth(0.4).strokeColor(p.accent).roundedRect(label.x + mm(3.6), label.y + mm(3.6), label.w - mm(7.2), label.h - mm(7.2), mm(1.5)).stroke().restore();
      const at = ts.block(title.lines, title.style, inner, label.y + mm(5.5), 'left', p.text);
      doc.save().lineWidth(0.5).strokeColor(p.muted).strokeOpacity(0.5).moveTo(inner.x, at + mm(0.5)).lineTo(inner.x + inner.w, at + mm(0.5)).stroke().restore();
      if (subLines.length) ts.block(subLines, sub, inner, at + mm(2.5), 'left', p.muted);
      const countStyle: TextStyle = { ...ts.smallCaps(12), characterSpacing: 0, fallbacks: kit.fallbacks.body };
      ts.line(count, countStyle, inner.x + inner.w, label.y + label.h - mm(6), p.accent, inner.w / 2, 'right');
      look.ornament(doc, inner.x + 30, label.y + label.h - mm(7.5), 0.7, p);
      doc.restore();
      return;
    }
    case 'retirement_tribute': {
      // A certificate with a portrait medallion at its head.
      drawFrame(doc, 'double', t, mm(9), p.accent, 1.4);
      drawFrame(doc, 'corners', t, mm(16), p.accent, 0.8);
      const r = box.w / 2;
      const [ccx, ccy] = [box.x + r, box.y + r];
      image(doc, photo, box, (pen) => pen.circle(ccx, ccy, r));
      doc.save().lineWidth(2).strokeColor(p.accent).circle(ccx, ccy, r + 4).stroke().lineWidth(0.6).circle(ccx, ccy, r + 8).stroke().restore();
      const width = t.w - mm(64);
      ts.line('IN HONOUR OF', ts.smallCaps(10), cx, box.y + box.h + mm(14), p.accent, width);
      const top = box.y + box.h + mm(18);
      doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, top).lineTo(cx + width / 2, top).stroke().restore();
      const title = ts.fitTitle(width, 2, 30, 18);
      let at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, top + mm(3), 'center', p.text) + mm(3);
      doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, at).lineTo(cx + width / 2, at).stroke().restore();
      if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, ts.subtitle(13), width, 2), ts.subtitle(13), { x: cx - width / 2, w: width }, at + mm(4), 'center', p.muted);
      look.ornament(doc, cx, Math.min(at + mm(9), t.y + t.h - mm(48)), 0.9, p);
      // A line to sign, and how many wrote.
      doc.save().lineWidth(0.5).strokeColor(p.muted).moveTo(cx - mm(35), t.y + t.h - mm(38)).lineTo(cx + mm(35), t.y + t.h - mm(38)).stroke().restore();
      ts.line(count.toUpperCase(), ts.smallCaps(), cx, t.y + t.h - mm(32), p.muted, width);
      return;
    }
    case 'botanical_luxe': {
      // A luxe album: the photograph in a wide arched window edged in gilt; a gilt-framed plate rises into it with
      // the title in the book's serif, sprigs of leaves climbing from its corners; the count in spaced capitals below.
      const rise = mm(16);
      image(doc, photo, box, (pen) => segmentalArch(pen, box, rise));
      doc.save().lineWidth(1).strokeColor(p.accent);
      segmentalArch(doc, box, rise, 4);
      doc.stroke().lineWidth(0.4);
      segmentalArch(doc, box, rise, 7);
      doc.stroke().restore();
      const edge = box.y + box.h;
      const width = t.w - mm(76);
      const title = ts.fitTitle(width, 2, 36, 22);
      const sub = ts.subtitle(13);
      const subLines = kit.subtitle ? ts.lines(kit.subtitle, sub, width, 2) : [];
      const titleH = title.lines.length * title.style.size * title.style.leading;
      const subH = subLines.length ? mm(3) + subLines.length * sub.size * sub.leading : 0;
      const plate = { x: cx - width / 2 - mm(12), y: 0, w: width + mm(24), h: mm(20) + titleH + subH };
      plate.y = Math.min(edge - mm(20), t.y + t.h - mm(34) - plate.h);
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
      let at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, plate.y + mm(10), 'center', p.text);
      if (subLines.length) ts.block(subLines, sub, { x: cx - width / 2, w: width }, at + mm(3), 'center', p.accent);
      at = plate.y + plate.h;
      look.ornament(doc, cx, at + mm(8), 0.7, p);
      ts.line(count.toUpperCase(), { ...ts.smallCaps(9.5), fallbacks: kit.fallbacks.body }, cx, Math.min(at + mm(20), t.y + t.h - mm(14)), p.accent, width);
      return;
    }
    case 'heirloom_gallery': {
      // A museum plate: the photograph on a wide white mat with a keyline, the title beneath like a wall label.
      doc.save().rect(box.x - mm(6), box.y - mm(6), box.w + mm(12), box.h + mm(12)).fill('#FFFFFF').restore();
      doc.save().lineWidth(0.5).strokeColor(p.accent).rect(box.x - 2, box.y - 2, box.w + 4, box.h + 4).stroke().restore();
      image(doc, photo, box);
      const width = box.w;
      const title = ts.fitTitle(width, 2, 30, 18);
      const at = ts.block(title.lines, title.style, { x: box.x, w: width }, box.y + box.h + mm(16), 'left', p.text);
      if (kit.subtitle) ts.block(ts.lines(kit.subtitle, ts.subtitle(14), width, 2), ts.subtitle(14), { x: box.x, w: width }, at + mm(2), 'left', p.muted);
      look.ornament(doc, box.x + box.w - mm(16), t.y + t.h - mm(21), 0.6, p);
      ts.line(count.toUpperCase(), ts.smallCaps(), box.x, t.y + t.h - mm(20), p.muted, width / 2, 'left');
      return;
    }
    case 'editorial_noir': {
      // A magazine: the photo bleeds off every edge, the masthead over a darkened top, the cover line at the foot.
      image(doc, photo, box);
      const left = t.x + mm(14);
      const width = t.w - mm(28);
      const title = ts.fitTitle(width, 2, 60, 28);
      const titleStyle = { ...title.style, leading: 1.02 };
      // The masthead's band runs down to just below the title, the cover line's up from the foot.
      const head = t.y + mm(19) + title.lines.length * titleStyle.size * titleStyle.leading + mm(7);
      doc.save().fillOpacity(0.55).rect(all.x, all.y, all.w, head - all.y).fill(p.background).restore();
      ts.line(count.toUpperCase(), ts.smallCaps(), left, t.y + mm(12), p.text, width, 'left');
      doc.save().rect(left, t.y + mm(15), width, 2.2).fill(p.accent).restore();
      ts.block(title.lines, titleStyle, { x: left, w: width }, t.y + mm(19), 'left', p.text);
      if (kit.subtitle) {
        const s: TextStyle = { ...ts.subtitle(22), leading: 1.15 };
        const lines = ts.lines(kit.subtitle, s, width * 0.75, 3);
        const h = lines.length * s.size * s.leading;
        const foot = t.y + t.h - mm(16) - h - mm(14);
        doc.save().fillOpacity(0.55).rect(all.x, foot, all.w, all.y + all.h - foot).fill(p.background).restore();
        doc.save().rect(left, t.y + t.h - mm(16) - h - mm(6), mm(18), 3).fill(p.accent).restore();
        ts.block(lines, s, { x: left, w: width }, t.y + t.h - mm(16) - h, 'left', p.text);
      }
      return;
    }
  }
}

/** Ruled lines and a red margin rule over the whole panel, as on a journal's page. */
function ruledPaper(doc: Pen, panel: Panel, p: ThemePalette) {
  const t = panel.trim;
  const all = bled(panel);
  const rule = mm(9);
  const first = t.y + mm(27);
  doc.save().lineWidth(0.5).strokeColor(p.muted).strokeOpacity(0.3);
  for (let at = first; at < t.y + t.h - mm(10); at += rule) doc.moveTo(all.x, at).lineTo(all.x + all.w, at).stroke();
  doc.restore();
  doc.save().lineWidth(1).strokeColor(p.accent).strokeOpacity(0.75).moveTo(t.x + mm(26), all.y).lineTo(t.x + mm(26), all.y + all.h).stroke().restore();
  return { rule, first };
}

/** A strip of translucent paper tape, `w` × `h`, its top left at (x, y), turned `angle` degrees; finely striped. */
function washiTape(doc: Pen, x: number, y: number, w: number, h: number, angle: number, p: ThemePalette) {
  doc.save().rotate(angle, { origin: [x + w / 2, y + h / 2] });
  doc.save().fillOpacity(0.7).rect(x, y, w, h).fill(p.accent).restore();
  doc.save().fillOpacity(0.35);
  for (let sx = x + 3; sx < x + w - 2; sx += 7) doc.rect(sx, y, 2.5, h).fill('#FFFFFF');
  doc.restore();
  doc.restore();
}

function polkaDots(doc: Pen, area: Box, p: ThemePalette, opacity: number) {
  doc.save().fillOpacity(opacity);
  for (let row = 0, yy = area.y + mm(8); yy < area.y + area.h; row++, yy += mm(16)) {
    for (let xx = area.x + (row % 2 ? mm(16) : mm(8)); xx < area.x + area.w; xx += mm(16)) doc.circle(xx, yy, mm(2.6)).fill(row % 3 ? p.accent : p.muted);
  }
  doc.restore();
}

/**
 * A title and its subtitle as a cover sets them: a title with no subtitle that has a natural break (a colon,
 * or a dash between spaces) is split there, “Grandma Rose turns 90: a book of memories from all of us” into
 * “Grandma Rose turns 90” and “A book of memories from all of us”. Either part must keep three characters.
 */
export function splitTitle(title: string, subtitle: string): { title: string; subtitle: string } {
  if (subtitle.trim()) return { title, subtitle };
  const m = /^(.{3,}?)(?:\s*:\s+|\s+[—–-]\s+)(.{3,})$/su.exec(title.trim());
  if (!m) return { title, subtitle };
  const rest = m[2].trim();
  return { title: m[1].trim(), subtitle: rest[0].toLocaleUpperCase() + rest.slice(1) };
}

/** The cover without a photo: the theme's title page. */
function typographicCover(kit: CoverKit, panel: Panel, look: PdfLook) {
  const { doc, style } = kit;
  const p = style.palette;
  const t = panel.trim;
  const all = bled(panel);
  const ts = typesetter(kit);
  const count = countLine(kit.memoryCount);
  const subtitleStyle = ts.subtitle(15);
  const smallCaps = ts.smallCaps();
  const cx = t.x + t.w / 2;
  if (look.cover === 'journal') {
    // Lined paper with a margin rule; the title and subtitle are written on the lines.
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
      const sub: TextStyle = { ...subtitleStyle, size: 17 };
      for (const l of ts.lines(kit.subtitle, sub, width, 3)) drawLine(doc, l, left, first + rule * line++ - mm(1.2), sub, p.muted);
    }
    const countStyle: TextStyle = { ...smallCaps, characterSpacing: 0, size: 12 };
    ts.line(count, countStyle, left, first + rule * Math.max(16, line + 1) - mm(1.2), p.accent, width, 'left');
    return;
  }
  if (look.cover === 'editorial') {
    // A band of the accent colour across the top, the title set large and flush left in the lower half.
    doc.rect(all.x, all.y, all.w, t.y - all.y + mm(46)).fill(p.accent);
    const left = t.x + mm(20);
    const width = t.w - mm(40);
    ts.line(count.toUpperCase(), smallCaps, left, t.y + mm(36), p.background, width, 'left');
    const title = ts.fitTitle(width, 4, 46, 22);
    let at = ts.block(title.lines, title.style, { x: left, w: width }, t.y + mm(96), 'left', p.text);
    at += mm(5);
    look.ornament(doc, left + 45 * 0.5, at, 0.5, p);
    at += mm(8);
    if (kit.subtitle) ts.block(ts.lines(kit.subtitle, subtitleStyle, width), subtitleStyle, { x: left, w: width }, at, 'left', p.muted);
    return;
  }
  if (look.cover === 'magazine') {
    // A magazine cover: the title as a masthead across the top, rules and an issue line, the subtitle as the cover line below.
    const left = t.x + mm(14);
    const width = t.w - mm(28);
    ts.line(count.toUpperCase(), smallCaps, left, t.y + mm(14), p.muted, width, 'left');
    doc.save().rect(left, t.y + mm(17), width, 2.2).fill(p.accent).restore();
    const title = ts.fitTitle(width, 3, 64, 28);
    let at = ts.block(title.lines, { ...title.style, leading: 1.02 }, { x: left, w: width }, t.y + mm(22), 'left', p.text);
    at += mm(3);
    doc.save().lineWidth(0.6).strokeColor(p.muted).moveTo(left, at).lineTo(left + width, at).stroke().restore();
    if (kit.subtitle) {
      const line: TextStyle = { ...subtitleStyle, size: 24, leading: 1.15 };
      const lines = ts.lines(kit.subtitle, line, width * 0.7, 4);
      const h = lines.length * line.size * line.leading;
      doc.save().rect(left, t.y + t.h - mm(22) - h - mm(6), mm(18), 3).fill(p.accent).restore();
      ts.block(lines, line, { x: left, w: width }, t.y + t.h - mm(22) - h, 'left', p.text);
    }
    return;
  }
  if (look.cover === 'certificate') {
    // Like a certificate: a heavy double frame with corner stars, "in honour of", the title between rules, a line to sign.
    drawFrame(doc, 'double', t, mm(9), p.accent, 1.4);
    drawFrame(doc, 'corners', t, mm(16), p.accent, 0.8);
    const width = t.w - mm(64);
    ts.line('IN HONOUR OF', ts.smallCaps(10), cx, t.y + mm(56), p.accent, width);
    const title = ts.fitTitle(width, 3, 34, 18);
    doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, t.y + mm(64)).lineTo(cx + width / 2, t.y + mm(64)).stroke().restore();
    let at = ts.block(title.lines, title.style, { x: cx - width / 2, w: width }, t.y + mm(68), 'center', p.text) + mm(4);
    doc.save().lineWidth(0.6).strokeColor(p.accent).moveTo(cx - width / 2, at).lineTo(cx + width / 2, at).stroke().restore();
    if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, subtitleStyle, width, 3), subtitleStyle, { x: cx - width / 2, w: width }, at + mm(7), 'center', p.muted);
    look.ornament(doc, cx, Math.max(at + mm(14), t.y + mm(150)), 1.2, p);
    doc.save().lineWidth(0.5).strokeColor(p.muted).moveTo(cx - mm(35), t.y + t.h - mm(38)).lineTo(cx + mm(35), t.y + t.h - mm(38)).stroke().restore();
    ts.line(count.toUpperCase(), smallCaps, cx, t.y + t.h - mm(32), p.muted, width);
    return;
  }
  if (look.cover === 'gallery') {
    // An exhibition's title wall: the matted window in the accent colour carries the title itself, set in the
    // page's colour between two ornaments; the subtitle and the count beneath it like a museum label.
    const plate = coverPhotoBox(style.theme, panel);
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
    if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, subtitleStyle, plate.w, 2), subtitleStyle, { x: plate.x, w: plate.w }, at, 'left', p.text);
    ts.line(count.toUpperCase(), smallCaps, plate.x, Math.max(at + mm(8), t.y + t.h - mm(20)), p.muted, plate.w, 'left');
    return;
  }
  if (look.cover === 'nursery') {
    // Polka dots all over, and the title on a big rounded label.
    polkaDots(doc, all, p, 0.35);
    const label = { x: t.x + mm(22), y: t.y + mm(50), w: t.w - mm(44), h: mm(110) };
    doc.save().roundedRect(label.x, label.y, label.w, label.h, mm(14)).fill('#FFFFFF').restore();
    doc.save().lineWidth(2.4).strokeColor(p.accent).roundedRect(label.x + mm(4), label.y + mm(4), label.w - mm(8), label.h - mm(8), mm(11)).stroke().restore();
    look.ornament(doc, cx, label.y + mm(20), 1.8, p);
    const width = label.w - mm(20);
    const title = ts.fitTitle(width, 3, 46, 22);
    const at = ts.block(title.lines, title.style, { x: label.x + mm(10), w: width }, label.y + mm(34), 'center', p.accent);
    if (kit.subtitle) ts.block(ts.lines(kit.subtitle, subtitleStyle, width, 2), subtitleStyle, { x: label.x + mm(10), w: width }, at + mm(4), 'center', p.text);
    ts.line(count.toUpperCase(), smallCaps, cx, label.y + label.h - mm(9), p.muted, width);
    return;
  }
  const playful = look.cover === 'playful';
  drawFrame(doc, look.coverFrame, t, playful ? mm(11) : mm(12), p.accent, playful ? 1.2 : 0.9);
  look.ornament(doc, cx, t.y + (playful ? mm(52) : mm(58)), playful ? 2.2 : 1.25, p);
  const width = t.w - mm(56);
  const title = ts.fitTitle(width, 3, playful ? 44 : 40, 20);
  const titleHeight = title.lines.length * title.style.size * title.style.leading;
  let at = ts.block(title.lines, title.style, { x: t.x + mm(28), w: width }, t.y + mm(105) - titleHeight / 2, 'center', playful || style.theme === 'wedding_album' ? p.accent : p.text);
  if (kit.subtitle) at = ts.block(ts.lines(kit.subtitle, subtitleStyle, width, 3), subtitleStyle, { x: t.x + mm(28), w: width }, at + mm(6), 'center', p.muted);
  if (!playful) look.ornament(doc, cx, Math.max(at + mm(12), t.y + mm(150)), 0.8, p);
  ts.line(count.toUpperCase(), smallCaps, cx, t.y + t.h - mm(30), p.muted, width);
}

/** The spine's colours: the accent on a light theme, the page colour of a dark one (with the title in the accent). */
export function spineColours(p: ThemePalette): { fill: string; ink: string } {
  if (luminance(p.background) < 0.35) return { fill: p.background, ink: luminance(p.accent) > 0.3 ? p.accent : p.text };
  return { fill: p.accent, ink: luminance(p.accent) < 0.35 ? p.background : p.text };
}

/**
 * The spine, `box` its full height (bleed included), trim height `trimH` centred on it. The title runs down
 * it, read from the top (the convention for books in Latin script: turned a quarter clockwise), only when the
 * spine is wide enough to carry it; true when it does.
 */
export function drawSpine(kit: CoverKit, box: Box, trimH: number, spineMm: number): boolean {
  const { doc, style, faces, fallbacks, measure } = kit;
  const p = style.palette;
  const { fill, ink } = spineColours(p);
  if (box.w > 0) doc.save().rect(box.x, box.y, box.w, box.h).fill(fill).restore();
  if (spineMm < SPINE_TEXT_MIN_MM) return false;
  const size = Math.min(box.w * 0.5, 14);
  // The title's main part (before a natural break) runs down the spine.
  const main = splitTitle(kit.title, '').title;
  const text = (style.titleUppercase ? main.toUpperCase() : main).replace(/\s+/g, ' ');
  const styleAt = (s: number): TextStyle => ({ face: faces.title, fallbacks: fallbacks.title, size: s, leading: 1, characterSpacing: style.titleUppercase ? s * 0.06 : 0, features: LINING_FIGURES });
  let used = styleAt(size);
  let [line] = breakLines(measure, text, used, Number.MAX_SAFE_INTEGER);
  // Room for the title between the ends of the spine, which carry the ornament's colour as a small mark.
  const room = trimH - mm(40);
  if (line && line.width > room) {
    used = styleAt(Math.max(6, (size * room) / line.width));
    [line] = breakLines(measure, text, used, Number.MAX_SAFE_INTEGER);
  }
  if (!line) return false;
  const cx = box.x + box.w / 2;
  const cy = box.y + box.h / 2;
  doc.save().rotate(90, { origin: [cx, cy] });
  // Centred on the spine: the rotated line's middle (its x-height, roughly) on the spine's centre line.
  drawLine(doc, line, cx - line.width / 2, cy + used.size * 0.35, used, ink);
  doc.restore();
  // A small mark at head and foot, in the ink colour.
  const mark = Math.min(box.w * 0.22, mm(1.6));
  for (const y of [cy - trimH / 2 + mm(12), cy + trimH / 2 - mm(12)]) doc.save().circle(cx, y, mark).fill(ink).restore();
  return true;
}

const MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const MONTH_ONLY = new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' });

/** When the memories were written, as a back cover says it: "May 2026", "May – November 2026", "2019 – 2026". */
export function dateSpan(first: string, last: string): string {
  const [a, b] = [new Date(first), new Date(last)].sort((x, y) => x.getTime() - y.getTime());
  if (a.getUTCFullYear() !== b.getUTCFullYear()) return `${a.getUTCFullYear()} – ${b.getUTCFullYear()}`;
  if (a.getUTCMonth() === b.getUTCMonth()) return MONTH.format(a);
  return `${MONTH_ONLY.format(a)} – ${MONTH.format(b)}`;
}

/**
 * The back cover: the theme's colour and texture, a short memory as a quote, the ornament, when the memories
 * were written, and an area at the bottom right kept clear for the print shop's barcode.
 */
export function drawBackCover(kit: CoverKit, panel: Panel, back: BackText) {
  const { doc, style } = kit;
  const look = PDF_LOOKS[style.theme];
  const p = style.palette;
  const t = panel.trim;
  const all = bled(panel);
  const ts = typesetter(kit);
  const cx = t.x + t.w / 2;
  doc.save().rect(all.x, all.y, all.w, all.h).fill(p.background).restore();
  // The texture of the front, quietened.
  switch (look.cover) {
    case 'journal':
      ruledPaper(doc, panel, p);
      break;
    case 'nursery':
      polkaDots(doc, all, p, 0.18);
      break;
    case 'editorial':
      doc.save().rect(all.x, all.y, all.w, t.y - all.y + mm(14)).fill(p.accent).restore();
      break;
    case 'magazine':
      doc.save().rect(t.x + mm(14), t.y + mm(17), t.w - mm(28), 2.2).fill(p.accent).restore();
      break;
    case 'certificate':
      drawFrame(doc, 'double', t, mm(9), p.accent, 1.4);
      break;
    case 'gallery':
      doc.save().lineWidth(0.5).strokeColor(p.accent).moveTo(t.x + mm(24), t.y + mm(20)).lineTo(t.x + t.w - mm(24), t.y + mm(20)).stroke().restore();
      break;
    default:
      drawFrame(doc, look.coverFrame === 'none' ? 'hairline' : look.coverFrame, t, mm(12), p.accent, 0.7);
  }
  const width = t.w - mm(64);
  const align = look.align;
  const left = align === 'center' ? cx - width / 2 : t.x + mm(32);
  const journal = look.cover === 'journal';
  const quote: TextStyle = { face: kit.faces.quote, fallbacks: kit.fallbacks.quote, size: 16, leading: journal ? mm(9) / 16 : 1.4 };
  const sig: TextStyle = { face: kit.faces.body, fallbacks: kit.fallbacks.body, size: 10, leading: journal ? mm(9) / 10 : 1.4, features: LINING_FIGURES };
  const lines = back.quote ? ts.lines(`“${back.quote.text.replace(/\s+/g, ' ').trim()}”`, quote, width, 6) : [];
  const sigLines = back.quote?.signature ? ts.lines(`— ${back.quote.signature}`, sig, width, 1) : [];
  const quoteH = lines.length * quote.size * quote.leading + (sigLines.length ? mm(3) + sig.size * sig.leading : 0);
  // The block (quote, ornament, the line of dates) centred a little above the middle; a journal writes it on its lines.
  let at = t.y + t.h * 0.42 - (quoteH + mm(22)) / 2;
  if (journal) at = t.y + mm(27) + mm(9) * Math.round((at - t.y - mm(27)) / mm(9)) - mm(1.2) - baselineOffset(quote);
  if (lines.length) {
    at = ts.block(lines, quote, { x: left, w: width }, at, align, p.text);
    if (sigLines.length) at = ts.block(sigLines, sig, { x: left, w: width }, journal ? at : at + mm(3), align, p.muted);
    at += mm(10);
  }
  look.ornament(doc, align === 'center' ? cx : left + 45, at, 0.9, p);
  const small: TextStyle = { ...ts.smallCaps(9), fallbacks: kit.fallbacks.body };
  const when = back.dates ? ` · ${dateSpan(back.dates.first, back.dates.last)}` : '';
  ts.line(`${countLine(kit.memoryCount)}${when}`.toUpperCase(), small, align === 'center' ? cx : left, at + mm(12), p.muted, width, align);
  // Kept clear for the print shop's barcode (it prints its own white label there): the plain page colour, no
  // texture and nothing else, rather than an empty white box on the finished cover.
  const a = BARCODE_AREA_MM;
  doc.save().rect(t.x + t.w - mm(a.inset + a.w), t.y + t.h - mm(a.inset + a.h), mm(a.w), mm(a.h)).fill(p.background).restore();
}
