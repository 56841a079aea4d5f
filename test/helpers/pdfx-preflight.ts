/**
 * A PDF/X-4 preflight (ISO 15930-7:2010), for tests: the requirements a
 * print provider's preflight checks, read from the file with pdf-lib. It
 * answers the problems found, each as "rule: where: what"; none means the
 * file passes.
 *
 * What it checks:
 * - the header says PDF 1.6 or earlier (PDF/X-4 is PDF 1.6) and the trailer has an ID, no encryption;
 * - Info: GTS_PDFXVersion "PDF/X-4", a title, CreationDate and ModDate, Trapped /True or /False;
 * - XMP metadata: pdfxid:GTS_PDFXVersion, xmp:CreateDate and ModifyDate, dc:title, pdf:Trapped,
 *   each agreeing with Info;
 * - exactly one GTS_PDFX output intent, with an OutputConditionIdentifier and an embedded ICC
 *   output (`prtr`) profile whose colour space matches its N (CMYK for FOGRA39);
 * - every page: TrimBox or ArtBox (not both), inside BleedBox, inside MediaBox (and CropBox);
 * - every font reachable from a page embedded (FontFile, FontFile2 or FontFile3 in its descriptor,
 *   the descendant font's for a Type0 font);
 * - no JavaScript, Launch and other actions that are not print (anywhere in the file), no form
 *   fields, no PostScript XObjects, no OPI or alternate images, no transfer functions or halftones
 *   in graphics states;
 * - annotations inside the BleedBox only of the kinds a printer may see there (PrinterMark);
 * - device colour only where it means the printing condition: DeviceRGB under a CMYK output
 *   intent only where the resources in force give a DefaultRGB (ICC-based) colour space, and
 *   likewise for CMYK under an RGB intent; every ICCBased colour space's N matching its profile.
 */
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef, PDFStream, PDFString } from 'pdf-lib';

type Space = 'Gray' | 'RGB' | 'CMYK';

const ACTIONS_NOT_ALLOWED = new Set(['JavaScript', 'Launch', 'ImportData', 'ResetForm', 'SubmitForm', 'Movie', 'Sound', 'Rendition', 'Hide', 'SetOCGState', 'Trans', 'GoTo3DView', 'RichMediaExecute']);
const ICC_SPACES: Record<string, { space: Space; n: number } | undefined> = {
  'GRAY': { space: 'Gray', n: 1 },
  'RGB ': { space: 'RGB', n: 3 },
  'CMYK': { space: 'CMYK', n: 4 },
};

export interface PreflightOptions {
  /** The output condition expected (checked when given). */
  outputConditionIdentifier?: string;
}

