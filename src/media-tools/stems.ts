/**
 * How dark a face prints, read from its outlines: the width of a vertical stem where a horizontal line
 * crosses it (Latin l, the upright of 十, Hebrew vav, Arabic alef), as a share of the em. Fallback faces
 * are picked by it, so a Chinese or Hebrew word is as dark as the theme's Latin beside it: weight numbers
 * do not say that (Cormorant Garamond 600 prints lighter than Inter 400).
 */

type Command = { command: string; args: number[] };
export interface Outlined {
  unitsPerEm: number;
  glyphForCodePoint(cp: number): { id: number; bbox: { minX: number; maxX: number; minY: number; maxY: number }; path: { commands: Command[] } };
}

/** The x positions where the outline crosses the horizontal line at y (curves flattened). */
function crossings(commands: Command[], y: number): number[] {
  const xs: number[] = [];
  let [cx, cy, sx, sy] = [0, 0, 0, 0];
  const segment = (x0: number, y0: number, x1: number, y1: number) => {
    if (y0 === y1 || (y < Math.min(y0, y1)) || y >= Math.max(y0, y1)) return;
    xs.push(x0 + ((y - y0) / (y1 - y0)) * (x1 - x0));
  };
  const STEPS = 24;
  for (const { command, args } of commands) {
    if (command === 'moveTo') {
      [cx, cy, sx, sy] = [args[0], args[1], args[0], args[1]];
    } else if (command === 'lineTo') {
      segment(cx, cy, args[0], args[1]);
      [cx, cy] = [args[0], args[1]];
    } else if (command === 'quadraticCurveTo' || command === 'bezierCurveTo') {
      const pts = command === 'quadraticCurveTo' ? [[cx, cy], [args[0], args[1]], [args[2], args[3]]] : [[cx, cy], [args[0], args[1]], [args[2], args[3]], [args[4], args[5]]];
      let [px, py] = [cx, cy];
      for (let i = 1; i <= STEPS; i++) {
        const t = i / STEPS;
        // de Casteljau
        let layer = pts;
        while (layer.length > 1) layer = layer.slice(1).map((p, k) => [layer[k][0] + (p[0] - layer[k][0]) * t, layer[k][1] + (p[1] - layer[k][1]) * t]);
        segment(px, py, layer[0][0], layer[0][1]);
        [px, py] = [layer[0][0], layer[0][1]];
      }
      [cx, cy] = [args[args.length - 2], args[args.length - 1]];
    } else if (command === 'closePath') {
      segment(cx, cy, sx, sy);
      [cx, cy] = [sx, sy];
    }
  }
  return xs.sort((a, b) => a - b);
}

/**
 * The width of the first (leftmost) stroke of a glyph at `at` of its height from the bottom, as a share of
 * the em; 0 when the face lacks the glyph. The widest stroke crossed is taken when a letter is crossed more
 * than once (the down-stroke of a looped script l, the bar of Devanagari ग).
 */
export function stemOf(font: Outlined, cp: number, at = 0.5, across: 'x' | 'y' = 'x'): number {
  const glyph = font.glyphForCodePoint(cp);
  if (!glyph.id) return 0;
  const { bbox } = glyph;
  // Crossed down (a horizontal bar's thickness): the outline turned a quarter, so the same line test serves.
  const commands = across === 'x' ? glyph.path.commands : glyph.path.commands.map(({ command, args }) => ({ command, args: args.map((v, i) => args[i + (i % 2 ? -1 : 1)]) }));
  const [lo, hi] = across === 'x' ? [bbox.minY, bbox.maxY] : [bbox.minX, bbox.maxX];
  const xs = crossings(commands, lo + (hi - lo) * at);
  const widths: number[] = [];
  for (let i = 0; i + 1 < xs.length; i += 2) widths.push(xs[i + 1] - xs[i]);
  return widths.length ? Math.max(...widths) / font.unitsPerEm : 0;
}

/**
 * The letter whose main stroke stands for each script's darkness, where it is crossed and which way: the
 * Latin stem, the upright of 十 below its bar, Hebrew's heavy stroke, its roof (the top bar of ד, crossed
 * downward: Hebrew's verticals are its hairlines), Arabic's baseline stroke (tatweel, crossed downward: the
 * strokes that join its letters carry its colour, its alef is tapered), Devanagari's bar.
 */
export const STEM_LETTERS = {
  latin: [0x6c, 0.5, 'x'], // l
  han: [0x5341, 0.2, 'x'], // 十
  hebrew: [0x05d3, 0.3, 'y'], // ד
  arabic: [0x0640, 0.5, 'y'], // ـ (the baseline stroke that joins letters)
  devanagari: [0x0917, 0.3, 'x'], // ग
} as const satisfies Record<string, readonly [number, number, 'x' | 'y']>;
export type StemScript = keyof typeof STEM_LETTERS;
