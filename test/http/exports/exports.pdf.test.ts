/**
 * The printed book, read back as a printer and a reader would: every theme
 * at every intent is rendered through the API and its PDF opened with
 * pdf-lib (page count, MediaBox/TrimBox/BleedBox in points, embedded fonts,
 * images) and Debian's poppler-utils (each image's effective dpi, where the
 * words sit against the gutter, and the first page as a picture: eleven
 * themes, eleven visibly different covers). On the S3 store one theme at
 * the shop intent goes through the same checks.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THEMES } from '../../../src/services/books/book-types.js';
import { EXPORT_INTENTS, INTENTS, type ExportIntent } from '../../../src/services/exports/export-types.js';
import { THEME_STYLES, type Theme } from '../../../src/media-tools/themes.js';
import { PDF_LOOKS } from '../../../src/exports/pdf/pdf-themes.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { EMOJI_PICTURE_PX } from '../../../src/media-tools/emoji-pictures.js';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { processed, upload } from '../media/media-setup.js';
import { buildExportApp, exportBook, exportsPath, fetchSigned, settled, STORES, type ExportTestApp } from './exports-setup.js';

/** Images a rendered export holds: five, the cover photo on the first page unless it prints (its wrap is the cover), and a frontispiece's portrait. */
const imageCount = (r: { theme: string; intent: string }) => (r.intent === 'shop' ? 5 : 6) + (PDF_LOOKS[r.theme as Theme].frontispiece ? 1 : 0);

const run = promisify(execFile);
const POPPLER = existsSync('/usr/bin/pdfimages') && existsSync('/usr/bin/pdftoppm') && existsSync('/usr/bin/pdftotext');
const PT_PER_MM = 72 / 25.4;
const ROOT = path.resolve(import.meta.dirname, '../../..');

interface Rendered {
  theme: string;
  intent: ExportIntent;
  pages: number;
  file: string;
  warnings: string[];
}

/** Every font the document embeds: BaseFont without the subset tag, and whether its file is in the PDF. */
function fontsOf(pdf: PDFDocument): { name: string; embedded: boolean }[] {
  const out: { name: string; embedded: boolean }[] = [];
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    const dict = obj instanceof PDFDict ? obj : obj instanceof PDFRawStream ? obj.dict : null;
    if (!dict || dict.get(PDFName.of('Type')) !== PDFName.of('FontDescriptor')) continue;
    const name = String(dict.get(PDFName.of('FontName'))).replace(/^\/([A-Z]{6}\+)?/, '');
    const embedded = ['FontFile', 'FontFile2', 'FontFile3'].some((k) => dict.get(PDFName.of(k)) !== undefined);
    out.push({ name, embedded });
  }
  return out;
}

/** An emoji printed as its colour picture (and that picture's soft mask): not a photo. */
const isEmojiPicture = (i: { width: number; height: number }) => i.width === EMOJI_PICTURE_PX && i.height === EMOJI_PICTURE_PX;

/** The photos embedded in a PDF (emoji pictures left out). */
function imagesOf(pdf: PDFDocument): { width: number; height: number }[] {
  const out: { width: number; height: number }[] = [];
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream) || obj.dict.get(PDFName.of('Subtype')) !== PDFName.of('Image')) continue;
    out.push({ width: Number(String(obj.dict.get(PDFName.of('Width')))), height: Number(String(obj.dict.get(PDFName.of('Height')))) });
  }
  return out.filter((i) => !isEmojiPicture(i));
}

const box = (b: { x: number; y: number; width: number; height: number }) => [b.x, b.y, b.x + b.width, b.y + b.height].map((v) => Math.round(v * 100) / 100);

/** `pdfimages -list`: each image's page, pixel size and effective resolution where it is drawn. */
async function imageResolutions(file: string) {
  const { stdout } = await run('pdfimages', ['-list', file]);
  return stdout
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => l.trim().split(/\s+/))
    .map((c) => ({ page: Number(c[0]), width: Number(c[3]), height: Number(c[4]), xppi: Number(c[12]), yppi: Number(c[13]) }))
    .filter((i) => !isEmojiPicture(i));
}

