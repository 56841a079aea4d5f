/**
 * The themes' ornaments, drawn as vector paths about their centre (about 90 × 16 pt at scale 1): between
 * memories, on quote pages, on covers and at the end of the book.
 */
import type { ThemePalette } from '../../../media-tools/themes.js';

/** The drawing calls the ornaments use: a PDFKit document. */
export type Pen = PDFKit.PDFDocument;
export type Ornament = (pen: Pen, cx: number, cy: number, scale: number, p: ThemePalette) => void;

// ---- ornaments (drawn about their centre, about 90 × 16 pt at scale 1) ----

const flourish: Ornament = (pen, cx, cy, s, p) => {
  pen.save().lineWidth(0.7 * s).strokeColor(p.accent).fillColor(p.accent);
  pen.moveTo(cx - 44 * s, cy).lineTo(cx - 9 * s, cy).stroke();
  pen.moveTo(cx + 9 * s, cy).lineTo(cx + 44 * s, cy).stroke();
  pen.polygon([cx, cy - 4.5 * s], [cx + 4.5 * s, cy], [cx, cy + 4.5 * s], [cx - 4.5 * s, cy]).fill();
  pen.circle(cx - 47 * s, cy, 1.4 * s).fill();
  pen.circle(cx + 47 * s, cy, 1.4 * s).fill();
  for (const d of [-1, 1]) {
    pen
      .moveTo(cx + d * 9 * s, cy)
      .bezierCurveTo(cx + d * 14 * s, cy - 7 * s, cx + d * 22 * s, cy - 7 * s, cx + d * 24 * s, cy - 2.5 * s)
      .bezierCurveTo(cx + d * 25 * s, cy, cx + d * 21 * s, cy + 0.5 * s, cx + d * 20 * s, cy - 2 * s)
      .stroke();
  }
  pen.restore();
};

const bar: Ornament = (pen, cx, cy, s, p) => {
  pen.save().rect(cx - 16 * s, cy - 1.8 * s, 32 * s, 3.6 * s).fill(p.accent).restore();
};

const dots: Ornament = (pen, cx, cy, s, p) => {
  const colours = [p.accent, p.muted, p.accent];
  [-14, 0, 14].forEach((dx, i) => pen.save().circle(cx + dx * s, cy, (i === 1 ? 4.2 : 3.2) * s).fill(colours[i]).restore());
  pen.save().circle(cx - 26 * s, cy, 1.6 * s).fill(p.muted).circle(cx + 26 * s, cy, 1.6 * s).fill(p.muted).restore();
};

function leaf(pen: Pen, x: number, y: number, length: number, angle: number, colour: string) {
  pen.save().translate(x, y).rotate(angle, { origin: [0, 0] });
  pen.moveTo(0, 0).bezierCurveTo(length * 0.3, -length * 0.32, length * 0.75, -length * 0.28, length, 0);
  pen.bezierCurveTo(length * 0.75, length * 0.28, length * 0.3, length * 0.32, 0, 0).fill(colour);
  pen.restore();
}

const laurel: Ornament = (pen, cx, cy, s, p) => {
  pen.save().lineWidth(0.8 * s).strokeColor(p.accent);
  for (const d of [-1, 1]) {
    pen.moveTo(cx + d * 4 * s, cy + 6 * s).bezierCurveTo(cx + d * 18 * s, cy + 5 * s, cx + d * 32 * s, cy - 1 * s, cx + d * 40 * s, cy - 8 * s).stroke();
    for (let i = 0; i < 4; i++) {
      const t = 8 + i * 8.5;
      leaf(pen, cx + d * t * s, cy + (5.5 - i * 3) * s, 9 * s, d > 0 ? -55 + i * 2 : -125 - i * 2, p.accent);
      leaf(pen, cx + d * (t + 2) * s, cy + (5.5 - i * 3) * s, 7 * s, d > 0 ? 25 - i * 12 : 155 + i * 12, p.accent);
    }
  }
  pen.restore();
};