export async function preflightPdfX4(bytes: Uint8Array, options: PreflightOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const fail = (rule: string, where: string, what: string) => problems.push(`${rule}: ${where}: ${what}`);

  // ---- file structure ----
  const header = /^%PDF-1\.(\d)/.exec(Buffer.from(bytes.subarray(0, 16)).toString('latin1'));
  if (!header) fail('header', 'file', 'no %PDF-1.n header');
  else if (Number(header[1]) > 6) fail('header', 'file', `PDF 1.${header[1]}: PDF/X-4 is PDF 1.6 or earlier`);
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true, throwOnInvalidObject: false });
  const ctx = pdf.context;
  const deref = <T extends PDFObject | undefined>(o: PDFObject | undefined): T => (o instanceof PDFRef ? ctx.lookup(o) : o) as T;
  const name = (o: PDFObject | undefined): string | undefined => {
    const v = deref<PDFObject | undefined>(o);
    return v instanceof PDFName ? v.decodeText() : undefined;
  };
  const text = (o: PDFObject | undefined): string | undefined => {
    const v = deref<PDFObject | undefined>(o);
    return v instanceof PDFString || v instanceof PDFHexString ? v.decodeText() : undefined;
  };
  const streamBytes = (s: PDFStream): Uint8Array => (s instanceof PDFRawStream ? decodePDFRawStream(s).decode() : s.getContents());

  const id = deref<PDFObject | undefined>(ctx.trailerInfo.ID);
  if (!(id instanceof PDFArray) || id.size() !== 2) fail('trailer', 'ID', 'missing (two file identifiers required)');
  if (ctx.trailerInfo.Encrypt) fail('security', 'trailer', 'the file is encrypted');

  // ---- document information ----
  const info = deref<PDFDict | undefined>(ctx.trailerInfo.Info);
  const infoText = (key: string) => (info ? text(info.get(PDFName.of(key))) : undefined);
  const version = infoText('GTS_PDFXVersion');
  if (!version?.startsWith('PDF/X-4')) fail('version', 'Info', `GTS_PDFXVersion is ${version ?? 'missing'}, not PDF/X-4`);
  const title = infoText('Title');
  if (!title) fail('metadata', 'Info', 'no Title');
  for (const key of ['CreationDate', 'ModDate']) if (!infoText(key)) fail('metadata', 'Info', `no ${key}`);
  const trapped = info ? name(info.get(PDFName.of('Trapped'))) : undefined;
  if (trapped !== 'True' && trapped !== 'False') fail('metadata', 'Info', `Trapped is ${trapped ?? 'missing'}, not /True or /False`);

  // ---- XMP ----
  const catalog = pdf.catalog;
  const metadata = deref<PDFStream | undefined>(catalog.get(PDFName.of('Metadata')));
  if (!(metadata instanceof PDFStream)) {
    fail('metadata', 'catalog', 'no XMP metadata stream');
  } else {
    const xmp = Buffer.from(streamBytes(metadata)).toString('utf8');
    const field = (tag: string) => {
      const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>|${tag}="([^"]*)"`).exec(xmp);
      return m ? (m[1] ?? m[2]).trim() : undefined;
    };
    if (!field('pdfxid:GTS_PDFXVersion')?.startsWith('PDF/X-4')) fail('version', 'XMP', 'no pdfxid:GTS_PDFXVersion PDF/X-4');
    for (const tag of ['xmp:CreateDate', 'xmp:ModifyDate']) if (!field(tag)) fail('metadata', 'XMP', `no ${tag}`);
    const xmpTitle = /<dc:title>[\s\S]*?<rdf:li[^>]*>([\s\S]*?)<\/rdf:li>/.exec(xmp)?.[1];
    if (!xmpTitle) fail('metadata', 'XMP', 'no dc:title');
    else if (title && unescapeXml(xmpTitle) !== title) fail('metadata', 'XMP', `dc:title "${unescapeXml(xmpTitle)}" differs from Info Title "${title}"`);
    const xmpTrapped = field('pdf:Trapped');
    if (xmpTrapped !== 'True' && xmpTrapped !== 'False') fail('metadata', 'XMP', `pdf:Trapped is ${xmpTrapped ?? 'missing'}, not True or False`);
    else if (trapped && xmpTrapped !== trapped) fail('metadata', 'XMP', `pdf:Trapped ${xmpTrapped} differs from Info /${trapped}`);
    const created = field('xmp:CreateDate');
    const infoCreated = infoText('CreationDate');
    if (created && infoCreated && pdfDate(infoCreated) !== Date.parse(created)) fail('metadata', 'XMP', `xmp:CreateDate ${created} differs from Info CreationDate ${infoCreated}`);
  }

  // ---- output intent ----
  let intentSpace: Space | null = null;
  const intents = deref<PDFArray | undefined>(catalog.get(PDFName.of('OutputIntents')));
  const pdfx = (intents instanceof PDFArray ? intents.asArray() : []).map((o) => deref<PDFDict>(o)).filter((d) => d instanceof PDFDict && name(d.get(PDFName.of('S'))) === 'GTS_PDFX');
  if (pdfx.length !== 1) fail('output intent', 'catalog', `${pdfx.length} GTS_PDFX output intents, one required`);
  const intent = pdfx[0];
  if (intent) {
    const identifier = text(intent.get(PDFName.of('OutputConditionIdentifier')));
    if (!identifier) fail('output intent', 'OutputIntent', 'no OutputConditionIdentifier');
    else if (options.outputConditionIdentifier && identifier !== options.outputConditionIdentifier) fail('output intent', 'OutputIntent', `condition ${identifier}, expected ${options.outputConditionIdentifier}`);
    const profile = deref<PDFStream | undefined>(intent.get(PDFName.of('DestOutputProfile')));
    if (!(profile instanceof PDFStream)) {
      fail('output intent', 'OutputIntent', 'no embedded DestOutputProfile');
    } else {
      const icc = iccHeader(streamBytes(profile));
      if (!icc) fail('output intent', 'DestOutputProfile', 'not an ICC profile');
      else {
        if (icc.deviceClass !== 'prtr') fail('output intent', 'DestOutputProfile', `device class ${icc.deviceClass}, an output (prtr) profile required`);
        if (!icc.space) fail('output intent', 'DestOutputProfile', `colour space ${icc.rawSpace} is not Gray, RGB or CMYK`);
        else {
          intentSpace = icc.space.space;
          const n = profile.dict.get(PDFName.of('N'));
          if (!(n instanceof PDFNumber) || n.asNumber() !== icc.space.n) fail('output intent', 'DestOutputProfile', `N ${String(n)} does not match the profile's ${icc.rawSpace.trim()} (${icc.space.n})`);
          if (/^FOGRA/i.test(identifier ?? '') && icc.space.space !== 'CMYK') fail('output intent', 'DestOutputProfile', `${identifier} is a CMYK condition, the profile is ${icc.rawSpace.trim()}`);
        }
        if (icc.major > 4) fail('output intent', 'DestOutputProfile', `ICC version ${icc.major}: PDF 1.6 takes up to version 4`);
      }
    }
  }

  // ---- the whole file: actions, forms, XObject kinds, graphics states, ICC spaces ----
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    const where = ref.toString();
    walkDicts(obj, (d) => {
      const s = name(d.get(PDFName.of('S')));
      // (A structure element's S is its role, not an action.)
      if (s && ACTIONS_NOT_ALLOWED.has(s) && name(d.get(PDFName.of('Type'))) !== 'StructElem') fail('actions', where, `a ${s} action`);
    });
    const dict = obj instanceof PDFStream ? obj.dict : obj instanceof PDFDict ? obj : null;
    if (!dict) continue;
    const type = name(dict.get(PDFName.of('Type')));
    const subtype = name(dict.get(PDFName.of('Subtype')));
    if (obj instanceof PDFStream && subtype === 'PS') fail('xobjects', where, 'a PostScript XObject');
    if (obj instanceof PDFStream && subtype === 'Form' && name(dict.get(PDFName.of('Subtype2'))) === 'PS') fail('xobjects', where, 'a PostScript form XObject');
    if (obj instanceof PDFStream && (subtype === 'Image' || subtype === 'Form') && dict.has(PDFName.of('OPI'))) fail('xobjects', where, 'OPI');
    if (obj instanceof PDFStream && subtype === 'Image' && dict.has(PDFName.of('Alternates'))) fail('xobjects', where, 'alternate images');
    if (type === 'ExtGState' || dict.has(PDFName.of('TR')) || dict.has(PDFName.of('HTP'))) checkGraphicsState(dict, where);
    if (dict.has(PDFName.of('JavaScript')) && !(obj instanceof PDFStream)) fail('actions', where, 'a JavaScript name tree');
  }
  const acroForm = deref<PDFDict | undefined>(catalog.get(PDFName.of('AcroForm')));
  const fields = acroForm ? deref<PDFArray | undefined>(acroForm.get(PDFName.of('Fields'))) : undefined;
  if (fields instanceof PDFArray && fields.size()) fail('forms', 'catalog', `${fields.size()} form fields`);
  for (const holder of [catalog]) if (holder.has(PDFName.of('AA'))) fail('actions', 'catalog', 'additional actions (AA)');

  function checkGraphicsState(gs: PDFDict, where: string) {
    const tr = gs.get(PDFName.of('TR'));
    if (tr && name(tr) !== 'Identity') fail('graphics state', where, 'a transfer function (TR)');
    const tr2 = gs.get(PDFName.of('TR2'));
    if (tr2 && name(tr2) !== 'Default') fail('graphics state', where, 'a transfer function (TR2)');
    if (gs.has(PDFName.of('HTP'))) fail('graphics state', where, 'a halftone phase (HTP)');
    if (gs.has(PDFName.of('HT')) && name(gs.get(PDFName.of('HT'))) !== 'Default') fail('graphics state', where, 'a halftone (HT)');
  }

  // ---- pages: boxes, annotations, fonts and colour in their content ----
  const checkedFonts = new Set<PDFObject>();
  const seenStreams = new Set<PDFObject>();
  const checkedResources = new Set<PDFDict>();
  pdf.getPages().forEach((page, i) => {
    const where = `page ${i + 1}`;
    const node = page.node;
    const box = (key: string): number[] | undefined => {
      const v = deref<PDFArray | undefined>(node.getInheritableAttribute(PDFName.of(key)));
      if (!(v instanceof PDFArray)) return undefined;
      const n = v.asArray().map((x) => deref<PDFNumber>(x).asNumber());
      return [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])];
    };
    const media = box('MediaBox');
    const crop = box('CropBox');
    const bleed = box('BleedBox');
    const trim = box('TrimBox');
    const art = box('ArtBox');
    if (!media) fail('page boxes', where, 'no MediaBox');
    if (!trim && !art) fail('page boxes', where, 'neither TrimBox nor ArtBox');
    if (trim && art) fail('page boxes', where, 'both TrimBox and ArtBox');
    const inner = trim ?? art;
    const inside = (a: number[], b: number[]) => a[0] >= b[0] - 0.01 && a[1] >= b[1] - 0.01 && a[2] <= b[2] + 0.01 && a[3] <= b[3] + 0.01;
    if (inner && bleed && !inside(inner, bleed)) fail('page boxes', where, `${trim ? 'TrimBox' : 'ArtBox'} ${inner} not inside BleedBox ${bleed}`);
    if (bleed && media && !inside(bleed, media)) fail('page boxes', where, `BleedBox ${bleed} not inside MediaBox ${media}`);
    if (inner && media && !inside(inner, media)) fail('page boxes', where, `${trim ? 'TrimBox' : 'ArtBox'} not inside MediaBox`);
    if (crop && inner && !inside(inner, crop)) fail('page boxes', where, 'TrimBox not inside CropBox');

    const area = bleed ?? inner ?? media;
    const annots = deref<PDFArray | undefined>(node.get(PDFName.of('Annots')));
    for (const a of annots instanceof PDFArray ? annots.asArray() : []) {
      const annot = deref<PDFDict>(a);
      const kind = name(annot.get(PDFName.of('Subtype'))) ?? '?';
      const rect = deref<PDFArray | undefined>(annot.get(PDFName.of('Rect')));
      const r = rect instanceof PDFArray ? rect.asArray().map((x) => deref<PDFNumber>(x).asNumber()) : null;
      const overlaps = !r || !area || (Math.max(r[0], r[2]) > area[0] && Math.min(r[0], r[2]) < area[2] && Math.max(r[1], r[3]) > area[1] && Math.min(r[1], r[3]) < area[3]);
      if (overlaps && kind !== 'PrinterMark') fail('annotations', where, `a ${kind} annotation inside the ${bleed ? 'BleedBox' : 'TrimBox'}`);
      const ap = deref<PDFDict | undefined>(annot.get(PDFName.of('AP')));
      if (ap instanceof PDFDict) for (const [, v] of ap.entries()) for (const s of appearanceStreams(v)) checkContent(s, streamResources(s), `${where} ${kind} annotation appearance`);
    }
    const resources = deref<PDFDict | undefined>(node.Resources());
    const contents = deref<PDFObject | undefined>(node.get(PDFName.of('Contents')));
    const streams = contents instanceof PDFArray ? contents.asArray().map((c) => deref<PDFObject>(c)) : contents ? [contents] : [];
    const pageGroup = deref<PDFDict | undefined>(node.get(PDFName.of('Group')));
    if (pageGroup instanceof PDFDict && pageGroup.has(PDFName.of('CS'))) useSpace(pageGroup.get(PDFName.of('CS'))!, resources, `${where} transparency group`);
    checkResources(resources, where);
    for (const s of streams) if (s instanceof PDFStream) checkOps(Buffer.from(streamBytes(s)).toString('latin1'), resources, where);
  });

  function appearanceStreams(v: PDFObject): PDFStream[] {
    const o = deref<PDFObject>(v);
    if (o instanceof PDFStream) return [o];
    if (o instanceof PDFDict) return [...o.entries()].map(([, x]) => deref<PDFObject>(x)).filter((x): x is PDFStream => x instanceof PDFStream);
    return [];
  }
  function streamResources(s: PDFStream): PDFDict | undefined {
    return deref<PDFDict | undefined>(s.dict.get(PDFName.of('Resources')));
  }

  /** A content stream (form, pattern, appearance) with its own resources, or its parent's when it has none. */
  function checkContent(s: PDFStream, resources: PDFDict | undefined, where: string) {
    if (seenStreams.has(s)) return;
    seenStreams.add(s);
    checkResources(resources, where);
    checkOps(Buffer.from(streamBytes(s)).toString('latin1'), resources, where);
  }

  function checkResources(resources: PDFDict | undefined, where: string) {
    if (!resources || checkedResources.has(resources)) return;
    checkedResources.add(resources);
    const sub = (key: string) => {
      const d = deref<PDFDict | undefined>(resources.get(PDFName.of(key)));
      return d instanceof PDFDict ? [...d.entries()].map(([k, v]) => [k.decodeText(), deref<PDFObject>(v)] as const) : [];
    };
    for (const [, font] of sub('Font')) checkFont(font, where);
    for (const [key, cs] of sub('ColorSpace')) if (!/^Default(RGB|CMYK|Gray)$/.test(key)) useSpace(cs, resources, `${where} colour space ${key}`);
    for (const [key, x] of sub('XObject')) {
      if (!(x instanceof PDFStream)) continue;
      const subtype = name(x.dict.get(PDFName.of('Subtype')));
      if (subtype === 'Image') {
        if (x.dict.get(PDFName.of('ImageMask'))?.toString() === 'true') continue;
        const cs = x.dict.get(PDFName.of('ColorSpace'));
        if (cs) useSpace(cs, resources, `${where} image ${key}`);
        const smask = deref<PDFObject | undefined>(x.dict.get(PDFName.of('SMask')));
        if (smask instanceof PDFStream && smask.dict.get(PDFName.of('ColorSpace'))) useSpace(smask.dict.get(PDFName.of('ColorSpace'))!, resources, `${where} image ${key} soft mask`);
      } else if (subtype === 'Form') {
        const group = deref<PDFDict | undefined>(x.dict.get(PDFName.of('Group')));
        const own = streamResources(x) ?? resources;
        if (group instanceof PDFDict && group.has(PDFName.of('CS'))) useSpace(group.get(PDFName.of('CS'))!, own, `${where} form ${key} group`);
        checkContent(x, own, `${where} form ${key}`);
      }
    }
    for (const [key, sh] of sub('Shading')) {
      const d = sh instanceof PDFStream ? sh.dict : sh;
      if (d instanceof PDFDict && d.get(PDFName.of('ColorSpace'))) useSpace(d.get(PDFName.of('ColorSpace'))!, resources, `${where} shading ${key}`);
    }
    for (const [key, pat] of sub('Pattern')) {
      const d = pat instanceof PDFStream ? pat.dict : pat;
      if (!(d instanceof PDFDict)) continue;
      const shading = deref<PDFObject | undefined>(d.get(PDFName.of('Shading')));
      const sd = shading instanceof PDFStream ? shading.dict : shading;
      // A pattern's colours are read in the resources of the stream that paints with it.
      if (sd instanceof PDFDict && sd.get(PDFName.of('ColorSpace'))) useSpace(sd.get(PDFName.of('ColorSpace'))!, resources, `${where} pattern ${key}`);
      if (pat instanceof PDFStream) checkContent(pat, streamResources(pat) ?? resources, `${where} pattern ${key}`);
    }
    for (const [key, gs] of sub('ExtGState')) {
      if (!(gs instanceof PDFDict)) continue;
      checkGraphicsState(gs, `${where} graphics state ${key}`);
      const smask = deref<PDFObject | undefined>(gs.get(PDFName.of('SMask')));
      if (smask instanceof PDFDict) {
        const g = deref<PDFObject | undefined>(smask.get(PDFName.of('G')));
        if (g instanceof PDFStream) {
          const group = deref<PDFDict | undefined>(g.dict.get(PDFName.of('Group')));
          const own = streamResources(g) ?? resources;
          if (group instanceof PDFDict && group.has(PDFName.of('CS'))) useSpace(group.get(PDFName.of('CS'))!, own, `${where} soft mask ${key} group`);
          checkContent(g, own, `${where} soft mask ${key}`);
        }
      }
    }
  }

  function checkFont(fontObj: PDFObject, where: string) {
    if (checkedFonts.has(fontObj)) return;
    checkedFonts.add(fontObj);
    const font = deref<PDFDict>(fontObj);
    if (!(font instanceof PDFDict)) return;
    const subtype = name(font.get(PDFName.of('Subtype')));
    const base = name(font.get(PDFName.of('BaseFont'))) ?? '?';
    if (subtype === 'Type3') {
      const res = deref<PDFDict | undefined>(font.get(PDFName.of('Resources')));
      checkResources(res, `${where} Type3 font ${base}`);
      return;
    }
    const target = subtype === 'Type0' ? deref<PDFDict | undefined>(deref<PDFArray>(font.get(PDFName.of('DescendantFonts')))?.get(0)) : font;
    const descriptor = target ? deref<PDFDict | undefined>(target.get(PDFName.of('FontDescriptor'))) : undefined;
    const embedded = descriptor instanceof PDFDict && ['FontFile', 'FontFile2', 'FontFile3'].some((k) => deref<PDFObject | undefined>(descriptor.get(PDFName.of(k))) instanceof PDFStream);
    if (!embedded) fail('fonts', where, `${base} (${subtype}) is not embedded`);
  }

  /** A colour space used where `resources` are in force: device colour must mean the printing condition. */
  function useSpace(csObj: PDFObject, resources: PDFDict | undefined, where: string) {
    const cs = deref<PDFObject>(csObj);
    if (cs instanceof PDFName) {
      const n = cs.decodeText();
      const device = ({ DeviceRGB: 'RGB', DeviceCMYK: 'CMYK', DeviceGray: 'Gray', RGB: 'RGB', CMYK: 'CMYK', G: 'Gray' } as Record<string, Space>)[n];
      if (device) deviceColour(device, resources, where);
      else if (n !== 'Pattern') {
        // A name of the resources' colour spaces.
        const named = resources ? deref<PDFDict | undefined>(resources.get(PDFName.of('ColorSpace'))) : undefined;
        const v = named instanceof PDFDict ? named.get(PDFName.of(n)) : undefined;
        if (v && deref<PDFObject>(v) !== cs) useSpace(v, resources, where);
      }
      return;
    }
    if (!(cs instanceof PDFArray) || !cs.size()) return;
    const family = name(cs.get(0));
    if (family === 'ICCBased') {
      const stream = deref<PDFStream>(cs.get(1));
      const icc = stream instanceof PDFStream ? iccHeader(streamBytes(stream)) : null;
      const n = stream instanceof PDFStream ? stream.dict.get(PDFName.of('N')) : undefined;
      if (!icc?.space) fail('colour', where, 'an ICCBased colour space without a readable profile');
      else if (!(n instanceof PDFNumber) || n.asNumber() !== icc.space.n) fail('colour', where, `ICCBased N ${String(n)} does not match its ${icc.rawSpace.trim()} profile`);
    } else if (family === 'Indexed') {
      useSpace(cs.get(1), resources, where);
    } else if (family === 'Separation' || family === 'DeviceN') {
      useSpace(cs.get(2), resources, where);
    } else if (family === 'Pattern' && cs.size() > 1) {
      useSpace(cs.get(1), resources, where);
    }
  }

  function deviceColour(space: Space, resources: PDFDict | undefined, where: string) {
    if (!intentSpace) return; // reported with the output intent
    // Gray prints as black ink (or grey) on a CMYK or grey press; RGB and CMYK only on their own.
    const native = space === 'Gray' ? intentSpace !== 'RGB' : space === intentSpace;
    if (native) return;
    const defaults = resources ? deref<PDFDict | undefined>(resources.get(PDFName.of('ColorSpace'))) : undefined;
    const def = defaults instanceof PDFDict ? deref<PDFObject | undefined>(defaults.get(PDFName.of(`Default${space}`))) : undefined;
    const iccDefault = def instanceof PDFArray && name(def.get(0)) === 'ICCBased';
    if (!iccDefault) fail('colour', where, `Device${space} under a ${intentSpace} output intent, with no ICC-based Default${space}`);
    else useSpace(def, resources, `${where} Default${space}`);
  }

  /** The colour operators of a content stream. */
  function checkOps(content: string, resources: PDFDict | undefined, where: string) {
    const ops = operators(content);
    const used = new Set<Space>();
    for (const { op, operands } of ops) {
      if (op === 'rg' || op === 'RG') used.add('RGB');
      else if (op === 'k' || op === 'K') used.add('CMYK');
      else if (op === 'g' || op === 'G') used.add('Gray');
      else if ((op === 'cs' || op === 'CS') && operands[0]?.startsWith('/')) useSpace(PDFName.of(operands[0].slice(1)), resources, `${where} ${op}`);
      else if (op === 'BI') {
        const m = /\/(?:CS|ColorSpace)\s*\/(\w+)/.exec(operands.join(' '));
        if (m) useSpace(PDFName.of(m[1]), resources, `${where} inline image`);
      }
    }
    for (const space of used) deviceColour(space, resources, where);
  }

  return problems;
}

