/**
 * Reading a rendered PDF back, for tests: its fonts (embedded file, ToUnicode
 * map) and which characters each draws with a real glyph. Not used by the
 * service.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';

export interface EmbeddedFont {
  ref: string;
  name: string;
  kind: 'TrueType' | 'CFF' | 'other';
  /** Code point → the glyph ids (in the embedded font) that the ToUnicode map says draw it. */
  drawn: Map<number, number[]>;
  /** Glyph id → the text the ToUnicode map gives it. */
  unicode: Map<number, string>;
  /** Whether a glyph of the embedded file has an outline (TrueType only; CFF glyphs count when not .notdef). */
  hasOutline(gid: number): boolean;
}

const require = createRequire(import.meta.url);

/** One parse per file and purpose: the read-back helpers below share it (none of them changes the document). */
const parsed = new WeakMap<Uint8Array, Promise<PDFDocument>>();
function load(bytes: Uint8Array): Promise<PDFDocument> {
  let pdf = parsed.get(bytes);
  if (!pdf) {
    pdf = PDFDocument.load(bytes, { updateMetadata: false });
    parsed.set(bytes, pdf);
  }
  return pdf;
}
const fontsOf = new WeakMap<Uint8Array, Promise<EmbeddedFont[]>>();

function parseToUnicode(cmap: string, unicode = new Map<number, string>()): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const add = (gid: number, spaced: string) => {
    // PDF hex strings may hold white space (PDFKit separates the code units of a ligature with it).
    const hex = spaced.replace(/\s+/g, '');
    if (!hex) return;
    const units = hex.match(/.{4}/g)!.map((h) => parseInt(h, 16));
    unicode.set(gid, String.fromCharCode(...units));
    for (const ch of String.fromCharCode(...units)) {
      const cp = ch.codePointAt(0)!;
      out.set(cp, [...(out.get(cp) ?? []), gid]);
    }
  };
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F\s]+)>/g)) add(parseInt(m[1], 16), m[2]);
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F\s]+>)/g)) {
      const lo = parseInt(m[1], 16);
      const hi = parseInt(m[2], 16);
      if (m[3].startsWith('[')) {
        [...m[3].matchAll(/<([0-9a-fA-F\s]*)>/g)].forEach((d, i) => add(lo + i, d[1]));
      } else {
        const base = parseInt(m[3].slice(1, -1).replace(/\s+/g, ''), 16);
        for (let g = lo; g <= hi; g++) add(g, (base + g - lo).toString(16).padStart(4, '0'));
      }
    }
  }
  return out;
}

export function embeddedFonts(bytes: Uint8Array): Promise<EmbeddedFont[]> {
  let fonts = fontsOf.get(bytes);
  if (!fonts) {
    fonts = readEmbeddedFonts(bytes);
    fontsOf.set(bytes, fonts);
  }
  return fonts;
}

async function readEmbeddedFonts(bytes: Uint8Array): Promise<EmbeddedFont[]> {
  const pdf = await load(bytes);
  const ctx = pdf.context;
  const deref = <T>(o: unknown): T => (o instanceof PDFRef ? ctx.lookup(o) : o) as T;
  const fonts: EmbeddedFont[] = [];
  const fontkit = require('fontkit') as { create(b: Buffer): { getGlyph(id: number): { path: { commands: unknown[] } } } };
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFDict) || obj.get(PDFName.of('Type')) !== PDFName.of('Font') || obj.get(PDFName.of('Subtype')) !== PDFName.of('Type0')) continue;
    const toUnicode = deref<PDFRawStream>(obj.get(PDFName.of('ToUnicode')));
    const descendant = deref<PDFDict>(deref<PDFArray>(obj.get(PDFName.of('DescendantFonts'))).get(0));
    const descriptor = deref<PDFDict>(descendant.get(PDFName.of('FontDescriptor')));
    const ttf = deref<PDFRawStream | undefined>(descriptor.get(PDFName.of('FontFile2')));
    const cff = deref<PDFRawStream | undefined>(descriptor.get(PDFName.of('FontFile3')));
    const unicode = new Map<number, string>();
    const drawn = parseToUnicode(Buffer.from(decodePDFRawStream(toUnicode).decode()).toString('latin1'), unicode);
    let hasOutline: (gid: number) => boolean = (gid) => gid > 0;
    if (ttf) {
      const font = fontkit.create(Buffer.from(decodePDFRawStream(ttf).decode()));
      const known = new Map<number, boolean>();
      hasOutline = (gid) => {
        let yes = known.get(gid);
        if (yes === undefined) known.set(gid, (yes = gid > 0 && font.getGlyph(gid).path.commands.length > 0));
        return yes;
      };
    }
    fonts.push({ ref: ref.toString(), name: String(obj.get(PDFName.of('BaseFont'))).replace(/^\/([A-Z]{6}\+)?/, ''), kind: ttf ? 'TrueType' : cff ? 'CFF' : 'other', drawn, unicode, hasOutline });
  }
  return fonts;
}

