import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What makes a `shop` PDF a PDF/X-4 file a print provider accepts: an
 * output intent carrying the ICC characterisation of the printing condition
 * (FOGRA39, coated offset paper), the PDF/X version in the document
 * information and in XMP metadata, `Trapped` stated, and a DefaultRGB colour
 * space (sRGB, ICC-based) on every page, so the RGB photos and colours are
 * device-independent and the printer's RIP converts them to its CMYK.
 * The profiles ship in `assets/icc/` with their licences.
 */

export const ICC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../assets/icc');
export const OUTPUT_CONDITION = {
  file: 'FOGRA39L_coated.icc',
  identifier: 'FOGRA39',
  info: 'Coated FOGRA39 (ISO 12647-2:2004)',
  registry: 'http://www.color.org',
};
export const SRGB_PROFILE = 'sRGB.icc';

const profiles = new Map<string, Buffer>();
function profile(file: string): Buffer {
  let data = profiles.get(file);
  if (!data) {
    data = readFileSync(path.join(ICC_DIR, file));
    profiles.set(file, data);
  }
  return data;
}

interface Ref {
  data: Record<string, unknown>;
  end(chunk?: Buffer | string): void;
}
/** The parts of PDFKit's document this reaches into (no public API for output intents or page colour spaces). */
export interface PdfKitDoc {
  ref(data?: Record<string, unknown>): Ref;
  _root: { data: Record<string, unknown> };
  info: Record<string, unknown>;
  page: { colorSpaces: Record<string, unknown> };
  appendXML(xml: string): void;
  _addInfo: () => void;
}

/** A PDF name where PDFKit would write a string (PDFKit writes what it cannot classify with toString). */
class PdfName {
  constructor(private readonly name: string) {}
  get [Symbol.toStringTag]() {
    return 'PdfName';
  }
  toString() {
    return `/${this.name}`;
  }
}

const xmlEscape = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Call once, before the first page: sets the catalog's output intent and metadata, and the info entries. */
export function makePdfX4(doc: PdfKitDoc, o: { title: string; now: Date; documentId: string }): { onPage(): void } {
  const icc = doc.ref({ N: 4 });
  icc.end(profile(OUTPUT_CONDITION.file));
  doc._root.data.OutputIntents = [
    {
      Type: 'OutputIntent',
      S: 'GTS_PDFX',
      OutputConditionIdentifier: new String(OUTPUT_CONDITION.identifier),
      OutputCondition: new String(OUTPUT_CONDITION.info),
      Info: new String(OUTPUT_CONDITION.info),
      RegistryName: new String(OUTPUT_CONDITION.registry),
      DestOutputProfile: icc,
    },
  ];
  const srgb = doc.ref({ N: 3, Alternate: 'DeviceRGB' });
  srgb.end(profile(SRGB_PROFILE));

  doc.info.GTS_PDFXVersion = 'PDF/X-4';
  doc.info.Trapped = new PdfName('False');
  doc.info.CreationDate = o.now;
  doc.info.ModDate = o.now;

  const when = o.now.toISOString().replace(/\.\d+Z$/, 'Z');
  // PDFKit writes the XMP packet itself, from the info dictionary and without escaping it: its part is replaced.
  doc._addInfo = () =>
    doc.appendXML(`<rdf:Description rdf:about=""
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
    xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
    xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
   <dc:format>application/pdf</dc:format>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlEscape(o.title)}</rdf:li></rdf:Alt></dc:title>
   <xmp:CreateDate>${when}</xmp:CreateDate>
   <xmp:ModifyDate>${when}</xmp:ModifyDate>
   <xmp:MetadataDate>${when}</xmp:MetadataDate>
   <xmp:CreatorTool>memorybook</xmp:CreatorTool>
   <pdf:Producer>memorybook (PDFKit)</pdf:Producer>
   <pdf:Trapped>False</pdf:Trapped>
   <xmpMM:DocumentID>uuid:${o.documentId}</xmpMM:DocumentID>
   <xmpMM:VersionID>1</xmpMM:VersionID>
   <xmpMM:RenditionClass>default</xmpMM:RenditionClass>
   <pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>
  </rdf:Description>`);

  return {
    /** On each new page: its DeviceRGB means sRGB. */
    onPage() {
      doc.page.colorSpaces.DefaultRGB = ['ICCBased', srgb];
    },
  };
}
