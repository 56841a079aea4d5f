/**
 * A picture book's drawn pictures (a theme whose `illustrations` is set): where a run of pages of words has no
 * photo left near to break it, a page of its own carries a drawn scene in the theme's colours (a sun over hills,
 * a moon among stars, a balloon in the clouds, a boat on the waves, a house under a tree, one after another, never
 * the same twice in a row) over a line of the letter being read, set large. Flat shapes, as a picture book's
 * endpapers are drawn, so they print cleanly at any size. A scrapbook (a diary's taped prints) tapes its scene in
 * as a card, a little askew, as it does its photos.
 */
import type { ThemePalette } from '../../../media-tools/themes.js';
import type { Box } from '../geometry.js';
import type { Pen } from '../themes/ornaments.js';

/** The share of the live area's height the scene takes; the line of the letter sits in the rest. */
export const SCENE_SHARE = 0.52;

/** A colour between `a` and `b` (hex), t of the way to b. */
export function mix(a: string, b: string, t: number): string {
  const rgb = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const [x, y] = [rgb(a), rgb(b)];
  return `#${x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, '0')).join('')}`;
}

type Scene = (pen: Pen, box: Box, p: ThemePalette) => void;

/** Rolling hills across the foot of the box, two layers. */
function hills(pen: Pen, b: Box, p: ThemePalette) {
  const [foot, w] = [b.y + b.h, b.w];
  pen.save();
  pen.moveTo(b.x, foot).lineTo(b.x, foot - b.h * 0.3).bezierCurveTo(b.x + w * 0.25, foot - b.h * 0.45, b.x + w * 0.45, foot - b.h * 0.18, b.x + w * 0.7, foot - b.h * 0.3);
  pen.bezierCurveTo(b.x + w * 0.85, foot - b.h * 0.37, b.x + w * 0.95, foot - b.h * 0.33, b.x + w, foot - b.h * 0.28).lineTo(b.x + w, foot).closePath().fill(mix(p.background, p.muted, 0.35));
  pen.moveTo(b.x, foot).lineTo(b.x, foot - b.h * 0.14).bezierCurveTo(b.x + w * 0.3, foot - b.h * 0.26, b.x + w * 0.6, foot - b.h * 0.05, b.x + w, foot - b.h * 0.18).lineTo(b.x + w, foot).closePath().fill(mix(p.background, p.muted, 0.6));
  pen.restore();
}

function cloud(pen: Pen, x: number, y: number, s: number, colour: string) {
  pen.save().fillColor(colour);
  pen.circle(x, y, 11 * s).circle(x + 13 * s, y - 6 * s, 14 * s).circle(x + 28 * s, y, 11 * s).fill();
  pen.roundedRect(x - 11 * s, y - 2 * s, 50 * s, 13 * s, 6 * s).fill();
  pen.restore();
}

const sunOverHills: Scene = (pen, b, p) => {
  const [cx, cy, r] = [b.x + b.w * 0.62, b.y + b.h * 0.36, Math.min(b.w, b.h) * 0.14];
  pen.save().lineWidth(r * 0.12).lineCap('round').strokeColor(p.accent);
  for (let i = 0; i < 12; i++) {
    const a = (i / 12) * Math.PI * 2;
    pen.moveTo(cx + Math.cos(a) * r * 1.35, cy + Math.sin(a) * r * 1.35).lineTo(cx + Math.cos(a) * r * 1.75, cy + Math.sin(a) * r * 1.75).stroke();
  }
  pen.circle(cx, cy, r).fill(p.accent).restore();
  cloud(pen, b.x + b.w * 0.14, b.y + b.h * 0.22, Math.min(b.w, b.h) / 220, mix(p.background, p.muted, 0.18));
  hills(pen, b, p);
};

const moonAndStars: Scene = (pen, b, p) => {
  const [cx, cy, r] = [b.x + b.w * 0.3, b.y + b.h * 0.34, Math.min(b.w, b.h) * 0.15];
  pen.save().circle(cx, cy, r).fill(mix(p.accent, p.background, 0.25));
  pen.circle(cx + r * 0.45, cy - r * 0.25, r * 0.9).fill(p.background).restore();
  const star = (x: number, y: number, s: number) => {
    const points: [number, number][] = [];
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5;
      const rr = i % 2 ? s * 0.42 : s;
      points.push([x + Math.cos(a) * rr, y + Math.sin(a) * rr]);
    }
    pen.save().polygon(...points).fill(p.accent).restore();
  };
  const u = Math.min(b.w, b.h);
  for (const [fx, fy, fs] of [
    [0.62, 0.18, 0.05],
    [0.78, 0.34, 0.035],
    [0.55, 0.42, 0.028],
    [0.88, 0.14, 0.03],
    [0.12, 0.12, 0.025],
  ] as const)
    star(b.x + b.w * fx, b.y + b.h * fy, u * fs);
  hills(pen, b, p);
};