/** Code points some embedded font draws with a real glyph (never .notdef). */
export function drawnCodePoints(fonts: EmbeddedFont[]): Set<number> {
  const out = new Set<number>();
  for (const f of fonts) for (const [cp, gids] of f.drawn) if (gids.some((g) => f.hasOutline(g))) out.add(cp);
  return out;
}

/** Each font's glyph ids drawn on the pages (read from the content streams' Tj/TJ strings), keyed by font object ref. */
export async function drawnGlyphs(bytes: Uint8Array): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  for (const page of await drawnGlyphsByPage(bytes)) {
    for (const [font, gids] of page) {
      const set = out.get(font) ?? new Set<number>();
      gids.forEach((g) => set.add(g));
      out.set(font, set);
    }
  }
  return out;
}

/** drawnGlyphs, page by page (index 0 is page 1). */
export async function drawnGlyphsByPage(bytes: Uint8Array): Promise<Map<string, Set<number>>[]> {
  const pdf = await load(bytes);
  const ctx = pdf.context;
  const pages: Map<string, Set<number>>[] = [];
  for (const page of pdf.getPages()) {
    const out = new Map<string, Set<number>>();
    pages.push(out);
    const resources = page.node.Resources();
    const fontDict = resources?.lookup(PDFName.of('Font'));
    const names = new Map<string, string>();
    if (fontDict instanceof PDFDict) for (const [k, v] of fontDict.entries()) names.set(k.asString(), v.toString());
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => ctx.lookup(r)) : [contents];
    let text = '';
    for (const st of streams) if (st instanceof PDFRawStream) text += Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') + '\n';
    // Literal strings (ActualText of marked content) may hold any byte: out of the way before reading operators.
    text = text.replace(/\((?:\\[\s\S]|[^\\)])*\)/g, '()');
    let font = '';
    for (const m of text.matchAll(/(\/[^\s/]+)\s+[\d.]+\s+Tf|(\[[^\]]*\]\s*TJ|<[0-9a-fA-F]*>\s*Tj)/g)) {
      if (m[1]) {
        font = names.get(m[1]) ?? '';
        continue;
      }
      const set = out.get(font) ?? new Set<number>();
      for (const h of m[2].matchAll(/<([0-9a-fA-F]*)>/g)) for (const g of h[1].match(/.{4}/g) ?? []) set.add(parseInt(g, 16));
      out.set(font, set);
    }
  }
  return pages;
}

/**
 * Page by page, the characters drawn with a real glyph (an outline, or a space) and the fonts that
 * draw each: the glyphs of the page's content streams read through their font's ToUnicode map.
 */
