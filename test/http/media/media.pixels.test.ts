/**
 * Decompression bombs: a PNG of 144 megapixels in a few hundred kilobytes is
 * refused from its header at upload (the API and the web form alike), and a
 * picture of that size that got into the store anyway is never decoded: the
 * PDF leaves it out and sharp itself refuses it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../../src/lib/ids.js';
import { loadSharp, MAX_IMAGE_PIXELS } from '../../../src/media-tools/sharp.js';
import { objectKeys } from '../../../src/services/media/media-types.js';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { approvedMemory, buildExportApp, exportsPath, fetchSigned, settled, type ExportTestApp } from '../exports/exports-setup.js';
import { webClient } from '../web/web-client.js';
import { upload } from './media-setup.js';
import { pixelBombPng } from './pixel-bomb.js';

const W = 12_000;
const H = 12_000;

let t: ExportTestApp;
let owner: TestUser;
beforeAll(async () => {
  t = await buildExportApp('local');
  owner = await newUser(t);
});
afterAll(() => t?.close());

const mediaCount = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]))[0]!.n;

describe('pictures over 100 megapixels', () => {
  it('an upload: 400 validation_failed, reason too_many_pixels, nothing stored', async () => {
    const bomb = pixelBombPng(W, H);
    expect(bomb.length).toBeLessThan(1_000_000);
    const { slug } = await newBook(t, owner, { plan: 'premium' });
    const sub = await newSubmission(t, slug, owner);
    const before = await t.storedKeys();
    const res = await upload(t, owner, slug, sub.id, bomb, { filename: 'small.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      details: { field: 'file', reason: 'too_many_pixels', width: W, height: H, max_pixels: MAX_IMAGE_PIXELS },
    });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(await mediaCount(slug)).toBe(0);
    expect(await t.storedKeys()).toEqual(before);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_objects`);
    expect(n).toBe(0);

    // An ordinary photo still goes in.
    const ok = await upload(t, owner, slug, sub.id, await readFixture('png'), { filename: 'fine.png', contentType: 'image/png' });
    expect(ok.status).toBe(201);
  });

  it('a photo on the web form: 400, the form again with the reason, nothing stored', async () => {
    const { slug } = await newBook(t, owner, { isPublic: true });
    const c = webClient(t);
    await c.get(`/b/${slug}/`);
    const res = await c.submitMultipart(`/b/${slug}/`, [
      { name: 'name', data: 'Aunt May' },
      { name: 'text', data: 'The lake, 1990' },
      { name: 'photo', filename: 'lake.png', contentType: 'image/png', data: pixelBombPng(W, H) },
    ]);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('megapixels');
    expect(await mediaCount(slug)).toBe(0);
  });

  it('one already in the store is never decoded: sharp refuses it, and the PDF leaves it out', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-bomb-'));
    try {
      const file = path.join(dir, 'bomb.png');
      await writeFile(file, pixelBombPng(W, H));
      const sharp = await loadSharp();
      await expect(sharp(file).raw().toBuffer()).rejects.toThrow(/pixel limit/i);
      // Even when a caller asks for more.
      await expect(sharp(file, { limitInputPixels: false }).raw().toBuffer()).rejects.toThrow(/pixel limit/i);
      await expect(sharp(file, { limitInputPixels: 268_402_689 }).raw().toBuffer()).rejects.toThrow(/pixel limit/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const { slug } = await newBook(t, owner, { plan: 'premium' });
    const memory = await approvedMemory(t, owner, slug, { text: 'A photo too large to print' });
    const [{ id: bookId }] = await t.db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [slug]);
    const mediaId = uuidv7();
    const key = objectKeys.original(bookId, mediaId);
    const bomb = pixelBombPng(W, H);
    await t.services.store.put(key, Readable.from([bomb]), { contentType: 'image/png' });
    await t.db.query(
      `INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, size_bytes, sha256, storage_key, width, height, processing_status, scan_result)
       VALUES ($1, $2, $3, $4, 'image', 'image/png', $5, $6, $7, $8, $9, 'complete', 'not_scanned')`,
      [mediaId, memory.id, bookId, owner.user.id, bomb.length, 'b'.repeat(64), key, W, H],
    );
    const res = await t.post(exportsPath(slug), { theme: 'heirloom_gallery', export_format: 'pdf' }, { token: owner.token });
    expect(res.status).toBe(202);
    expect((await settled(t, owner, slug, res.body.id)).body.status).toBe('complete');
    const link = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
    const pdf = await PDFDocument.load((await fetchSigned(t, link.body.download_url)).body);
    const images = pdf.context
      .enumerateIndirectObjects()
      .filter(([, o]) => o instanceof PDFRawStream && o.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'));
    expect(images).toHaveLength(0);
  }, 120_000);
});
