/**
 * How each export theme lays out a printed book, on top of its palette and
 * typefaces (media-tools/themes.ts, shared with the share cards):
 * text alignment and size, the quote mark, page and cover frames, how photos
 * are mounted, and the theme's ornament, drawn as vector paths.
 */
import type { Theme, ThemePalette } from '../../media-tools/themes.js';
import type { MarginsMm } from './geometry.js';

/** The drawing calls the ornaments use: a PDFKit document. */
export type Pen = PDFKit.PDFDocument;

export type Frame = 'none' | 'hairline' | 'double' | 'corners' | 'rounded';
export type Mount = 'plain' | 'border' | 'polaroid' | 'rounded' | 'mat' | 'tape';
export type Ornament = (pen: Pen, cx: number, cy: number, scale: number, p: ThemePalette) => void;

export interface PdfLook {
  /** The page grid: margins inside the trim (the gutter is added to the inner one, which is never under 18 mm, clear of the binding). */
  margins: MarginsMm;
  /** Size of a long memory's text face (the body face, upright), points, and its leading. */
  longSize: number;
  longLeading: number;
  /**
   * A long memory's measure in one column, in characters of its text face (a book typographer keeps 45–75):
   * narrower than the text area, the column is centred in it.
   */
  longMeasure: number;
  /** Size of the signature line; set in spaced capitals when `captionCaps`. */
  captionSize: number;
  captionCaps: boolean;
  /** The most of a page a memory's photos take (photo-led themes take more). */
  photoShare: number;
  /** Each memory opens with its date as a heading (a journal's dated entries), rather than the date after the name. */
  datedEntries: boolean;
  /** The ornament drawn in the page's corners as well as between memories. */
  cornerOrnament: boolean;
  /** Long memories set in one column or two (a magazine's). */
  longColumns: 1 | 2;
  /** A memory with one sharp photo gets a plate (then three matted prints before the next): the photo alone on a page, bled off every edge, its words following. */
  fullBleed: boolean;
  /** Each memory sits on a rounded white card (a baby book's pasted-in notes). */
  cards: boolean;
  /** Size of a memory's words, points (pinned memories are set a little larger). */
  quoteSize: number;
  leading: number;
  align: 'left' | 'center';
  /** An opening quote mark above the words, an accent bar beside them, or nothing. */
  quoteMark: 'glyph' | 'bar' | 'none';
  cover: 'classic' | 'editorial' | 'magazine' | 'playful' | 'journal' | 'certificate' | 'gallery' | 'nursery';
  coverFrame: Frame;
  pageFrame: Frame;
  mount: Mount;
  ornament: Ornament;
  /** Page numbers as `12`, `— 12 —` or in a small disc. */
  folio: 'plain' | 'dashes' | 'disc';
}

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

export const ORNAMENTS = { flourish, bar, dots, laurel, rings, hearts, squiggle, star, sprig, diamonds, rule } as const;

const base = { longSize: 10.5, longLeading: 1.5, longMeasure: 66, captionSize: 9.5, captionCaps: false, photoShare: 0.72, datedEntries: false, cornerOrnament: false, cards: false, fullBleed: false, longColumns: 1 as const };

