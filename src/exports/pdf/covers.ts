/**
 * Each theme's cover, drawn the same way on the first page of the book and on the front of a printed book's
 * cover wrap, with the spine and back of the wrap in the same colours. The designs live in covers/, one file
 * each, chosen by the theme's `cover`; this module lays the panel's background and picks the design.
 */
import type { Theme } from '../../media-tools/themes.js';
import { mm, type Box } from './geometry.js';
import { PDF_LOOKS, type PdfLook } from './pdf-themes.js';
import type { PreparedPicture } from './pictures.js';
import { LINING_FIGURES, type TextStyle } from './text-layout.js';
import { baselineOffset } from './typeset.js';
import { certificateCover } from './covers/certificate.js';
import { classicCover } from './covers/classic.js';
import type { CoverDesign } from './covers/design.js';
import { editorialCover } from './covers/editorial.js';
import { galleryCover } from './covers/gallery.js';
import { journalCover } from './covers/journal.js';
import { bled, countLine, typesetter, type CoverKit, type Panel } from './covers/kit.js';
import { magazineCover } from './covers/magazine.js';
import { nurseryCover } from './covers/nursery.js';
import { playfulCover } from './covers/playful.js';
import { splitTitle } from './covers/title.js';

export type { CoverKit, Panel } from './covers/kit.js';
export { luminance, spineColours, SPINE_TEXT_MIN_MM } from './covers/spine.js';
export { splitTitle } from './covers/title.js';

/** What the back cover says: a short memory, and when the book's memories were written. */
export interface BackText {
  quote: { text: string; signature: string | null } | null;
  dates: { first: string; last: string } | null;
  /** Who wrote the memories, in the order they first appear in the book. */
  contributors?: string[];
}

/** The area a print shop puts its barcode in, at the back's bottom right: width × height, mm, and its inset from the trim. */
export const BARCODE_AREA_MM = { w: 50, h: 30, inset: 14 } as const;

const DESIGNS: Record<PdfLook['cover'], CoverDesign> = {
  classic: classicCover,
  editorial: editorialCover,
  magazine: magazineCover,
  playful: playfulCover,
  journal: journalCover,
  certificate: certificateCover,
  gallery: galleryCover,
  nursery: nurseryCover,
};

const designOf = (theme: Theme): { design: CoverDesign; look: PdfLook } => {
  const look = PDF_LOOKS[theme];
  return { design: DESIGNS[look.cover], look };
};

/**
 * Where the theme's front cover puts its photo (the crop box the picture is prepared for).
 * Every theme has one: the cover photo is the book's, whichever theme it is printed in.
 */
export function coverPhotoBox(theme: Theme, panel: Panel): Box {
  return designOf(theme).design.photoBox(theme, panel);
}

/**
 * The theme's front cover on `panel`. `photo` was prepared for coverPhotoBox(theme, panel); without one
 * the cover is typographic: the theme's title page.
 */
export function drawFrontCover(kit: CoverKit, panel: Panel, photo: PreparedPicture | null) {
  // A title with a natural break and no subtitle is set as the two.
  kit = { ...kit, ...splitTitle(kit.title, kit.subtitle) };
  const { design, look } = designOf(kit.style.theme);
  const all = bled(panel);
  kit.doc.save().rect(all.x, all.y, all.w, all.h).fill(kit.style.palette.background).restore();
  if (photo) design.front(kit, panel, photo, look);
  else design.titlePage(kit, panel, look);
}

/**
 * The spine, `box` its full height (bleed included), trim height `trimH` centred on it, the title running
 * down it when the spine is wide enough to carry it; true when it does.
 */
export function drawSpine(kit: CoverKit, box: Box, trimH: number, spineMm: number): boolean {
  return designOf(kit.style.theme).design.spine(kit, box, trimH, spineMm);
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

/** The back's line of who the book is from: "With love from Rose" or "With love from 3 people: Rose, Sam and Ana". */
export function fromLine(names: string[], shown = names.length): string {
  if (names.length === 1) return `With love from ${names[0]}`;
  const listed = names.slice(0, shown);
  const rest = names.length - listed.length;
  const list = rest ? `${listed.join(', ')} and ${rest} more` : `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}`;
  return `With love from ${names.length} people: ${list}`;
}

/**
 * The back cover: the theme's colour and texture, a short memory as a quote, the ornament, when the memories
 * were written, and an area at the bottom right kept clear for the print shop's barcode.
 */
export function drawBackCover(kit: CoverKit, panel: Panel, back: BackText) {
  const { doc, style } = kit;
  const { design, look } = designOf(style.theme);
  const [p, t, all, ts] = [style.palette, panel.trim, bled(panel), typesetter(kit)];
  const cx = t.x + t.w / 2;
  doc.save().rect(all.x, all.y, all.w, all.h).fill(p.background).restore();
  // The texture of the front, quietened.
  design.backTexture(kit, panel, look);
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
  ts.line(`${kit.words?.memories(kit.memoryCount) ?? countLine(kit.memoryCount)}${when}`.toUpperCase(), small, align === 'center' ? cx : left, at + mm(12), p.muted, width, align);
  if (back.contributors?.length) {
    // Who the book is from, as its ending says it: "With love from 14 people", then as many names as three lines hold.
    const love: TextStyle = { face: kit.faces.body, fallbacks: kit.fallbacks.body, size: 10, leading: journal ? mm(9) / 10 : 1.45, features: LINING_FIGURES };
    const names = back.contributors;
    const from$ = kit.words?.fromLine ?? fromLine;
    const fits = (n: number) => ts.lines(from$(names, n), love, width).length <= 3;
    // (More names, more lines: the most three lines hold found by halving, not one name at a time, which set a
    // book of a thousand contributors' names a thousand times over.)
    let shown = names.length;
    if (!fits(shown)) {
      let [lo, hi] = [1, shown - 1];
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (fits(mid)) lo = mid;
        else hi = mid - 1;
      }
      shown = lo;
    }
    const from = ts.lines(from$(names, shown), love, width, 3);
    ts.block(from, love, { x: left, w: width }, at + mm(18), align, p.muted);
  }
  // Kept clear for the print shop's barcode (it prints its own white label there): the plain page colour, no
  // texture and nothing else, rather than an empty white box on the finished cover.
  const a = BARCODE_AREA_MM;
  doc.save().rect(t.x + t.w - mm(a.inset + a.w), t.y + t.h - mm(a.inset + a.h), mm(a.w), mm(a.h)).fill(p.background).restore();
}