const rings: Ornament = (pen, cx, cy, s, p) => {
  pen.save().lineWidth(1.1 * s).strokeColor(p.accent);
  pen.circle(cx - 5 * s, cy, 7 * s).stroke();
  pen.circle(cx + 5 * s, cy, 7 * s).stroke();
  pen.lineWidth(0.6 * s).moveTo(cx - 44 * s, cy).lineTo(cx - 16 * s, cy).stroke().moveTo(cx + 16 * s, cy).lineTo(cx + 44 * s, cy).stroke();
  pen.restore();
};

function heart(pen: Pen, x: number, y: number, size: number, colour: string) {
  const top = y - size / 2;
  pen
    .moveTo(x, top + size * 0.3)
    .bezierCurveTo(x, top, x - size * 0.55, top, x - size * 0.55, top + size * 0.32)
    .bezierCurveTo(x - size * 0.55, top + size * 0.62, x, top + size * 0.8, x, top + size)
    .bezierCurveTo(x, top + size * 0.8, x + size * 0.55, top + size * 0.62, x + size * 0.55, top + size * 0.32)
    .bezierCurveTo(x + size * 0.55, top, x, top, x, top + size * 0.3)
    .fill(colour);
}

const hearts: Ornament = (pen, cx, cy, s, p) => {
  pen.save();
  heart(pen, cx - 16 * s, cy + 1 * s, 7 * s, p.muted);
  heart(pen, cx, cy, 10 * s, p.accent);
  heart(pen, cx + 16 * s, cy + 1 * s, 7 * s, p.muted);
  pen.restore();
};

const squiggle: Ornament = (pen, cx, cy, s, p) => {
  pen.save().lineWidth(1.6 * s).strokeColor(p.accent).lineCap('round');
  const width = 80 * s;
  pen.moveTo(cx - width / 2, cy);
  const waves = 5;
  for (let i = 0; i < waves; i++) {
    const x0 = cx - width / 2 + (i * width) / waves;
    const step = width / waves;
    pen.bezierCurveTo(x0 + step * 0.25, cy - 5 * s, x0 + step * 0.75, cy + 5 * s, x0 + step, cy);
  }
  pen.stroke().restore();
};

function starPath(pen: Pen, cx: number, cy: number, r: number) {
  const points: [number, number][] = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 ? r * 0.42 : r;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push([cx + radius * Math.cos(a), cy + radius * Math.sin(a)]);
  }
  pen.polygon(...points);
}

const star: Ornament = (pen, cx, cy, s, p) => {
  pen.save();
  starPath(pen, cx, cy, 7 * s);
  pen.fill(p.accent).lineWidth(0.6 * s).strokeColor(p.accent);
  for (const d of [-1, 1]) {
    pen.moveTo(cx + d * 12 * s, cy - 1.6 * s).lineTo(cx + d * 44 * s, cy - 1.6 * s).stroke();
    pen.moveTo(cx + d * 12 * s, cy + 1.6 * s).lineTo(cx + d * 44 * s, cy + 1.6 * s).stroke();
  }
  pen.restore();
};

const sprig: Ornament = (pen, cx, cy, s, p) => {
  pen.save().lineWidth(0.9 * s).strokeColor(p.accent);
  pen.moveTo(cx - 42 * s, cy + 2 * s).bezierCurveTo(cx - 15 * s, cy - 4 * s, cx + 15 * s, cy + 4 * s, cx + 42 * s, cy - 2 * s).stroke();
  for (let i = 0; i < 7; i++) {
    const x = cx + (-33 + i * 11) * s;
    const y = cy + (i % 2 ? 1 : -1) * 0.8 * s;
    leaf(pen, x, y, 10 * s, i % 2 ? 35 : -35, p.accent);
  }
  pen.circle(cx + 44 * s, cy - 2 * s, 1.8 * s).fill(p.accent);
  pen.restore();
};