export const PDF_LOOKS: Readonly<Record<Theme, PdfLook>> = Object.freeze({
  // A classic keepsake: generous even margins, centred italic display type, a bordered photo, a double-framed cover.
  elegant_classic: { ...base, margins: { top: 24, bottom: 28, inner: 22, outer: 22 }, photoShare: 0.6, quoteSize: 12.5, leading: 1.55, align: 'center', quoteMark: 'glyph', cover: 'classic', coverFrame: 'double', pageFrame: 'none', mount: 'border', ornament: flourish, folio: 'dashes' },
  // Swiss grid: a narrow text column on the binding side, a wide empty outer margin, small sans type with an accent bar.
  modern_clean: { ...base, margins: { top: 20, bottom: 24, inner: 18, outer: 50 }, longSize: 9.5, longLeading: 1.55, captionSize: 8.5, captionCaps: true, quoteSize: 11, leading: 1.6, align: 'left', quoteMark: 'bar', cover: 'editorial', coverFrame: 'none', pageFrame: 'none', mount: 'plain', ornament: bar, folio: 'plain' },
  // A picture book: large rounded type, centred, photos as polaroids.
  storybook: { ...base, margins: { top: 22, bottom: 26, inner: 23, outer: 23 }, longSize: 11.5, photoShare: 0.6, quoteSize: 13.5, leading: 1.45, align: 'center', quoteMark: 'glyph', cover: 'playful', coverFrame: 'rounded', pageFrame: 'none', mount: 'polaroid', ornament: dots, folio: 'disc' },
  memorial_service: { ...base, margins: { top: 26, bottom: 30, inner: 24, outer: 24 }, longSize: 11.5, photoShare: 0.6, quoteSize: 13.5, leading: 1.45, align: 'center', quoteMark: 'none', cover: 'classic', coverFrame: 'hairline', pageFrame: 'hairline', mount: 'border', ornament: laurel, folio: 'dashes' },
  wedding_album: { ...base, margins: { top: 24, bottom: 28, inner: 20, outer: 20 }, longSize: 11.5, photoShare: 0.7, quoteSize: 13.5, leading: 1.45, align: 'center', quoteMark: 'glyph', cover: 'classic', coverFrame: 'corners', pageFrame: 'corners', mount: 'mat', ornament: rings, folio: 'dashes' },
  // A baby's first year: tight margins, big friendly type set flush left, photos in rounded frames, a polka-dot cover.
  baby_first_year: { ...base, margins: { top: 16, bottom: 22, inner: 18, outer: 12 }, longSize: 12.5, longLeading: 1.45, captionSize: 11, photoShare: 0.8, quoteSize: 17, leading: 1.35, align: 'left', quoteMark: 'glyph', cards: true, cover: 'nursery', coverFrame: 'rounded', pageFrame: 'none', mount: 'rounded', ornament: hearts, folio: 'disc' },
  // A journal: dated entries written on the page, a wide ruled margin on the binding side, taped-in photos.
  daily_journal: { ...base, margins: { top: 20, bottom: 24, inner: 30, outer: 16 }, longSize: 13, longLeading: 1.4, captionSize: 11, datedEntries: true, quoteSize: 15, leading: 1.35, align: 'left', quoteMark: 'none', cover: 'journal', coverFrame: 'none', pageFrame: 'none', mount: 'tape', ornament: squiggle, folio: 'plain' },
  // A tribute: a certificate-like title page, framed pages, names in spaced sans capitals.
  retirement_tribute: { ...base, margins: { top: 28, bottom: 32, inner: 26, outer: 26 }, captionSize: 8.5, captionCaps: true, photoShare: 0.58, quoteSize: 12, leading: 1.6, align: 'center', quoteMark: 'glyph', cover: 'certificate', coverFrame: 'double', pageFrame: 'double', mount: 'border', ornament: star, folio: 'dashes' },
  // Botanical: very wide margins, text flush left, sprigs in the page corners.
  botanical_luxe: { ...base, margins: { top: 32, bottom: 34, inner: 34, outer: 34 }, longSize: 11, photoShare: 0.62, quoteSize: 12, leading: 1.6, align: 'left', quoteMark: 'none', cover: 'classic', coverFrame: 'corners', pageFrame: 'none', mount: 'border', ornament: sprig, folio: 'dashes', cornerOrnament: true },
  // A gallery: photos lead, nearly to the trim, on a museum mat, or bled off the page as plates; words below them like wall labels.
  heirloom_gallery: { ...base, fullBleed: true, margins: { top: 13, bottom: 20, inner: 18, outer: 11 }, captionSize: 8.5, captionCaps: true, photoShare: 0.88, quoteSize: 11.5, leading: 1.5, align: 'left', quoteMark: 'none', cover: 'gallery', coverFrame: 'double', pageFrame: 'none', mount: 'mat', ornament: diamonds, folio: 'plain' },
  // A magazine: narrow margins, large display type flush left with a red bar, photos big and unmounted.
  editorial_noir: { ...base, margins: { top: 16, bottom: 20, inner: 18, outer: 13 }, captionSize: 9, captionCaps: true, longColumns: 2, photoShare: 0.8, quoteSize: 18, leading: 1.28, align: 'left', quoteMark: 'bar', cover: 'magazine', coverFrame: 'none', pageFrame: 'none', mount: 'plain', ornament: rule, folio: 'plain' },
} satisfies Record<Theme, PdfLook>);

/** Space a mount takes around a picture: [top, right, bottom, left], points. */
export function mountPadding(mount: Mount): [number, number, number, number] {
  switch (mount) {
    case 'border':
      return [5, 5, 5, 5];
    case 'polaroid':
    case 'tape':
      return [8, 8, 24, 8];
    case 'mat':
      return [12, 12, 12, 12];
    default:
      return [0, 0, 0, 0];
  }
}

/** Draws a frame of the given kind inset into a box. */
export function drawFrame(pen: Pen, kind: Frame, box: { x: number; y: number; w: number; h: number }, inset: number, colour: string, weight = 0.7) {
  const x = box.x + inset;
  const y = box.y + inset;
  const w = box.w - 2 * inset;
  const h = box.h - 2 * inset;
  pen.save().strokeColor(colour).lineWidth(weight);
  switch (kind) {
    case 'hairline':
      pen.rect(x, y, w, h).stroke();
      break;
    case 'double':
      pen.lineWidth(weight * 1.8).rect(x, y, w, h).stroke();
      pen.lineWidth(weight * 0.6).rect(x + 5, y + 5, w - 10, h - 10).stroke();
      break;
    case 'rounded':
      pen.lineWidth(weight * 2.2).roundedRect(x, y, w, h, 22).stroke();
      break;
    case 'corners': {
      const l = Math.min(w, h) * 0.12;
      for (const [cx, cy, dx, dy] of [
        [x, y, 1, 1],
        [x + w, y, -1, 1],
        [x, y + h, 1, -1],
        [x + w, y + h, -1, -1],
      ] as const) {
        pen.moveTo(cx, cy + dy * l).lineTo(cx, cy).lineTo(cx + dx * l, cy).stroke();
        pen.moveTo(cx + dx * 5, cy + dy * (l * 0.6)).lineTo(cx + dx * 5, cy + dy * 5).lineTo(cx + dx * (l * 0.6), cy + dy * 5).stroke();
        pen.circle(cx + dx * 9, cy + dy * 9, 1.3).fill(colour);
      }
      break;
    }
    default:
      break;
  }
  pen.restore();
}