/** Operators of a content stream with their operands (strings, inline image data and comments skipped). */
function operators(s: string): { op: string; operands: string[] }[] {
  const out: { op: string; operands: string[] }[] = [];
  let operands: string[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '%') {
      while (i < n && s[i] !== '\n' && s[i] !== '\r') i++;
    } else if (c === '(') {
      let depth = 0;
      for (; i < n; i++) {
        if (s[i] === '\\') i++;
        else if (s[i] === '(') depth++;
        else if (s[i] === ')' && --depth === 0) break;
      }
      i++;
      operands.push('()');
    } else if (c === '<' && s[i + 1] === '<') {
      operands.push('<<');
      i += 2;
    } else if (c === '>' && s[i + 1] === '>') {
      operands.push('>>');
      i += 2;
    } else if (c === '<') {
      const end = s.indexOf('>', i);
      operands.push('<>');
      i = end < 0 ? n : end + 1;
    } else if (c === '[' || c === ']' || c === '{' || c === '}') {
      operands.push(c);
      i++;
    } else if (c === '/') {
      let j = i + 1;
      while (j < n && !/[\s/[\]<>(){}%]/.test(s[j])) j++;
      operands.push(s.slice(i, j));
      i = j;
    } else {
      let j = i;
      while (j < n && !/[\s/[\]<>(){}%]/.test(s[j])) j++;
      const token = s.slice(i, j || i + 1);
      i = Math.max(j, i + 1);
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(token) || token === 'true' || token === 'false' || token === 'null') {
        operands.push(token);
        continue;
      }
      if (token === 'ID') {
        // Inline image data runs to the EI that follows white space.
        const end = s.slice(i).search(/\sEI(?=[\s]|$)/);
        out.push({ op: 'BI', operands });
        i = end < 0 ? n : i + end + 3;
        operands = [];
        continue;
      }
      if (token === 'BI') continue;
      out.push({ op: token, operands });
      operands = [];
    }
  }
  return out;
}