export async function charactersByPage(bytes: Uint8Array): Promise<Map<number, Set<string>>[]> {
  const fonts = new Map((await embeddedFonts(bytes)).map((f) => [f.ref, f]));
  const byGlyph = new Map<string, Map<number, number[]>>();
  for (const f of fonts.values()) {
    const inverse = new Map<number, number[]>();
    for (const [cp, gids] of f.drawn) for (const g of gids) inverse.set(g, [...(inverse.get(g) ?? []), cp]);
    byGlyph.set(f.ref, inverse);
  }
  return (await drawnGlyphsByPage(bytes)).map((page) => {
    const out = new Map<number, Set<string>>();
    for (const [ref, gids] of page) {
      const f = fonts.get(ref);
      if (!f) continue;
      for (const g of gids) {
        const cps = byGlyph.get(ref)?.get(g) ?? [];
        const real = f.hasOutline(g) || cps.every((cp) => /\s/u.test(String.fromCodePoint(cp)));
        if (!real) continue;
        for (const cp of cps) out.set(cp, (out.get(cp) ?? new Set()).add(f.name));
      }
    }
    return out;
  });
}

/**
 * The PDF without the ActualText of its marked content: text tools then read each glyph where it is
 * (poppler puts a span's ActualText at a point, not over its glyphs), through the ToUnicode maps.
 */
export async function withoutActualText(bytes: Uint8Array): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const ctx = pdf.context;
  for (const page of pdf.getPages()) {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => ctx.lookup(r)) : [contents];
    let text = '';
    for (const st of streams) if (st instanceof PDFRawStream) text += Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') + '\n';
    text = text.replace(/\/ActualText\s*(\((?:\\[\s\S]|[^\\)])*\)|<[0-9a-fA-F\s]*>)/g, '');
    page.node.set(PDFName.of('Contents'), ctx.register(ctx.flateStream(Buffer.from(text, 'latin1'))));
  }
  return pdf.save({ useObjectStreams: false });
}

/** Glyphs drawn that are .notdef or have no outline (white space aside), per font: what prints as a box or nothing. */
export async function blankGlyphs(bytes: Uint8Array): Promise<string[]> {
  const fonts = new Map((await embeddedFonts(bytes)).map((f) => [f.ref, f]));
  const problems: string[] = [];
  for (const [ref, gids] of await drawnGlyphs(bytes)) {
    const f = fonts.get(ref);
    if (!f) continue;
    const blankOk = new Set<number>();
    for (const [cp, ids] of f.drawn) if (/\s/u.test(String.fromCodePoint(cp))) ids.forEach((g) => blankOk.add(g));
    // A shaper's placeholder: an empty glyph left where a cluster with a mark (a Devanagari reph, say) was
    // merged into the glyph beside it, which draws it.
    for (const [g, text] of f.unicode) if (/\p{M}/u.test(text) && text.length > 1) blankOk.add(g);
    for (const g of gids) {
      if (g === 0) problems.push(`${f.name}: .notdef`);
      else if (!blankOk.has(g) && !f.hasOutline(g)) problems.push(`${f.name}: glyph ${g} has no outline`);
    }
  }
  return problems;
}

/**
 * Each page's text in the order it is drawn: a marked-content span's ActualText where it has one
 * (the words as written, for runs that were shaped or reordered), otherwise the glyphs read through
 * their font's ToUnicode map. Independent of any viewer's guess at reading order.
 */
export async function textInDrawingOrder(bytes: Uint8Array): Promise<string[]> {
  const fonts = new Map((await embeddedFonts(bytes)).map((f) => [f.ref, f]));
  const pdf = await load(bytes);
  const ctx = pdf.context;
  return pdf.getPages().map((page) => {
    const fontDict = page.node.Resources()?.lookup(PDFName.of('Font'));
    const names = new Map<string, string>();
    if (fontDict instanceof PDFDict) for (const [k, v] of fontDict.entries()) names.set(k.asString(), v.toString());
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => ctx.lookup(r)) : [contents];
    let content = '';
    for (const st of streams) if (st instanceof PDFRawStream) content += Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') + '\n';
    let out = '';
    let font: EmbeddedFont | undefined;
    let depth = 0;
    let actualDepth = 0;
    const ops = /\/ActualText\s*\(((?:\\[\s\S]|[^\\)])*)\)\s*>>\s*BDC|\(((?:\\[\s\S]|[^\\)])*)\)|\bBDC\b|\bBMC\b|\bEMC\b|\bET\b|(\/[^\s/]+)\s+[\d.]+\s+Tf|(\[[^\]]*\]\s*TJ|<[0-9a-fA-F]*>\s*Tj)/g;
    for (const m of content.matchAll(ops)) {
      if (m[1] !== undefined) {
        depth++;
        if (!actualDepth) {
          out += pdfTextString(m[1]);
          actualDepth = depth;
        }
      } else if (m[2] !== undefined) {
        continue; // another literal string: not drawn text here
      } else if (m[0] === 'BDC' || m[0] === 'BMC') {
        depth++;
      } else if (m[0] === 'EMC') {
        if (depth === actualDepth) actualDepth = 0;
        depth = Math.max(0, depth - 1);
      } else if (m[0] === 'ET') {
        if (!actualDepth) out += '\n';
      } else if (m[3]) {
        font = fonts.get(names.get(m[3]) ?? '');
      } else if (m[4] && !actualDepth) {
        for (const h of m[4].matchAll(/<([0-9a-fA-F]*)>/g)) for (const g of h[1].match(/.{4}/g) ?? []) out += font?.unicode.get(parseInt(g, 16)) ?? '\ufffd';
      }
    }
    return out;
  });
}

