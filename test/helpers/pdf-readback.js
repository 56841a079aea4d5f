/**
 * Reading a rendered PDF back, for tests: its fonts (embedded file, ToUnicode
 * map) and which characters each draws with a real glyph. Not used by the
 * service.
 */
import { createRequire } from 'node:module';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
const require = createRequire(import.meta.url);
function parseToUnicode(cmap) {
    const out = new Map();
    const add = (gid, spaced) => {
        // PDF hex strings may hold white space (PDFKit separates the code units of a ligature with it).
        const hex = spaced.replace(/\s+/g, '');
        if (!hex)
            return;
        const units = hex.match(/.{4}/g).map((h) => parseInt(h, 16));
        for (const ch of String.fromCharCode(...units)) {
            const cp = ch.codePointAt(0);
            out.set(cp, [...(out.get(cp) ?? []), gid]);
        }
    };
    for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
        for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F\s]+)>/g))
            add(parseInt(m[1], 16), m[2]);
    }
    for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
        for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F\s]+>)/g)) {
            const lo = parseInt(m[1], 16);
            const hi = parseInt(m[2], 16);
            if (m[3].startsWith('[')) {
                [...m[3].matchAll(/<([0-9a-fA-F\s]*)>/g)].forEach((d, i) => add(lo + i, d[1]));
            }
            else {
                const base = parseInt(m[3].slice(1, -1).replace(/\s+/g, ''), 16);
                for (let g = lo; g <= hi; g++)
                    add(g, (base + g - lo).toString(16).padStart(4, '0'));
            }
        }
    }
    return out;
}
export async function embeddedFonts(bytes) {
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    const ctx = pdf.context;
    const deref = (o) => (o instanceof PDFRef ? ctx.lookup(o) : o);
    const fonts = [];
    const fontkit = require('fontkit');
    for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
        if (!(obj instanceof PDFDict) || obj.get(PDFName.of('Type')) !== PDFName.of('Font') || obj.get(PDFName.of('Subtype')) !== PDFName.of('Type0'))
            continue;
        const toUnicode = deref(obj.get(PDFName.of('ToUnicode')));
        const descendant = deref(deref(obj.get(PDFName.of('DescendantFonts'))).get(0));
        const descriptor = deref(descendant.get(PDFName.of('FontDescriptor')));
        const ttf = deref(descriptor.get(PDFName.of('FontFile2')));
        const cff = deref(descriptor.get(PDFName.of('FontFile3')));
        const drawn = parseToUnicode(Buffer.from(decodePDFRawStream(toUnicode).decode()).toString('latin1'));
        let hasOutline = (gid) => gid > 0;
        if (ttf) {
            const font = fontkit.create(Buffer.from(decodePDFRawStream(ttf).decode()));
            hasOutline = (gid) => gid > 0 && font.getGlyph(gid).path.commands.length > 0;
        }
        fonts.push({ ref: ref.toString(), name: String(obj.get(PDFName.of('BaseFont'))).replace(/^\/([A-Z]{6}\+)?/, ''), kind: ttf ? 'TrueType' : cff ? 'CFF' : 'other', drawn, hasOutline });
    }
    return fonts;
}
/** Code points some embedded font draws with a real glyph (never .notdef). */
export function drawnCodePoints(fonts) {
    const out = new Set();
    for (const f of fonts)
        for (const [cp, gids] of f.drawn)
            if (gids.some((g) => f.hasOutline(g)))
                out.add(cp);
    return out;
}
/** Each font's glyph ids drawn on the pages (read from the content streams' Tj/TJ strings), keyed by font object ref. */
export async function drawnGlyphs(bytes) {
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    const ctx = pdf.context;
    const out = new Map();
    for (const page of pdf.getPages()) {
        const resources = page.node.Resources();
        const fontDict = resources?.lookup(PDFName.of('Font'));
        const names = new Map();
        if (fontDict instanceof PDFDict)
            for (const [k, v] of fontDict.entries())
                names.set(k.asString(), v.toString());
        const contents = page.node.Contents();
        const streams = contents instanceof PDFArray ? contents.asArray().map((r) => ctx.lookup(r)) : [contents];
        let text = '';
        for (const st of streams)
            if (st instanceof PDFRawStream)
                text += Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') + '\n';
        // Literal strings (ActualText of marked content) may hold any byte: out of the way before reading operators.
        text = text.replace(/\((?:\\[\s\S]|[^\\)])*\)/g, '()');
        let font = '';
        for (const m of text.matchAll(/(\/[^\s/]+)\s+[\d.]+\s+Tf|(\[[^\]]*\]\s*TJ|<[0-9a-fA-F]*>\s*Tj)/g)) {
            if (m[1]) {
                font = names.get(m[1]) ?? '';
                continue;
            }
            const set = out.get(font) ?? new Set();
            for (const h of m[2].matchAll(/<([0-9a-fA-F]*)>/g))
                for (const g of h[1].match(/.{4}/g) ?? [])
                    set.add(parseInt(g, 16));
            out.set(font, set);
        }
    }
    return out;
}
/** Glyphs drawn that are .notdef or have no outline (white space aside), per font: what prints as a box or nothing. */
export async function blankGlyphs(bytes) {
    const fonts = new Map((await embeddedFonts(bytes)).map((f) => [f.ref, f]));
    const problems = [];
    for (const [ref, gids] of await drawnGlyphs(bytes)) {
        const f = fonts.get(ref);
        if (!f)
            continue;
        const blankOk = new Set();
        for (const [cp, ids] of f.drawn)
            if (/\s/u.test(String.fromCodePoint(cp)))
                ids.forEach((g) => blankOk.add(g));
        for (const g of gids) {
            if (g === 0)
                problems.push(`${f.name}: .notdef`);
            else if (!blankOk.has(g) && !f.hasOutline(g))
                problems.push(`${f.name}: glyph ${g} has no outline`);
        }
    }
    return problems;
}
//# sourceMappingURL=pdf-readback.js.map