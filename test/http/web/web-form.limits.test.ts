/** The contributor form's limits: posts per address, the photo's size, the book's storage. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook as createBook, newUser } from '../../helpers/factories.js';
import { bigFileStream, readFixture } from '../../helpers/media-fixtures.js';
import { multipart, type Part } from '../../helpers/multipart.js';
import { PHOTO_CAP_BYTES } from '../../../src/services/media/media-policy.js';
import { webClient, formPathOf } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WEB_FORM_RATE_LIMIT: '3', WEB_FORM_RATE_WINDOW_SECONDS: '600' } });
});

/** The form's path with the book's key (books here are not public), as its links carry it. */
const formPaths = new Map<string, string>();
const form = (slug: string) => formPaths.get(slug) ?? `/b/${slug}/`;
const newBook: typeof createBook = async (...args) => {
  const book = await createBook(...args);
  formPaths.set(book.slug, await formPathOf(t, book.slug));
  return book;
};
const count = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]))[0].n;
const mediaOf = (slug: string) => t.db.query(`SELECT m.id FROM media m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]);

async function toBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const words = (text = 'A memory'): Part[] => [
  { name: 'name', data: 'Aunt May' },
  { name: 'text', data: text },
];

describe('rate limit per client address', () => {
  it('429 with Retry-After after the limit, whatever the outcome of the earlier posts; another address still sends', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = webClient(t, { ip: '10.77.0.1' });
    await c.get(form(slug));
    expect((await c.submitMultipart(form(slug), words('one'))).status).toBe(303);
    expect((await c.submitMultipart(form(slug), [{ name: 'name', data: '' }, { name: 'text', data: 'two' }])).status).toBe(400);
    expect((await c.submitMultipart(form(slug), words('three'))).status).toBe(303);
    const blocked = await c.submitMultipart(form(slug), words('four'));
    expect(blocked.status).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/^text\/html/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(blocked.text).toContain('Please wait a moment');
    expect(await count(slug)).toBe(2);
    // Counted per address across books.
    const other = await newBook(t, await newUser(t));
    await c.get(form(other.slug));
    expect((await c.submitMultipart(form(other.slug), words())).status).toBe(429);

    const d = webClient(t, { ip: '10.77.0.2' });
    await d.get(form(slug));
    expect((await d.submitMultipart(form(slug), words('five'))).status).toBe(303);
    expect(await count(slug)).toBe(3);
  });

  it('reading the form is not limited', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = webClient(t, { ip: '10.77.1.1' });
    for (let i = 0; i < 6; i++) expect((await c.get(form(slug))).status).toBe(200);
  });
});

describe('photo size', () => {
  it('a photo over 20 MB: 413 while it streams, the words kept, nothing stored', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = webClient(t);
    await c.get(form(slug));
    const before = await t.db.query(`SELECT key FROM pending_objects`);
    // Declared small enough to be read, so the cap is met in the stream: a body with a little of the photo's bytes past it.
    const big = await toBuffer(bigFileStream('jpeg', PHOTO_CAP_BYTES + 1));
    const res = await c.submitMultipart(form(slug), [...words('The lake, 1990'), { name: 'photo', filename: 'huge.jpg', contentType: 'image/jpeg', data: big }]);
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('That photo is too big: photos can be up to 20 MB.');
    expect(res.text).toContain('The lake, 1990</textarea>');
    expect(res.text).toMatch(/id="photo"[^>]*aria-invalid="true"/);
    expect(await count(slug)).toBe(0);
    expect(await mediaOf(slug)).toEqual([]);
    expect(await t.db.query(`SELECT key FROM pending_objects`)).toEqual(before);
  });

  it('a photo exactly at the cap is taken', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const c = webClient(t);
    await c.get(form(slug));
    const data = await toBuffer(bigFileStream('jpeg', PHOTO_CAP_BYTES));
    const res = await c.submitMultipart(form(slug), [...words(), { name: 'photo', filename: 'big.jpg', contentType: 'image/jpeg', data }]);
    expect(res.status).toBe(303);
    expect(await mediaOf(slug)).toHaveLength(1);
  });

  it('a declared Content-Length over the form’s ceiling: 413 before the photo is read, the words kept', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = webClient(t);
    await c.get(form(slug));
    const body = multipart([{ name: 'csrfmiddlewaretoken', data: c.jar.get('csrftoken')! }, ...words()]);
    const res = await t.app.inject({
      method: 'POST',
      url: form(slug),
      remoteAddress: c.ip,
      headers: {
        cookie: c.cookieHeader(),
        origin: t.config.http.publicOrigin,
        'content-type': body.contentType,
        'content-length': String(PHOTO_CAP_BYTES + 1024 * 1024),
      },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(res.body).toContain('That photo is too big');
    // Nothing typed is lost: the words come before the photo, and come back in the form.
    for (const w of words()) expect(res.body).toContain(String(w.data).slice(0, 20));
    expect(await count(slug)).toBe(0);
  });

  it('an urlencoded form (no photo) over the fields’ size: 413', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = webClient(t);
    await c.get(form(slug));
    const res = await c.submit(form(slug), { name: 'Aunt May', text: 'm'.repeat(300 * 1024) });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(await count(slug)).toBe(0);
  });

  it('a book without storage left: 402, the memory can go without the photo', async () => {
    const { slug } = await newBook(t, await newUser(t));
    await t.db.query(`UPDATE books SET storage_used_bytes = (SELECT storage_bytes_per_book FROM plans WHERE slug = books.plan_slug) - 10 WHERE slug = $1`, [slug]);
    const c = webClient(t);
    await c.get(form(slug));
    const jpeg = await readFixture('jpeg');
    const res = await c.submitMultipart(form(slug), [...words(), { name: 'photo', filename: 'a.jpg', contentType: 'image/jpeg', data: jpeg }]);
    expect(res.status).toBe(402);
    expect(res.text).toContain('no room for more photos');
    expect(await count(slug)).toBe(0);
    expect((await c.submitMultipart(form(slug), words())).status).toBe(303);
  });

  it('two photos: 400, one at a time', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = webClient(t);
    await c.get(form(slug));
    const jpeg = await readFixture('jpeg');
    const photo = { name: 'photo', filename: 'a.jpg', contentType: 'image/jpeg', data: jpeg };
    const res = await c.submitMultipart(form(slug), [...words(), photo, photo]);
    expect(res.status).toBe(400);
    expect(res.text).toContain('one photo at a time');
    expect(await count(slug)).toBe(0);
    expect(await mediaOf(slug)).toEqual([]);
  });
});