const balloon: Scene = (pen, b, p) => {
  const u = Math.min(b.w, b.h);
  const [cx, cy, r] = [b.x + b.w * 0.5, b.y + b.h * 0.32, u * 0.17];
  cloud(pen, b.x + b.w * 0.1, b.y + b.h * 0.5, u / 200, mix(p.background, p.muted, 0.18));
  cloud(pen, b.x + b.w * 0.72, b.y + b.h * 0.2, u / 260, mix(p.background, p.muted, 0.14));
  pen.save();
  // The envelope, in stripes of the accent and its tint.
  pen.moveTo(cx - r, cy).bezierCurveTo(cx - r, cy - r * 1.35, cx + r, cy - r * 1.35, cx + r, cy).bezierCurveTo(cx + r, cy + r * 0.6, cx + r * 0.3, cy + r * 0.95, cx + r * 0.25, cy + r * 1.15);
  pen.lineTo(cx - r * 0.25, cy + r * 1.15).bezierCurveTo(cx - r * 0.3, cy + r * 0.95, cx - r, cy + r * 0.6, cx - r, cy).fill(p.accent);
  pen.moveTo(cx - r * 0.35, cy - r * 0.98).bezierCurveTo(cx - r * 0.5, cy - r * 0.2, cx - r * 0.35, cy + r * 0.7, cx - r * 0.12, cy + r * 1.15).lineTo(cx + r * 0.12, cy + r * 1.15);
  pen.bezierCurveTo(cx + r * 0.35, cy + r * 0.7, cx + r * 0.5, cy - r * 0.2, cx + r * 0.35, cy - r * 0.98).closePath().fill(mix(p.accent, p.background, 0.45));
  // Ropes and the basket.
  pen.lineWidth(u * 0.004).strokeColor(p.text);
  pen.moveTo(cx - r * 0.25, cy + r * 1.15).lineTo(cx - r * 0.2, cy + r * 1.5).stroke();
  pen.moveTo(cx + r * 0.25, cy + r * 1.15).lineTo(cx + r * 0.2, cy + r * 1.5).stroke();
  pen.roundedRect(cx - r * 0.24, cy + r * 1.5, r * 0.48, r * 0.36, r * 0.06).fill(p.muted);
  pen.restore();
  hills(pen, { ...b, y: b.y + b.h * 0.35, h: b.h * 0.65 }, p);
};

const boat: Scene = (pen, b, p) => {
  const u = Math.min(b.w, b.h);
  const sea = b.y + b.h * 0.68;
  cloud(pen, b.x + b.w * 0.68, b.y + b.h * 0.2, u / 230, mix(p.background, p.muted, 0.16));
  pen.save().circle(b.x + b.w * 0.22, b.y + b.h * 0.25, u * 0.08).fill(mix(p.accent, p.background, 0.35));
  const [cx, w] = [b.x + b.w * 0.48, u * 0.34];
  // Sails, then the hull.
  pen.polygon([cx, sea - u * 0.44], [cx, sea - u * 0.06], [cx + w * 0.45, sea - u * 0.06]).fill(p.accent);
  pen.polygon([cx - u * 0.015, sea - u * 0.36], [cx - u * 0.015, sea - u * 0.06], [cx - w * 0.32, sea - u * 0.06]).fill(mix(p.accent, p.background, 0.45));
  pen.moveTo(cx - w * 0.55, sea - u * 0.05).lineTo(cx + w * 0.6, sea - u * 0.05).lineTo(cx + w * 0.42, sea + u * 0.03).lineTo(cx - w * 0.4, sea + u * 0.03).closePath().fill(p.muted);
  // Waves: the sea in two bands, scalloped.
  for (const [k, t] of [
    [0, 0.35],
    [1, 0.55],
  ] as const) {
    const top = sea + k * b.h * 0.1;
    const step = b.w / 8;
    pen.moveTo(b.x, b.y + b.h).lineTo(b.x, top);
    for (let i = 0; i < 8; i++) pen.quadraticCurveTo(b.x + step * (i + 0.5), top - step * 0.28, b.x + step * (i + 1), top);
    pen.lineTo(b.x + b.w, b.y + b.h).closePath().fill(mix(p.background, p.muted, t));
  }
  pen.restore();
};

