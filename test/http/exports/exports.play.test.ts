/**
 * Recordings and videos on paper: the PDF prints a QR code (linked as well)
 * to /play/<token>/, a page where the recording plays from a signed URL; the
 * page lasts as long as the memory, and a deleted memory's page is a 404.
 */
import { readFile } from 'node:fs/promises';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { processed, upload } from '../media/media-setup.js';
import { buildExportApp, exportBook, exportsPath, fetchSigned, settled, type ExportTestApp } from './exports-setup.js';

/** The URIs of the link annotations on the PDF's pages. */
function linksOf(pdf: PDFDocument): string[] {
  const out: string[] = [];
  for (const page of pdf.getPages()) {
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    for (let i = 0; i < annots.size(); i++) {
      const a = annots.lookup(i, PDFDict).lookup(PDFName.of('A'));
      const uri = a instanceof PDFDict ? a.lookup(PDFName.of('URI')) : undefined;
      if (uri instanceof PDFString) out.push(uri.decodeText());
    }
  }
  return out;
}

describe('recordings on paper', () => {
  let t: ExportTestApp;
  let owner: TestUser;
  let slug: string;
  let submissionId: string;

  beforeAll(async () => {
    await ensureFixtures(['mp3', 'mp4']);
    t = await buildExportApp('local');
    owner = await newUser(t);
    slug = (await exportBook(t, owner, { title: 'Grandma turns 90' })).slug;
    const s = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'Listen to us singing for you!' }, { token: owner.token });
    submissionId = s.body.id;
    for (const [file, filename, contentType] of [
      [fixturePaths.mp3, 'song.mp3', 'audio/mpeg'],
      [fixturePaths.mp4, 'drive.mp4', 'video/mp4'],
    ] as const) {
      const up = await upload(t, owner, slug, submissionId, await readFile(file), { filename, contentType });
      expect(up.status).toBe(201);
      expect((await processed(t, owner, up.headers.location as string)).body.processing_status).toBe('complete');
    }
    expect((await t.post(`/api/v1/books/${slug}/submissions/${submissionId}/approve/`, undefined, { token: owner.token })).status).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await t?.close();
  });

  it('prints a QR code to a page where each plays, for as long as the memory exists', async () => {
    const res = await t.post(exportsPath(slug), { theme: 'elegant_classic', intent: 'home' }, { token: owner.token });
    const done = await settled(t, owner, slug, res.body.id, 240_000);
    expect(done.body.status, done.body.error).toBe('complete');
    const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
    const pdf = await PDFDocument.load((await fetchSigned(t, artifact.body.download_url)).body);
    const links = linksOf(pdf);
    expect(links).toHaveLength(2);
    const base = `${t.config.http.publicUrl}/play/`;
    for (const link of links) expect(link).toMatch(new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[A-Za-z0-9_-]{32,}/$`));
    // Only the tokens' hashes are stored.
    const stored = await t.db.query<{ token_hash: Buffer }>(`SELECT token_hash FROM media_play_links`);
    expect(stored).toHaveLength(2);
    for (const link of links) expect(stored.some((r) => Buffer.from(r.token_hash).toString('latin1').includes(link.slice(base.length, -1)))).toBe(false);

    const pages = await Promise.all(links.map((l) => t.app.inject({ method: 'GET', url: l.slice(t.config.http.publicUrl.length) })));
    const kinds: string[] = [];
    for (const page of pages) {
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-security-policy']).toContain('media-src');
      const m = /<(audio|video) controls[^>]* src="([^"]+)"/.exec(page.body);
      expect(m, page.body).not.toBeNull();
      kinds.push(m![1]);
      const media = await fetchSigned(t, m![2].replace(/&amp;/g, '&'));
      expect(media.status).toBe(200);
      expect(media.body.length).toBeGreaterThan(1000);
    }
    expect(kinds.sort()).toEqual(['audio', 'video']);

    // A made-up token, and a deleted memory's links: nothing there.
    expect((await t.app.inject({ method: 'GET', url: `/play/${'x'.repeat(40)}/` })).statusCode).toBe(404);
    expect((await t.delete(`/api/v1/books/${slug}/submissions/${submissionId}/`, { token: owner.token })).status).toBe(204);
    for (const l of links) expect((await t.app.inject({ method: 'GET', url: l.slice(t.config.http.publicUrl.length) })).statusCode).toBe(404);
  }, 300_000);
});
