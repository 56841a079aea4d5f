/** The spine every cover design shares: its colours, and the title running down it when the spine is wide enough. */
import type { ThemePalette } from '../../../media-tools/themes.js';
import { mm, type Box } from '../geometry.js';
import { breakLines, LINING_FIGURES, type TextStyle } from '../text-layout.js';
import { drawLine } from '../typeset.js';
import type { CoverKit } from './kit.js';
import { splitTitle } from './title.js';

/** Below this the spine carries no words (print providers ask for about 6 mm). */
export const SPINE_TEXT_MIN_MM = 6;

/** Relative luminance of a #rrggbb colour (0 black … 1 white). */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
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
export function standardSpine(kit: CoverKit, box: Box, trimH: number, spineMm: number): boolean {
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