const houseAndTree: Scene = (pen, b, p) => {
  const u = Math.min(b.w, b.h);
  cloud(pen, b.x + b.w * 0.12, b.y + b.h * 0.18, u / 240, mix(p.background, p.muted, 0.16));
  pen.save().circle(b.x + b.w * 0.8, b.y + b.h * 0.18, u * 0.07).fill(p.accent);
  hills(pen, b, p);
  const ground = b.y + b.h * 0.78;
  const [hx, hw] = [b.x + b.w * 0.3, u * 0.3];
  pen.rect(hx, ground - hw * 0.62, hw, hw * 0.62).fill(mix(p.background, p.accent, 0.22));
  pen.polygon([hx - hw * 0.1, ground - hw * 0.6], [hx + hw / 2, ground - hw * 1.05], [hx + hw * 1.1, ground - hw * 0.6]).fill(p.accent);
  pen.rect(hx + hw * 0.4, ground - hw * 0.32, hw * 0.2, hw * 0.32).fill(p.muted);
  pen.rect(hx + hw * 0.12, ground - hw * 0.46, hw * 0.16, hw * 0.14).fill(p.background);
  pen.rect(hx + hw * 0.72, ground - hw * 0.46, hw * 0.16, hw * 0.14).fill(p.background);
  const tx = b.x + b.w * 0.78;
  pen.rect(tx - u * 0.015, ground - u * 0.2, u * 0.03, u * 0.2).fill(p.muted);
  pen.circle(tx, ground - u * 0.26, u * 0.1).fill(mix(p.muted, p.background, 0.2));
  pen.circle(tx - u * 0.06, ground - u * 0.2, u * 0.07).fill(mix(p.muted, p.background, 0.3));
  pen.circle(tx + u * 0.06, ground - u * 0.2, u * 0.07).fill(mix(p.muted, p.background, 0.3));
  pen.restore();
};

/** The scenes, in the order a book turns to them. */
export const SCENES: readonly Scene[] = [sunOverHills, moonAndStars, balloon, boat, houseAndTree];

/**
 * Draws the book's `index`-th scene (they come round again after the last) filling `box`: in a rounded frame, or
 * (`taped`, a scrapbook's) as a white card taped in by its top corners, turned `tilt` degrees, as its prints are.
 */
export function drawScene(pen: Pen, box: Box, index: number, p: ThemePalette, taped?: { tilt: number }) {
  const scene = SCENES[index % SCENES.length];
  if (taped) {
    // A card with a print's border (wider at its foot), its shadow, and two strips of tape across its top corners.
    const inner = { x: box.x + 8, y: box.y + 8, w: box.w - 16, h: box.h - 32 };
    pen.save().rotate(taped.tilt, { origin: [box.x + box.w / 2, box.y + box.h / 2] });
    pen.save().fillOpacity(0.14).rect(box.x + 2, box.y + 3, box.w, box.h).fill('#000000').restore();
    pen.save().rect(box.x, box.y, box.w, box.h).fill('#FFFFFF').restore();
    pen.save().rect(inner.x, inner.y, inner.w, inner.h).clip();
    pen.rect(inner.x, inner.y, inner.w, inner.h).fill(mix(p.background, '#FFFFFF', 0.3));
    scene(pen, inner, p);
    pen.restore();
    for (const [tx, angle] of [
      [box.x + 4, -9],
      [box.x + box.w - 40, 8],
    ] as const)
      pen.save().rotate(angle, { origin: [tx + 18, box.y - 6] }).fillOpacity(0.45).rect(tx, box.y - 13, 38, 14).fill(p.accent).restore();
    pen.restore();
    return;
  }
  const r = Math.min(box.w, box.h) * 0.08;
  pen.save().roundedRect(box.x, box.y, box.w, box.h, r).clip();
  pen.rect(box.x, box.y, box.w, box.h).fill(mix(p.background, '#FFFFFF', 0.55));
  scene(pen, box, p);
  pen.restore();
}
