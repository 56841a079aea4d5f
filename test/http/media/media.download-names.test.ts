/**
 * Downloads are named for what they are: the file name a browser saves ends
 * in the extension of the type detected from the bytes (a GIF that claims to
 * be `p.html` saves as `p.html.gif`), on both stores. And the local store's
 * signed links are read-only: another method is 405 with Allow.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { buildMediaApp, fetchSigned, STORES, upload, type MediaTestApp } from './media-setup.js';

/** A real 1×1 GIF with an HTML page after it: a browser sniffing it as HTML would run the script. */
async function gifHtmlPolyglot(): Promise<Buffer> {
  const gif = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).gif().toBuffer();
  return Buffer.concat([gif, Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')]);
}

const filenameOf = (disposition: string | undefined) => /filename="([^"]*)"/.exec(disposition ?? '')?.[1];

describe.each(STORES)('download names on the %s store', (store) => {
  let t: MediaTestApp;
  let owner: TestUser;
  let slug: string;
  let submissionId: string;
  beforeAll(async () => {
    t = await buildMediaApp(store, { worker: false });
    owner = await newUser(t);
    slug = (await newBook(t, owner)).slug;
    submissionId = (await newSubmission(t, slug, owner)).id;
  });
  afterAll(() => t?.close());

  it.each([
    ['p.html', 'p.html.gif'],
    ['photo', 'photo.gif'],
    ['Party.GIF', 'Party.GIF'],
  ])('a GIF uploaded as %s downloads as %s', async (name, expected) => {
    const res = await upload(t, owner, slug, submissionId, await gifHtmlPolyglot(), { filename: name, contentType: 'text/html' });
    expect(res.status).toBe(201);
    expect(res.body.mime_type).toBe('image/gif');
    const file = await fetchSigned(t, res.body.download_url);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/gif');
    expect(file.headers['content-disposition']).toMatch(/^attachment/);
    expect(filenameOf(file.headers['content-disposition'])).toBe(expected);
  });

  it('a JPEG named .jpeg keeps its name', async () => {
    const res = await upload(t, owner, slug, submissionId, await readFixture('jpeg'), { filename: 'beach.jpeg', contentType: 'image/jpeg' });
    const file = await fetchSigned(t, res.body.download_url);
    expect(filenameOf(file.headers['content-disposition'])).toBe('beach.jpeg');
  });

  it.runIf(store === 'local')('another method on a signed link: 405 with Allow and the error envelope', async () => {
    const res = await upload(t, owner, slug, submissionId, await readFixture('png'), { filename: 'a.png' });
    const url = new URL(res.body.download_url);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const r = await t.app.inject({ method, url: `${url.pathname}${url.search}`, headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect(r.statusCode, method).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
      const body = r.json();
      expect(body).toMatchObject({ code: 'method_not_allowed', details: { allowed: ['GET', 'HEAD'] } });
      expect(body.request_id).toBe(r.headers['x-request-id']);
    }
    // Still readable, and unchanged.
    expect((await fetchSigned(t, res.body.download_url)).status).toBe(200);
  });
});
