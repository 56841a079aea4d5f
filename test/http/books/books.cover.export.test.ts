/**
 * The cover in the exports: the JSON export carries it, and the printed
 * book's front photo is the chosen cover cropped around its focal point
 * (read back from the PDF: the same cover with two focal points prints two
 * different crops).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSharp } from '../../../src/media-tools/sharp.js';
import { eventually } from '../../helpers/eventually.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { fileUpload } from '../../helpers/multipart.js';
import { approvedMemory, buildExportApp, exportBook, exportsPath, fetchSigned, settled, type ExportTestApp } from '../exports/exports-setup.js';

const run = promisify(execFile);
let t: ExportTestApp;
let owner: TestUser;
let dir: string;
beforeAll(async () => {
  t = await buildExportApp('local');
  owner = await newUser(t);
  dir = await mkdtemp(path.join(tmpdir(), 'mb-cover-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A wide photo: red on its left third, blue on its right third, grey between. */
async function redLeftBlueRight(): Promise<Buffer> {
  const sharp = await loadSharp();
  const w = 1800;
  const h = 600;
  const svg = Buffer.from(`<svg width="${w}" height="${h}"><rect x="0" y="0" width="600" height="${h}" fill="#ff0000"/><rect x="1200" y="0" width="600" height="${h}" fill="#0000ff"/></svg>`);
  return sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).composite([{ input: svg }]).jpeg({ quality: 95 }).toBuffer();
}

/** A square photo: red on its top third, blue on its bottom third, grey between. */
async function redTopBlueBottom(): Promise<Buffer> {
  const sharp = await loadSharp();
  const svg = Buffer.from(`<svg width="900" height="900"><rect x="0" y="0" width="900" height="300" fill="#ff0000"/><rect x="0" y="600" width="900" height="300" fill="#0000ff"/></svg>`);
  return sharp({ create: { width: 900, height: 900, channels: 3, background: '#808080' } }).composite([{ input: svg }]).jpeg({ quality: 95 }).toBuffer();
}

async function exportArtifact(slug: string, body: Record<string, unknown>): Promise<Buffer> {
  const res = await t.post(exportsPath(slug), body, { token: owner.token });
  expect(res.status, res.text).toBe(202);
  const done = await settled(t, owner, slug, res.body.id, 180_000);
  expect(done.body.status, done.body.error).toBe('complete');
  const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
  return (await fetchSigned(t, artifact.body.download_url)).body;
}

/** The mean red and blue of the largest picture on the PDF's first page (pdfimages). */
async function frontPhotoColour(pdf: Buffer, name: string): Promise<{ r: number; b: number }> {
  const file = path.join(dir, `${name}.pdf`);
  await writeFile(file, pdf);
  const out = path.join(dir, name);
  await run('pdfimages', ['-f', '1', '-l', '1', '-png', file, out]);
  const pngs = (await readdir(dir)).filter((f) => f.startsWith(`${name}-`) && f.endsWith('.png'));
  expect(pngs.length).toBeGreaterThan(0);
  const sharp = await loadSharp();
  let best: { area: number; r: number; b: number } = { area: 0, r: 0, b: 0 };
  for (const p of pngs) {
    const img = sharp(await readFile(path.join(dir, p)));
    const meta = await img.metadata();
    const stats = await img.stats();
    const area = (meta.width ?? 0) * (meta.height ?? 0);
    if (area > best.area) best = { area, r: stats.channels[0]!.mean, b: stats.channels[2]!.mean };
  }
  return best;
}

