/**
 * Where a memory's photos go, by how many there are and their shapes: one
 * large (landscape across the column, portrait tall and centred), two side
 * by side at equal height, one large beside two stacked, a 2 × 2 grid, rows
 * of three. Cells share gutters and edges, so tops and sides line up; each
 * photo is then cropped to fill its cell (keeping its centre of interest).
 */

export interface Cell {
  /** Offsets from the block's top left, points. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PhotoLayout {
  cells: Cell[];
  width: number;
  height: number;
}

/**
 * @param aspects width / height of each photo, in order
 * @param width the column's width
 * @param maxHeight the most the block may take (a share of the page)
 */
export function photoLayout(aspects: number[], width: number, maxHeight: number, gap: number): PhotoLayout {
  const n = aspects.length;
  if (n === 0) return { cells: [], width: 0, height: 0 };
  const portrait = (a: number) => a < 0.9;
  const fit = (cells: Cell[]): PhotoLayout => {
    const height = Math.max(...cells.map((c) => c.y + c.h));
    if (height <= maxHeight) return { cells, width: Math.max(...cells.map((c) => c.x + c.w)), height };
    // Too tall: scale the whole block down and centre it in the column.
    const k = maxHeight / height;
    const w = Math.max(...cells.map((c) => c.x + c.w)) * k;
    const dx = (width - w) / 2;
    return { cells: cells.map((c) => ({ x: dx + c.x * k, y: c.y * k, w: c.w * k, h: c.h * k })), width: w, height: maxHeight };
  };
  if (n === 1) {
    const a = aspects[0];
    if (portrait(a)) {
      // A portrait photo stands tall in the middle of the column (4:5).
      const h = maxHeight;
      const w = Math.min(width, h * 0.8);
      return fit([{ x: (width - w) / 2, y: 0, w, h }]);
    }
    // Landscape and square: across the column, 3:2 (a square photo loses a little top and bottom).
    return fit([{ x: 0, y: 0, w: width, h: width / Math.min(Math.max(a, 1.25), 1.8) }]);
  }
  if (n === 2) {
    const w = (width - gap) / 2;
    const h = aspects.every(portrait) ? w * 1.3 : aspects.some(portrait) ? w * 1.05 : w * 0.72;
    return fit([
      { x: 0, y: 0, w, h },
      { x: w + gap, y: 0, w, h },
    ]);
  }
  if (n === 3) {
    // One large beside two stacked: the large one is the first portrait (or the first photo).
    const big = Math.max(0, aspects.findIndex(portrait));
    const bigW = (width - gap) * 0.58;
    const sideW = width - gap - bigW;
    const h = Math.min(bigW * 1.15, maxHeight);
    const side = (h - gap) / 2;
    const cells: Cell[] = [];
    let k = 0;
    for (let i = 0; i < 3; i++) {
      if (i === big) cells.push({ x: 0, y: 0, w: bigW, h });
      else cells.push({ x: bigW + gap, y: k++ * (side + gap), w: sideW, h: side });
    }
    return fit(cells);
  }
  // Four: a 2 × 2 grid; five and more: rows of three. Equal cells, aligned gutters.
  const perRow = n === 4 ? 2 : 3;
  const w = (width - gap * (perRow - 1)) / perRow;
  const h = w * (n === 4 ? 0.75 : 0.9);
  const lastRow = Math.floor((n - 1) / perRow);
  const inLast = n - lastRow * perRow;
  return fit(
    aspects.map((_, i) => {
      const row = Math.floor(i / perRow);
      // A short last row is centred under the full ones.
      const shift = row === lastRow ? ((perRow - inLast) * (w + gap)) / 2 : 0;
      return { x: shift + (i % perRow) * (w + gap), y: row * (h + gap), w, h };
    }),
  );
}