function iccHeader(b: Uint8Array): { deviceClass: string; rawSpace: string; space: { space: Space; n: number } | undefined; major: number } | null {
  if (b.length < 128) return null;
  const str = (at: number) => Buffer.from(b.subarray(at, at + 4)).toString('latin1');
  if (str(36) !== 'acsp') return null;
  return { deviceClass: str(12), rawSpace: str(16), space: ICC_SPACES[str(16)], major: b[8] };
}

function walkDicts(o: PDFObject, visit: (d: PDFDict) => void, depth = 0) {
  if (depth > 8) return;
  if (o instanceof PDFStream) return; // a stream's dictionary holds no actions
  if (o instanceof PDFDict) {
    visit(o);
    for (const [, v] of o.entries()) if (!(v instanceof PDFRef)) walkDicts(v, visit, depth + 1);
  } else if (o instanceof PDFArray) {
    for (const v of o.asArray()) if (!(v instanceof PDFRef)) walkDicts(v, visit, depth + 1);
  }
}

/** A PDF date (D:YYYYMMDDHHmmSS+HH'mm') as epoch milliseconds. */
function pdfDate(d: string): number {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(d);
  if (!m) return NaN;
  const [, y, mo = '01', da = '01', h = '00', mi = '00', se = '00', tz = 'Z'] = m;
  const zone = tz === 'Z' ? 'Z' : `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5)}`;
  return Date.parse(`${y}-${mo}-${da}T${h}:${mi}:${se}${zone}`);
}

function unescapeXml(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)))
    .replace(/&#x([0-9a-f]+);/gi, (_, c) => String.fromCharCode(parseInt(c, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