/** Horizontal extent of the words on each page (pdftotext -bbox), in points from the left edge. */
async function wordExtents(file: string): Promise<Map<number, { min: number; max: number }>> {
  const { stdout } = await run('pdftotext', ['-bbox', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
  const pages = new Map<number, { min: number; max: number }>();
  let page = 0;
  for (const line of stdout.split('\n')) {
    if (line.includes('<page ')) page++;
    const m = /<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"/.exec(line);
    if (!m) continue;
    const e = pages.get(page) ?? { min: Infinity, max: -Infinity };
    e.min = Math.min(e.min, Number(m[1]));
    e.max = Math.max(e.max, Number(m[2]));
    pages.set(page, e);
  }
  return pages;
}

for (const store of STORES) {
  const themes = store === 'local' ? [...THEMES] : ['heirloom_gallery'];
  const intents = store === 'local' ? EXPORT_INTENTS : (['shop'] as ExportIntent[]);

  describe(`the PDF read back (${store} store: ${themes.length} themes × ${intents.length} intents)`, () => {
    let t: ExportTestApp;
    let owner: TestUser;
    let slug: string;
    let dir: string;
    const rendered: Rendered[] = [];

    beforeAll(async () => {
      await ensureFixtures(['jpeg', 'png', 'mp4', 'mp3']);
      dir = await mkdtemp(path.join(tmpdir(), 'memorybook-pdf-'));
      t = await buildExportApp(store);
      owner = await newUser(t, { firstName: 'Grace', lastName: 'Hopper' });
      slug = (await exportBook(t, owner, { title: 'Grandma turns 90' })).slug;
      await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'Ninety years of lakes, songs and cardamom buns' }, { token: owner.token });
      // A photo far larger than 300 dpi needs at any size the page allows: it must come out at 300 dpi.
      const big = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#4a7ab8' } })
        .composite([{ input: Buffer.from('<svg width="3000" height="2000"><circle cx="2100" cy="700" r="300" fill="#f5e08a"/></svg>'), left: 0, top: 0 }])
        .jpeg({ quality: 85 })
        .toBuffer();
      const memory = async (text: string, files: [Buffer, string, string][] = [], o: { pin?: boolean; name?: string } = {}) => {
        const s = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: text, ...(o.name ? { contributor_name: o.name } : {}) }, { token: owner.token });
        for (const [data, filename, contentType] of files) {
          const up = await upload(t, owner, slug, s.body.id, data, { filename, contentType });
          expect(up.status).toBe(201);
          await processed(t, owner, up.headers.location as string);
        }
        expect((await t.post(`/api/v1/books/${slug}/submissions/${s.body.id}/approve/`, undefined, { token: owner.token })).status).toBe(200);
        if (o.pin) expect((await t.post(`/api/v1/books/${slug}/submissions/${s.body.id}/pin/`, undefined, { token: owner.token })).status).toBe(200);
      };
      await memory('The summer the pier broke, you taught every one of us to swim. Happy ninetieth! 🎉🌊', [[big, 'lake.jpg', 'image/jpeg']], { pin: true, name: 'Sam' });
      await memory('Cardamom buns on Sunday mornings, and the corner piece always saved for me.', [
        [await readFile(fixturePaths.jpeg), 'buns.jpg', 'image/jpeg'],
        [await readFile(fixturePaths.png), 'drawing.png', 'image/png'],
      ]);
      await memory('The night drive to the coast, singing every song on the radio.', [
        [await readFile(fixturePaths.mp4), 'drive.mp4', 'video/mp4'],
        [await readFile(fixturePaths.mp3), 'song.mp3', 'audio/mpeg'],
      ]);
      await memory(
        Array.from({ length: 14 }, (_, i) => `Chapter ${i + 1}: the year we spent at the farm, the goats, the broken tractor and the lake that froze so hard we skated to the island and back before breakfast.`).join('\n\n'),
        [],
        { name: 'The Nguyen family' },
      );
      for (let i = 0; i < 6; i++) await memory(`Short memory number ${i + 1}: you are the best. ❤️`);

      const jobs: { theme: string; intent: ExportIntent; id: string }[] = [];
      for (const theme of themes) {
        for (const intent of intents) {
          let res = await t.post(exportsPath(slug), { theme, intent }, { token: owner.token });
          // At most 4 unfinished exports per book: wait for the earlier ones, then ask again.
          for (let k = 0; res.status === 429 && k < jobs.length; k++) {
            await settled(t, owner, slug, jobs[k].id, 240_000);
            res = await t.post(exportsPath(slug), { theme, intent }, { token: owner.token });
          }
          expect(res.status).toBe(202);
          jobs.push({ theme, intent, id: res.body.id });
        }
      }
      for (const job of jobs) {
        const done = await settled(t, owner, slug, job.id, 240_000);
        expect(done.body.status, done.body.error).toBe('complete');
        const artifact = await t.get(`${exportsPath(slug)}${job.id}/artifact/`, { token: owner.token });
        const file = path.join(dir, `${job.theme}-${job.intent}.pdf`);
        await writeFile(file, (await fetchSigned(t, artifact.body.download_url)).body);
        rendered.push({ theme: job.theme, intent: job.intent, pages: done.body.page_count, file, warnings: done.body.warnings });
      }
    }, 600_000);
    afterAll(async () => {
      await t?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('has the pages it reports, an even number, each trim + 2 × bleed with TrimBox and BleedBox set', async () => {
      for (const r of rendered) {
        const pdf = await PDFDocument.load(await readFile(r.file));
        expect(pdf.getPageCount(), r.file).toBe(r.pages);
        expect(r.pages % 2).toBe(0);
        expect(r.pages).toBeGreaterThanOrEqual(6);
        const bleed = INTENTS[r.intent].bleedMm * PT_PER_MM;
        const side = 210 * PT_PER_MM + 2 * bleed;
        const expected = { media: box({ x: 0, y: 0, width: side, height: side }), trim: box({ x: bleed, y: bleed, width: 210 * PT_PER_MM, height: 210 * PT_PER_MM }) };
        for (const page of pdf.getPages() as PDFPage[]) {
          expect(box(page.getMediaBox()), r.file).toEqual(expected.media);
          expect(box(page.getTrimBox()), r.file).toEqual(expected.trim);
          expect(box(page.getBleedBox()), r.file).toEqual(expected.media);
        }
      }
      // 210 mm is 595.28 pt; the shop intent's 3 mm bleed makes the page 612.28 pt.
      const shop = rendered.find((r) => r.intent === 'shop')!;
      expect(box((await PDFDocument.load(await readFile(shop.file))).getPage(0).getMediaBox())[2]).toBe(612.28);
    });

    it("embeds the theme's typefaces", async () => {
      for (const r of rendered) {
        const fonts = fontsOf(await PDFDocument.load(await readFile(r.file)));
        expect(fonts.length, r.file).toBeGreaterThanOrEqual(2);
        expect(fonts.every((f) => f.embedded), `${r.file}: ${JSON.stringify(fonts)}`).toBe(true);
        const style = THEME_STYLES[r.theme as keyof typeof THEME_STYLES];
        for (const face of [style.quote, style.title, style.body]) {
          const family = face.family.replace(/\s+/g, '');
          expect(fonts.some((f) => f.name.replace(/[-_]/g, '').includes(family)), `${r.theme}: ${face.family} in ${fonts.map((f) => f.name)}`).toBe(true);
        }
        // The emoji in the memories are set in the fallback face, not dropped.
        expect(fonts.some((f) => f.name.includes('NotoEmoji')), r.file).toBe(true);
      }
    });

    it('places every photo and poster frame, downscaled to 300 dpi and never upscaled', async () => {
      for (const r of rendered) {
        const images = imagesOf(await PDFDocument.load(await readFile(r.file)));
        // The large photo, the JPEG and PNG, the video's poster frame, the closing photo of the book's ending; and
        // the cover photo on the first page of a book that is not going to print (a printed book's cover is its wrap);
        // and a memorial's frontispiece, the cover photo again as a portrait facing the name.
        expect(images.length, r.file).toBe(imageCount(r));
        for (const i of images) {
          expect(i.width).toBeLessThanOrEqual(3000);
          expect(i.height).toBeLessThanOrEqual(2000);
        }
        // The 3000 px photo is resampled (smaller than the original); the small ones keep their pixels: never
        // upscaled, at most a sliver cropped to fit their cell's shape (the 640 px JPEG can lose a few columns).
        const widths = images.map((i) => i.width).sort((a, b) => b - a);
        expect(widths[0]).toBeLessThan(3000);
        expect(widths.some((w) => w <= 640 && w >= 0.9 * 640), `${r.file}: ${widths}`).toBe(true);
        expect(widths).toContain(400);
      }
    });

    it.runIf(POPPLER)('prints each image at no more than 300 dpi, the large photo at 300, and warns of those below 200', async () => {
      for (const r of rendered) {
        const res = await imageResolutions(r.file);
        expect(res, r.file).toHaveLength(imageCount(r));
        for (const i of res) {
          expect(i.xppi, `${r.file}: ${JSON.stringify(i)}`).toBeLessThanOrEqual(301);
          expect(Math.abs(i.xppi - i.yppi)).toBeLessThanOrEqual(2);
        }
        // Photos fill their cells; one too small for its cell prints soft, and the job says so.
        const soft = res.filter((i) => i.xppi < 199);
        if (soft.length) expect(r.warnings.join(' '), r.file).toMatch(/below 200 ppi/);
        // The large photo prints at 300 ppi; on a page of its own, bled past the trim, at no less than 200.
        const biggest = res.reduce((a, b) => (b.width > a.width ? b : a));
        const fullPage = (biggest.width / biggest.xppi) * 25.4 >= 200;
        expect(biggest.xppi, r.file).toBeGreaterThanOrEqual(fullPage ? 200 : 298);
      }
    });

    it.runIf(POPPLER)('keeps the words clear of the gutter by the theme’s inner margin: it alternates between recto and verso', async () => {
      for (const r of rendered.filter((x) => INTENTS[x.intent].gutterMm > 0)) {
        const { bleedMm, gutterMm } = INTENTS[r.intent];
        const side = (210 + 2 * bleedMm) * PT_PER_MM;
        // The theme's own inner margin (its grid: src/exports/pdf/themes/) outside the gutter the binding takes; with
        // the gutter, never under 18 mm from the fold.
        const margin = PDF_LOOKS[r.theme as Theme].margins.inner;
        expect(margin + gutterMm, `${r.theme}: inner margin with the gutter, mm`).toBeGreaterThanOrEqual(18);
        const inner = (bleedMm + margin + gutterMm) * PT_PER_MM - 0.5;
        const extents = await wordExtents(r.file);
        let checked = 0;
        // The memory pages: after the cover and its verso, before a closing page.
        for (let page = 3; page < r.pages; page++) {
          const e = extents.get(page);
          if (!e) continue;
          if (page % 2 === 1) expect(e.min, `${r.file} page ${page} (recto)`).toBeGreaterThanOrEqual(inner);
          else expect(e.max, `${r.file} page ${page} (verso)`).toBeLessThanOrEqual(side - inner);
          checked++;
        }
        expect(checked).toBeGreaterThanOrEqual(3);
      }
    });

    it.runIf(POPPLER && store === 'local')('turns out eleven visibly different first pages, one per theme', async () => {
      const covers = new Map<string, { mean: number[]; pixels: Buffer }>();
      for (const r of rendered.filter((x) => x.intent === 'screen')) {
        const prefix = path.join(dir, `cover-${r.theme}`);
        await run('pdftoppm', ['-png', '-r', '24', '-f', '1', '-l', '1', '-singlefile', r.file, prefix]);
        const png = sharp(`${prefix}.png`);
        const stats = await png.stats();
        // Not a blank page: the title and ornaments make the picture vary.
        expect(Math.max(...stats.channels.map((c) => c.stdev)), r.theme).toBeGreaterThan(4);
        covers.set(r.theme, { mean: stats.channels.slice(0, 3).map((c) => c.mean), pixels: await png.resize(64, 64, { fit: 'fill' }).removeAlpha().raw().toBuffer() });
      }
      expect(covers.size).toBe(11);
      const entries = [...covers.entries()];
      for (let a = 0; a < entries.length; a++) {
        for (let b = a + 1; b < entries.length; b++) {
          const [x, y] = [entries[a][1].pixels, entries[b][1].pixels];
          let diff = 0;
          for (let i = 0; i < x.length; i++) diff += Math.abs(x[i] - y[i]);
          expect(diff / x.length, `${entries[a][0]} vs ${entries[b][0]}`).toBeGreaterThan(3);
        }
      }
    });

    it.runIf(store === 'local')('has a picture of every theme in the docs gallery', () => {
      for (const theme of THEMES) expect(existsSync(path.join(ROOT, 'docs/themes', `${theme}.png`)), `docs/themes/${theme}.png`).toBe(true);
    });
  });
}
