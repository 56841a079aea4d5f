/**
 * The `shop` intent read back as a print provider's preflight would: the
 * interior is PDF/X-4 (output intent with the shipped FOGRA39 profile,
 * GTS_PDFXVersion in the info dictionary and the XMP, DefaultRGB sRGB on
 * every page, TrimBox/BleedBox, every font embedded, a multiple of 4 pages),
 * and the cover wrap is one sheet whose width follows the spine formula,
 * with the cover photo on it; both are signed in the artifact answer.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFString, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { processed, upload } from '../media/media-setup.js';
import { buildExportApp, exportBook, exportsPath, fetchSigned, settled, type ExportTestApp } from './exports-setup.js';

const PT_PER_MM = 72 / 25.4;
const ICC = path.resolve(import.meta.dirname, '../../../assets/icc/FOGRA39L_coated.icc');
const round = (v: number) => Math.round(v * 100) / 100;

function lookup<T>(pdf: PDFDocument, o: unknown): T {
  return (o instanceof PDFRef ? pdf.context.lookup(o) : o) as T;
}

function infoOf(pdf: PDFDocument): PDFDict {
  return lookup<PDFDict>(pdf, pdf.context.trailerInfo.Info);
}

/** A text value of the info dictionary (PDFKit writes each as its own object). */
function infoText(pdf: PDFDocument, key: string): string | null {
  const v = lookup<unknown>(pdf, infoOf(pdf).get(PDFName.of(key)));
  if (v instanceof PDFString) return v.decodeText();
  if (v && typeof (v as { decodeText?: () => string }).decodeText === 'function') return (v as { decodeText(): string }).decodeText();
  return v === undefined ? null : String(v);
}

/** What a PDF/X-4 preflight looks at first. */
async function expectPdfX4(bytes: Uint8Array, label: string) {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  expect(Buffer.from(bytes.subarray(0, 8)).toString('latin1'), label).toBe('%PDF-1.6');
  const intents = lookup<PDFArray>(pdf, pdf.catalog.get(PDFName.of('OutputIntents')));
  expect(intents?.size(), label).toBe(1);
  const intent = lookup<PDFDict>(pdf, intents.get(0));
  expect(intent.get(PDFName.of('S'))).toBe(PDFName.of('GTS_PDFX'));
  expect(lookup<PDFString>(pdf, intent.get(PDFName.of('OutputConditionIdentifier'))).decodeText()).toBe('FOGRA39');
  const profile = lookup<PDFRawStream>(pdf, intent.get(PDFName.of('DestOutputProfile')));
  expect(String(profile.dict.get(PDFName.of('N')))).toBe('4');
  expect(Buffer.from(decodePDFRawStream(profile).decode()).equals(await readFile(ICC)), `${label}: the shipped FOGRA39 profile`).toBe(true);
  expect(infoText(pdf, 'GTS_PDFXVersion')).toBe('PDF/X-4');
  expect(String(lookup(pdf, infoOf(pdf).get(PDFName.of('Trapped'))))).toBe('/False');
  const xmp = Buffer.from(lookup<PDFRawStream>(pdf, pdf.catalog.get(PDFName.of('Metadata'))).contents).toString('utf8');
  expect(xmp).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');
  for (const page of pdf.getPages() as PDFPage[]) {
    const spaces = page.node.Resources()?.lookup(PDFName.of('ColorSpace'));
    expect(spaces instanceof PDFDict && spaces.get(PDFName.of('DefaultRGB')) !== undefined, `${label}: DefaultRGB on every page`).toBe(true);
    expect(page.node.get(PDFName.of('TrimBox')), label).toBeDefined();
    expect(page.node.get(PDFName.of('BleedBox')), label).toBeDefined();
  }
  // Every font embedded.
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    const dict = obj instanceof PDFDict ? obj : obj instanceof PDFRawStream ? obj.dict : null;
    if (!dict || dict.get(PDFName.of('Type')) !== PDFName.of('FontDescriptor')) continue;
    expect(['FontFile', 'FontFile2', 'FontFile3'].some((k) => dict.get(PDFName.of(k)) !== undefined), `${label}: ${String(dict.get(PDFName.of('FontName')))}`).toBe(true);
  }
  return pdf;
}

function imageStreams(pdf: PDFDocument): Buffer[] {
  const out: Buffer[] = [];
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    if (obj instanceof PDFRawStream && obj.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) out.push(Buffer.from(obj.contents));
  }
  return out;
}

/** Pictures a page draws (its XObjects). */
function pageImages(page: PDFPage): number {
  const xobjects = page.node.Resources()?.lookup(PDFName.of('XObject'));
  return xobjects instanceof PDFDict ? xobjects.keys().length : 0;
}