describe('the cover in the exports', () => {
  it('the JSON export carries the cover; a focal point moves the printed crop', async () => {
    const { slug } = await exportBook(t, owner);
    await approvedMemory(t, owner, slug, { text: 'A memory for the book.' });
    const body = fileUpload(await redLeftBlueRight(), { filename: 'cover.jpg', contentType: 'image/jpeg' });
    const put = await t.request('PUT', `/api/v1/books/${slug}/cover/`, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType } });
    expect(put.status, put.text).toBe(200);

    const left = await t.patch(`/api/v1/books/${slug}/`, { cover_focal_point: { x: 0.05, y: 0.5 } }, { token: owner.token });
    expect(left.status).toBe(200);
    const json = JSON.parse((await exportArtifact(slug, { theme: 'storybook', export_format: 'json' })).toString('utf8'));
    expect(json.book.cover).toEqual({ media_id: put.body.cover.media_id, focal_point: { x: 0.05, y: 0.5 } });

    const leftPdf = await frontPhotoColour(await exportArtifact(slug, { theme: 'storybook' }), 'left');
    expect((await t.patch(`/api/v1/books/${slug}/`, { cover_focal_point: { x: 0.95, y: 0.5 } }, { token: owner.token })).status).toBe(200);
    const rightPdf = await frontPhotoColour(await exportArtifact(slug, { theme: 'storybook' }), 'right');
    // Focused left, the front shows the red; focused right, the blue.
    expect(leftPdf.r).toBeGreaterThan(leftPdf.b + 40);
    expect(rightPdf.b).toBeGreaterThan(rightPdf.r + 40);
  }, 400_000);

  it("a share card of a memory without a photo shows the cover, cropped around its focal point", async () => {
    const colours: { r: number; b: number }[] = [];
    for (const x of [0.05, 0.95]) {
      const { slug } = await exportBook(t, owner);
      const body = fileUpload(await redLeftBlueRight(), { filename: 'cover.jpg', contentType: 'image/jpeg' });
      const put = await t.request('PUT', `/api/v1/books/${slug}/cover/`, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType } });
      expect(put.status).toBe(200);
      expect((await t.patch(`/api/v1/books/${slug}/`, { cover_focal_point: { x, y: 0.5 } }, { token: owner.token })).status).toBe(200);
      const s = await approvedMemory(t, owner, slug, { text: 'No photo of its own.' });
      const withCard = await eventually(
        () => t.get(`/api/v1/books/${slug}/submissions/${s.id}/`, { token: owner.token }),
        (r) => r.body.share_card_url !== null,
        60_000,
      );
      const card = await fetchSigned(t, withCard.body.share_card_url);
      const sharp = await loadSharp();
      // The photo is the card's right-hand 470 pixels.
      const stats = await sharp(card.body).extract({ left: 1200 - 470, top: 0, width: 470, height: 630 }).stats();
      colours.push({ r: stats.channels[0]!.mean, b: stats.channels[2]!.mean });
    }
    expect(colours[0]!.r).toBeGreaterThan(colours[0]!.b + 40);
    expect(colours[1]!.b).toBeGreaterThan(colours[1]!.r + 40);
  }, 200_000);

  it('changing the cover makes the share cards drawn with it again: the old card is not served and goes, the new one shows the new crop', async () => {
    const { slug } = await exportBook(t, owner);
    const body = fileUpload(await redLeftBlueRight(), { filename: 'cover.jpg', contentType: 'image/jpeg' });
    const put = await t.request('PUT', `/api/v1/books/${slug}/cover/`, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType } });
    expect(put.status).toBe(200);
    expect((await t.patch(`/api/v1/books/${slug}/`, { cover_focal_point: { x: 0.05, y: 0.5 } }, { token: owner.token })).status).toBe(200);
    const s = await approvedMemory(t, owner, slug, { text: 'No photo of its own.' });
    const memory = (u: TestUser = owner) => t.get(`/api/v1/books/${slug}/submissions/${s.id}/`, { token: u.token });
    const cardColour = async (url: string) => {
      const card = await fetchSigned(t, url);
      expect(card.status).toBe(200);
      const stats = await (await loadSharp())(card.body).extract({ left: 1200 - 470, top: 0, width: 470, height: 630 }).stats();
      return { r: stats.channels[0]!.mean, b: stats.channels[2]!.mean };
    };
    const first = await eventually(memory, (r) => r.body.share_card_url !== null, 60_000);
    const red = await cardColour(first.body.share_card_url);
    expect(red.r).toBeGreaterThan(red.b + 40);

    const moved = await t.patch(`/api/v1/books/${slug}/`, { cover_focal_point: { x: 0.95, y: 0.5 } }, { token: owner.token });
    expect(moved.status).toBe(200);
    // From the change on, the memory no longer shows the card of the old crop.
    expect((await memory()).body.share_card_url).not.toBe(first.body.share_card_url);
    const second = await eventually(memory, (r) => r.body.share_card_url !== null, 60_000);
    const blue = await cardColour(second.body.share_card_url);
    expect(blue.b).toBeGreaterThan(blue.r + 40);
    // The old card's file is removed.
    await eventually(() => fetchSigned(t, first.body.share_card_url), (r) => r.status === 404, 30_000);

    // Back to the automatic choice (no cover): the card is made again, without the photo.
    expect((await t.delete(`/api/v1/books/${slug}/cover/`, { token: owner.token })).status).toBe(200);
    const third = await eventually(memory, (r) => r.body.share_card_url !== null && r.body.share_card_url !== second.body.share_card_url, 60_000);
    const plain = await cardColour(third.body.share_card_url);
    // Neither the red nor the blue of the photo.
    expect(Math.abs(plain.r - plain.b)).toBeLessThan(20);
  }, 200_000);

  it("the web form's header shows the cover cropped around its focal point (a 3:1 band); none without a cover", async () => {
    const { slug } = await exportBook(t, owner);
    const formPath = (await t.services.channels.webFormPathFor(slug))!;
    expect(formPath).toBeTruthy();
    const coverPath = formPath.replace(`/b/${slug}/`, `/b/${slug}/cover.jpg`);
    expect((await t.app.inject({ method: 'GET', url: formPath })).body).not.toContain('book-cover');
    expect((await t.app.inject({ method: 'GET', url: coverPath })).statusCode).toBe(404);

    const body = fileUpload(await redTopBlueBottom(), { filename: 'cover.jpg', contentType: 'image/jpeg' });
    expect((await t.request('PUT', `/api/v1/books/${slug}/cover/`, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType } })).status).toBe(200);
    const page = await t.app.inject({ method: 'GET', url: formPath });
    expect(page.body).toContain(`class="book-cover" src="${coverPath.replaceAll('&', '&amp;')}"`);
    // Without the form's key: not found.
    expect((await t.app.inject({ method: 'GET', url: `/b/${slug}/cover.jpg` })).statusCode).toBe(404);

    const sharp = await loadSharp();
    const colours: { r: number; b: number }[] = [];
    for (const y of [0.05, 0.95]) {
      expect((await t.patch(`/api/v1/books/${slug}/`, { cover_focal_point: { x: 0.5, y } }, { token: owner.token })).status).toBe(200);
      const res = await t.app.inject({ method: 'GET', url: coverPath });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      const img = sharp(res.rawPayload);
      const meta = await img.metadata();
      expect(meta.width! / meta.height!).toBeCloseTo(3, 1);
      // Focused at the top, the band is the red top; at the foot, the blue.
      const stats = await img.stats();
      colours.push({ r: stats.channels[0]!.mean, b: stats.channels[2]!.mean });
    }
    expect(colours[0]!.r).toBeGreaterThan(colours[0]!.b + 40);
    expect(colours[1]!.b).toBeGreaterThan(colours[1]!.r + 40);
  }, 200_000);
});