/** A PDF literal string's text (UTF-16BE with a byte-order mark, or PDFDocEncoding taken as Latin-1). */
function pdfTextString(literal: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < literal.length; i++) {
    const c = literal[i];
    if (c !== '\\') {
      bytes.push(c.charCodeAt(0));
      continue;
    }
    const e = literal[++i];
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
    if (e in simple) bytes.push(simple[e]);
    else if (/[0-7]/.test(e)) {
      let oct = e;
      while (oct.length < 3 && /[0-7]/.test(literal[i + 1])) oct += literal[++i];
      bytes.push(parseInt(oct, 8) & 0xff);
    } else if (e === '\r' || e === '\n') {
      if (e === '\r' && literal[i + 1] === '\n') i++;
    } else bytes.push(e.charCodeAt(0));
  }
  const buf = Buffer.from(bytes);
  if (buf[0] === 0xfe && buf[1] === 0xff) {
    const swapped = Buffer.from(buf.subarray(2, 2 + ((buf.length - 2) & ~1)));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  return buf.toString('latin1');
}

/**
 * Each picture drawn in a PDF file with the resolution it prints at (pdfimages -list: pixels over its drawn
 * size, the page's transformations included), page by page. Soft masks and stencils are left out.
 */
export async function printedImages(file: string): Promise<{ page: number; width: number; height: number; xPpi: number; yPpi: number }[]> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { stdout } = await promisify(execFile)('pdfimages', ['-list', file], { maxBuffer: 64 * 1024 * 1024 });
  const out: { page: number; width: number; height: number; xPpi: number; yPpi: number }[] = [];
  for (const line of stdout.split('\n').slice(2)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 14 || f[2] !== 'image') continue;
    out.push({ page: Number(f[0]), width: Number(f[3]), height: Number(f[4]), xPpi: Number(f[12]), yPpi: Number(f[13]) });
  }
  return out;
}

/** Where each image is drawn on each page: its box in points from the page's top left (PDFKit draws in a flipped space). */
export async function imagePlacements(file: string | Uint8Array): Promise<{ page: number; x0: number; y0: number; x1: number; y1: number }[]> {
  const pdf = await PDFDocument.load(typeof file === 'string' ? await readFile(file) : file, { updateMetadata: false });
  const out: { page: number; x0: number; y0: number; x1: number; y1: number }[] = [];
  pdf.getPages().forEach((page, i) => {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => pdf.context.lookup(r)) : [contents];
    let text = '';
    for (const st of streams) if (st instanceof PDFRawStream) text += Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') + '\n';
    // PDFKit places an image with its own matrix right before drawing it: w 0 0 -h x y+h cm /In Do.
    for (const m of text.matchAll(/([-\d.]+) 0 0 ([-\d.]+) ([-\d.]+) ([-\d.]+) cm\s+\/I\d+ Do/g)) {
      const [w, h, x, y] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
      out.push({ page: i + 1, x0: x, x1: x + w, y0: Math.min(y, y + h), y1: Math.max(y, y + h) });
    }
  });
  return out;
}
