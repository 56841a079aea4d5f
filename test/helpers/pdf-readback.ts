/**
 * Reading a rendered PDF back, for tests: its fonts (embedded file, ToUnicode
 * map) and which characters each draws with a real glyph. Not used by the
 * service.
 */
import { createRequire } from 'node:module';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';

export interface EmbeddedFont {
  ref: string;
  name: string;
  kind: 'TrueType' | 'CFF' | 'other';
  /** Code point → the glyph ids (in the embedded font) that the ToUnicode map says draw it. */
  drawn: Map<number, number[]>;
  /** Whether a glyph of the embedded file has an outline (TrueType only; CFF glyphs count when not .notdef). */
  hasOutline(gid: number): boolean;
}

const require = createRequire(import.meta.url);

function parseToUnicode(cmap: string): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const add = (gid: number, spaced: string) => {
    // PDF hex strings may hold white space (PDFKit separates the code units of a ligature with it).
    const hex = spaced.replace(/\s+/g, '');
    if (!hex) return;
    const units = hex.match(/.{4}/g)!.map((h) => parseInt(h, 16));
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

export async function embeddedFonts(bytes: Uint8Array): Promise<EmbeddedFont[]> {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
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
    const drawn = parseToUnicode(Buffer.from(decodePDFRawStream(toUnicode).decode()).toString('latin1'));
    let hasOutline: (gid: number) => boolean = (gid) => gid > 0;
    if (ttf) {
      const font = fontkit.create(Buffer.from(decodePDFRawStream(ttf).decode()));
      hasOutline = (gid) => gid > 0 && font.getGlyph(gid).path.commands.length > 0;
    }
    fonts.push({ ref: ref.toString(), name: String(obj.get(PDFName.of('BaseFont'))).replace(/^\/([A-Z]{6}\+)?/, ''), kind: ttf ? 'TrueType' : cff ? 'CFF' : 'other', drawn, hasOutline });
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
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const ctx = pdf.context;
  const out = new Map<string, Set<number>>();
  for (const page of pdf.getPages()) {
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
  return out;
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
    for (const g of gids) {
      if (g === 0) problems.push(`${f.name}: .notdef`);
      else if (!blankOk.has(g) && !f.hasOutline(g)) problems.push(`${f.name}: glyph ${g} has no outline`);
    }
  }
  return problems;
}