/** A leaf of a botanical drawing: filled in the ink, its midrib drawn in the page's colour. */
function veinedLeaf(pen: Pen, x: number, y: number, length: number, angle: number, ink: string, paper: string) {
  leaf(pen, x, y, length, angle, ink);
  pen.save().translate(x, y).rotate(angle, { origin: [0, 0] });
  pen.lineWidth(Math.max(0.25, length * 0.045)).strokeColor(paper).moveTo(length * 0.1, 0).lineTo(length * 0.82, 0).stroke();
  pen.restore();
}

/**
 * A frond, as a botanical plate draws one: a stem curving gently from (x, y) `length` long, at `angle` degrees
 * (0: to the right, clockwise on the page), veined leaves alternating along it and smaller towards its tip, a bud
 * at its end. botanical_luxe's family of marks is made of it: the ornament between memories and on quote pages,
 * and the spray in the outer corners of its pages.
 */
export function frond(pen: Pen, x: number, y: number, length: number, angle: number, p: ThemePalette, leaves = 7) {
  const bow = -length * 0.1;
  pen.save().translate(x, y).rotate(angle, { origin: [0, 0] });
  pen.lineWidth(Math.max(0.45, length * 0.012)).strokeColor(p.accent).lineCap('round');
  pen.moveTo(0, 0).quadraticCurveTo(length / 2, bow, length, 0).stroke();
  for (let i = 0; i < leaves; i++) {
    const t = 0.14 + (i * 0.8) / leaves;
    // The point t of the way along the stem, and its leaf leaning towards the tip, on one side then the other.
    const [px, py] = [length * t, 2 * (1 - t) * t * bow];
    const side = i % 2 ? 1 : -1;
    veinedLeaf(pen, px, py, length * 0.24 * (1 - t * 0.55), side * 38, p.accent, p.background);
  }
  veinedLeaf(pen, length, 0, length * 0.12, 0, p.accent, p.background);
  pen.restore();
}

/** botanical_luxe's mark: two fronds growing out from a small five-petalled flower. */
const botanical: Ornament = (pen, cx, cy, s, p) => {
  frond(pen, cx - 6 * s, cy, 40 * s, 180, p, 6);
  frond(pen, cx + 6 * s, cy, 40 * s, 0, p, 6);
  pen.save();
  for (let k = 0; k < 5; k++) leaf(pen, cx, cy, 6.5 * s, -90 + k * 72, p.accent);
  pen.circle(cx, cy, 1.5 * s).fill(p.background);
  pen.restore();
};

const diamonds: Ornament = (pen, cx, cy, s, p) => {
  pen.save().lineWidth(0.7 * s).strokeColor(p.accent);
  const d = (x: number, r: number, fill: boolean) => {
    pen.polygon([x, cy - r], [x + r, cy], [x, cy + r], [x - r, cy]);
    if (fill) pen.fill(p.accent);
    else pen.stroke();
  };
  d(cx, 4.5 * s, true);
  d(cx - 11 * s, 3 * s, false);
  d(cx + 11 * s, 3 * s, false);
  pen.moveTo(cx - 44 * s, cy).lineTo(cx - 17 * s, cy).stroke().moveTo(cx + 17 * s, cy).lineTo(cx + 44 * s, cy).stroke();
  pen.restore();
};

const rule: Ornament = (pen, cx, cy, s, p) => {
  pen.save().rect(cx - 3.5 * s, cy - 3.5 * s, 7 * s, 7 * s).fill(p.accent);
  pen.lineWidth(0.6 * s).strokeColor(p.muted).moveTo(cx - 40 * s, cy).lineTo(cx - 8 * s, cy).stroke().moveTo(cx + 8 * s, cy).lineTo(cx + 40 * s, cy).stroke();
  pen.restore();
};

export const ORNAMENTS = { flourish, bar, dots, laurel, rings, hearts, squiggle, star, sprig, botanical, diamonds, rule } as const;

/** Half an ornament's width at scale 1, points (about 45 for those not listed): to set one flush with a text's edge. */
const HALF_WIDTHS = new Map<Ornament, number>([
  [bar, 16],
  [rule, 40],
]);
export const ornamentHalfWidth = (o: Ornament): number => HALF_WIDTHS.get(o) ?? 45;
