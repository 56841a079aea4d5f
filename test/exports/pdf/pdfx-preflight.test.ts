/**
 * The PDF/X-4 preflight itself: a `shop` book passes, and each thing a print
 * provider's preflight refuses, put into that book, is found (a screen PDF,
 * RGB without its ICC-based default, a link on the page, a font not
 * embedded, a trim outside the bleed, JavaScript, a transfer function, an
 * output profile whose N lies, Trapped unknown).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFString } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdfBook, type PdfMemory } from '../../../src/exports/pdf/pdf-book.js';
import { preflightPdfX4 } from '../../helpers/pdfx-preflight.js';

async function* iterate<T>(xs: T[]) {
  yield* xs;
}

const MEMORIES: PdfMemory[] = [
  { id: 'a', text: 'We drove to the lake every August — Ünal, Zażółć, Γιαγιά, Бабушка, شكرا, תודה, 奶奶, おばあちゃん ❤️', signature: 'Rose', date: '2026-05-01T10:00:00Z', pinned: true, pictures: [{ key: 'photo', kind: 'photo' }], recordings: [{ kind: 'audio', url: 'https://memorybook.example/play/abcdefghijklmnopqrstuvwxyz012345/', duration: 42 }] },
  { id: 'b', text: 'She packed too many sandwiches. '.repeat(40), signature: 'Tom', date: '2026-05-02T10:00:00Z', pinned: false, pictures: [], recordings: [] },
];

describe('the PDF/X-4 preflight', () => {
  let dir: string;
  let shop: Uint8Array;
  let screen: Uint8Array;

  async function render(printReady: boolean): Promise<Uint8Array> {
    const file = path.join(dir, `${printReady ? 'shop' : 'screen'}.pdf`);
    await renderPdfBook({
      title: 'Grandma turns 90',
      subtitle: 'Lakes and songs',
      theme: 'botanical_luxe',
      bleedMm: printReady ? 3 : 0,
      gutterMm: printReady ? 15 : 0,
      memoryCount: MEMORIES.length,
      memories: iterate(MEMORIES),
      openPicture: async () => ({ path: path.join(dir, 'photo.jpg'), release: async () => {} }),
      output: createWriteStream(file),
      now: new Date('2026-06-01T00:00:00Z'),
      printReady,
    });
    return readFile(file);
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-preflight-'));
    await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#6b8fb8' } }).jpeg().toFile(path.join(dir, 'photo.jpg'));
    [shop, screen] = [await render(true), await render(false)];
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The shop book changed by `edit`, saved again (pdf-lib keeps the ID and the rest as they were). */
  async function altered(edit: (pdf: PDFDocument) => void): Promise<string[]> {
    const pdf = await PDFDocument.load(shop, { updateMetadata: false });
    edit(pdf);
    const bytes = await pdf.save({ useObjectStreams: false, updateFieldAppearances: false });
    // pdf-lib writes its own header (1.7): the book's is put back (same length).
    bytes.set(Buffer.from('%PDF-1.6'), 0);
    return preflightPdfX4(bytes, { outputConditionIdentifier: 'FOGRA39' });
  }
  const lookup = <T>(pdf: PDFDocument, o: unknown) => (o instanceof PDFRef ? pdf.context.lookup(o) : o) as T;

  it('passes a shop book, before and after a round trip through pdf-lib', async () => {
    expect(await preflightPdfX4(shop, { outputConditionIdentifier: 'FOGRA39' })).toEqual([]);
    expect(await altered(() => {})).toEqual([]);
  });

  it('refuses a screen PDF: no PDF/X version, no output intent, no trim', async () => {
    const problems = await preflightPdfX4(screen);
    expect(problems).toContainEqual(expect.stringMatching(/^header: .*PDF 1\.7/));
    expect(problems).toContainEqual(expect.stringMatching(/^version: Info/));
    expect(problems).toContainEqual(expect.stringMatching(/^version: XMP/));
    expect(problems).toContainEqual(expect.stringMatching(/^output intent: catalog: 0 GTS_PDFX/));
  });

  it('refuses DeviceRGB on a page without an ICC-based DefaultRGB', async () => {
    const problems = await altered((pdf) => {
      const spaces = pdf.getPages()[2].node.Resources()!.lookup(PDFName.of('ColorSpace'), PDFDict);
      spaces.delete(PDFName.of('DefaultRGB'));
    });
    expect(problems).toContainEqual(expect.stringMatching(/^colour: page 3.*DeviceRGB under a CMYK output intent/));
  });

  it('refuses an annotation on the page', async () => {
    const problems = await altered((pdf) => {
      const page = pdf.getPages()[2];
      const link = pdf.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [100, 100, 200, 200], A: { S: 'URI', URI: PDFString.of('https://example.org/') } });
      page.node.set(PDFName.of('Annots'), pdf.context.obj([pdf.context.register(link)]));
    });
    expect(problems).toContainEqual(expect.stringMatching(/^annotations: page 3: a Link annotation inside the BleedBox/));
  });

  it('refuses a font that is not embedded', async () => {
    const problems = await altered((pdf) => {
      for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
        if (obj instanceof PDFDict && obj.get(PDFName.of('Type')) === PDFName.of('FontDescriptor')) {
          for (const k of ['FontFile', 'FontFile2', 'FontFile3']) obj.delete(PDFName.of(k));
          break;
        }
      }
    });
    expect(problems).toContainEqual(expect.stringMatching(/^fonts: .* is not embedded/));
  });

  it('refuses a TrimBox outside the BleedBox', async () => {
    const problems = await altered((pdf) => {
      const page = pdf.getPages()[3];
      const bleed = page.getBleedBox();
      page.setTrimBox(bleed.x - 5, bleed.y, bleed.width + 10, bleed.height);
    });
    expect(problems).toContainEqual(expect.stringMatching(/^page boxes: page 4: TrimBox .* not inside BleedBox/));
  });

  it('refuses JavaScript, transfer functions, a lying output profile and Trapped unknown', async () => {
    const problems = await altered((pdf) => {
      pdf.catalog.set(PDFName.of('OpenAction'), pdf.context.obj({ S: 'JavaScript', JS: PDFString.of('app.alert(1)') }));
      const gs = pdf.context.obj({ Type: 'ExtGState', TR: 'Identity', TR2: PDFName.of('Identity'), HTP: [0, 0] });
      pdf.getPages()[2].node.Resources()!.set(PDFName.of('ExtGState'), pdf.context.obj({ GSx: pdf.context.register(gs) }));
      const intent = lookup<PDFDict>(pdf, lookup<PDFArray>(pdf, pdf.catalog.get(PDFName.of('OutputIntents'))).get(0));
      lookup<PDFRawStream>(pdf, intent.get(PDFName.of('DestOutputProfile'))).dict.set(PDFName.of('N'), pdf.context.obj(3));
      lookup<PDFDict>(pdf, pdf.context.trailerInfo.Info).set(PDFName.of('Trapped'), PDFName.of('Unknown'));
    });
    expect(problems).toContainEqual(expect.stringMatching(/^actions: .*JavaScript action/));
    expect(problems).toContainEqual(expect.stringMatching(/^graphics state: .*transfer function \(TR2\)/));
    expect(problems).toContainEqual(expect.stringMatching(/^graphics state: .*halftone phase/));
    expect(problems).toContainEqual(expect.stringMatching(/^output intent: DestOutputProfile: N 3 does not match/));
    expect(problems).toContainEqual(expect.stringMatching(/^metadata: Info: Trapped is Unknown/));
  });

  it('keeps the QR codes of a shop book unlinked (a link is an annotation on the page), a screen book linked', async () => {
    const annots = async (bytes: Uint8Array) => (await PDFDocument.load(bytes)).getPages().reduce((n, p) => n + (p.node.Annots()?.size() ?? 0), 0);
    expect(await annots(shop)).toBe(0);
    expect(await annots(screen)).toBeGreaterThan(0);
  });
});