describe('print-ready shop exports', () => {
  let t: ExportTestApp;
  let owner: TestUser;
  let slug: string;
  let portraitMediaId: string;

  const memory = async (text: string, files: [Buffer, string, string][] = [], pin = false) => {
    const s = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: text }, { token: owner.token });
    const ids: string[] = [];
    for (const [data, filename, contentType] of files) {
      const up = await upload(t, owner, slug, s.body.id, data, { filename, contentType });
      expect(up.status).toBe(201);
      ids.push((await processed(t, owner, up.headers.location as string)).body.id);
    }
    expect((await t.post(`/api/v1/books/${slug}/submissions/${s.body.id}/approve/`, undefined, { token: owner.token })).status).toBe(200);
    if (pin) expect((await t.post(`/api/v1/books/${slug}/submissions/${s.body.id}/pin/`, undefined, { token: owner.token })).status).toBe(200);
    return ids;
  };

  async function exportOf(body: Record<string, unknown>) {
    const res = await t.post(exportsPath(slug), body, { token: owner.token });
    expect(res.status).toBe(202);
    const done = await settled(t, owner, slug, res.body.id, 240_000);
    expect(done.body.status, done.body.error).toBe('complete');
    const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
    expect(artifact.status).toBe(200);
    return { job: done.body, artifact: artifact.body };
  }

  beforeAll(async () => {
    await ensureFixtures(['jpeg', 'jpegRotated']);
    // A caliper other than the default, so the formula is checked against the setting.
    t = await buildExportApp('local', { env: { PRINT_PAPER_CALIPER_UM: '100' } });
    owner = await newUser(t, { firstName: 'Grace', lastName: 'Hopper' });
    slug = (await exportBook(t, owner, { title: 'Grandma turns 90' })).slug;
    const landscape = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#4a7ab8' } })
      .composite([{ input: Buffer.from('<svg width="3000" height="2000"><circle cx="2100" cy="700" r="300" fill="#f5e08a"/></svg>'), left: 0, top: 0 }])
      .jpeg({ quality: 85 })
      .toBuffer();
    await memory('The summer the pier broke, you taught every one of us to swim.', [[landscape, 'lake.jpg', 'image/jpeg']], true);
    [portraitMediaId] = await memory('Cardamom buns on Sunday mornings.', [[await readFile(fixturePaths.jpegRotated), 'buns.jpg', 'image/jpeg']]);
    for (let i = 0; i < 5; i++) await memory(`Short memory number ${i + 1}: Nguyễn Thị Hương, 奶奶, شكرا, ❤️`);
  }, 300_000);
  afterAll(async () => {
    await t?.close();
  });

  it('makes a PDF/X-4 interior of a multiple of 4 pages and a cover wrap whose width follows the spine formula', async () => {
    const { job, artifact } = await exportOf({ theme: 'heirloom_gallery', intent: 'shop' });
    expect(artifact.cover_download_url).toEqual(expect.any(String));
    expect(artifact.cover_download_url).not.toBe(artifact.download_url);
    const interior = await fetchSigned(t, artifact.download_url);
    expect(interior.status).toBe(200);
    const book = await expectPdfX4(interior.body, 'interior');
    expect(book.getPageCount()).toBe(job.page_count);
    expect(job.page_count % 4).toBe(0);
    // A book going to print opens with the theme's typographic title page: its cover wrap carries the photo.
    expect(pageImages(book.getPage(0))).toBe(0);
    // The 480 × 640 portrait photo gets a cell it fills at 200 ppi (smaller than the column): nothing prints
    // soft, so the job has nothing to warn of.
    expect(job.warnings).toEqual([]);

    const cover = await fetchSigned(t, artifact.cover_download_url);
    expect(cover.status).toBe(200);
    expect(cover.headers['content-type']).toContain('application/pdf');
    const wrap = await expectPdfX4(cover.body, 'cover');
    expect(wrap.getPageCount()).toBe(1);
    const page = wrap.getPage(0);
    // Back + spine + front, and the bleed all round: 2 × 3 + 2 × 210 + pages × 0.1 mm.
    const spineMm = job.page_count * 0.1;
    expect(round(page.getMediaBox().width)).toBe(round((6 + 420 + spineMm) * PT_PER_MM));
    expect(round(page.getMediaBox().height)).toBe(round(216 * PT_PER_MM));
    const trim = page.getTrimBox();
    expect([trim.x, trim.y, trim.width, trim.height].map(round)).toEqual([3, 3, 420 + spineMm, 210].map((v) => round(v * PT_PER_MM)));
    // The cover carries the pinned memory's photo.
    expect(imageStreams(wrap)).toHaveLength(1);
  }, 300_000);

  it('puts the photo the owner names in settings on the cover', async () => {
    const first = await exportOf({ theme: 'modern_clean', intent: 'shop' });
    const patched = await t.patch(`/api/v1/books/${slug}/`, { settings: { cover_media_id: portraitMediaId } }, { token: owner.token });
    expect(patched.status).toBe(200);
    const named = await exportOf({ theme: 'modern_clean', intent: 'shop' });
    const before = imageStreams(await PDFDocument.load((await fetchSigned(t, first.artifact.cover_download_url)).body));
    const after = imageStreams(await PDFDocument.load((await fetchSigned(t, named.artifact.cover_download_url)).body));
    expect(after).toHaveLength(1);
    expect(after[0].equals(before[0])).toBe(false);
    await t.patch(`/api/v1/books/${slug}/`, { settings: {} }, { token: owner.token });
  }, 300_000);

  it('gives screen and home exports no cover and no output intent', async () => {
    for (const intent of ['screen', 'home']) {
      const { artifact, job } = await exportOf({ theme: 'storybook', intent });
      expect(artifact.cover_download_url).toBeNull();
      expect(job.warnings).toEqual([]);
      const pdf = await PDFDocument.load((await fetchSigned(t, artifact.download_url)).body);
      expect(pdf.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
      expect(pdf.getPageCount() % 2).toBe(0);
      // The book opens with the theme's cover, the pinned memory's photo on it.
      expect(pageImages(pdf.getPage(0))).toBe(1);
    }
  }, 300_000);
});
