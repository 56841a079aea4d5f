/**
 * The form key: the contributor form of a book that is not public opens only
 * with /b/{slug}/?key=<key>; without it, or with a wrong one, the book is
 * unknown (404, GET and POST). The owner rotates the key through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser } from '../../helpers/factories.js';
import { formPathOf, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const keyOf = async (slug: string) => (await t.db.query<{ form_key: string }>(`SELECT form_key FROM books WHERE slug = $1`, [slug]))[0].form_key;
const submissionCount = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]))[0].n;

async function post(path: string, client = webClient(t)) {
  await client.get('/accounts/login/'); // a csrftoken cookie
  return client.submit(path, { name: 'Mallory', text: 'Anonymous words for a private book.' });
}

describe('a book that is not public', () => {
  it('answers as an unknown book without its key, with a wrong one, or with a blank one: GET and POST, nothing stored, no title shown', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { title: 'Grandma Rose turns 90' });
    const key = await keyOf(slug);
    expect(key).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    const wrong = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    for (const path of [`/b/${slug}/`, `/b/${slug}/?key=`, `/b/${slug}/?key=${wrong}`, `/b/${slug}/?key=${key.slice(0, 10)}`, `/b/${slug}/thanks/`, `/b/${slug}/?key=${key}&key=${key}`]) {
      const page = await webClient(t).get(path);
      expect(page.status, path).toBe(404);
      expect(page.text).not.toContain('Grandma Rose');
      if (!path.includes('thanks')) expect((await post(path)).status, path).toBe(404);
    }
    // The same page as a book that does not exist.
    const unknown = await webClient(t).get('/b/no-such-book-anywhere/');
    expect((await webClient(t).get(`/b/${slug}/`)).text).toBe(unknown.text);
    expect(await submissionCount(slug)).toBe(0);
  });

  it('opens with its key: the page, the post, the thanks page and "share another" all carry it', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { title: 'Lake House' });
    const path = await formPathOf(t, slug);
    expect(path).toBe(`/b/${slug}/?key=${await keyOf(slug)}`);
    const c = webClient(t);
    const page = await c.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Lake House');
    expect(page.text).toContain(`action="${path}"`);
    const sent = await c.submit(path, { name: 'Aunt May', text: 'The summer at the lake.' });
    expect(sent.status).toBe(303);
    expect(sent.headers.location).toBe(`/b/${slug}/thanks/?key=${await keyOf(slug)}`);
    const thanks = await c.get(String(sent.headers.location));
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain(`href="${path}"`);
    expect(await submissionCount(slug)).toBe(1);
  });

  it("the web channel row's address carries the key", async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const res = await t.get(`/api/v1/books/${slug}/channels/`, { token: owner.token });
    const web = (res.body.items as any[]).find((r) => r.channel === 'web');
    const url = `${t.config.http.publicUrl}/b/${slug}/?key=${await keyOf(slug)}`;
    expect(web).toMatchObject({ address: url, deep_link: url });
    expect((await webClient(t).get(url.slice(t.config.http.publicUrl.length))).status).toBe(200);
  });
});

describe('a public book', () => {
  it('keeps its form open without a key (and a key does no harm)', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { isPublic: true });
    expect((await webClient(t).get(`/b/${slug}/`)).status).toBe(200);
    expect((await post(`/b/${slug}/`)).status).toBe(303);
    expect((await webClient(t).get(`/b/${slug}/?key=whatever-it-is-here`)).status).toBe(200);
    const web = ((await t.get(`/api/v1/books/${slug}/channels/`, { token: owner.token })).body.items as any[]).find((r) => r.channel === 'web');
    expect(web.address).toBe(`${t.config.http.publicUrl}/b/${slug}/`);
  });

  it('made private, it needs the key from then on', async () => {
    const owner = await newUser(t);
    const { slug, etag } = await newBook(t, owner, { isPublic: true });
    const res = await t.patch(`/api/v1/books/${slug}/`, { is_public: false }, { token: owner.token, headers: { 'if-match': etag } });
    expect(res.status).toBe(200);
    expect((await webClient(t).get(`/b/${slug}/`)).status).toBe(404);
    expect((await webClient(t).get(await formPathOf(t, slug))).status).toBe(200);
  });
});

describe('POST /api/v1/books/{slug}/form_key/rotate/', () => {
  const rotate = (slug: string, token: string, o: { idempotencyKey?: string | false } = {}) =>
    t.post(`/api/v1/books/${slug}/form_key/rotate/`, undefined, { token, ...o });

  it('owner: a new key; the old link answers 404, the new address opens the form', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const oldPath = await formPathOf(t, slug);
    const res = await rotate(slug, owner.token);
    expect(res.status).toBe(200);
    const key = await keyOf(slug);
    expect(oldPath).not.toContain(key);
    const url = `${t.config.http.publicUrl}/b/${slug}/?key=${key}`;
    expect(res.body).toEqual({ channel: 'web', enabled: true, plan_allowed: true, platform_configured: true, address: url, deep_link: url });
    expect((await webClient(t).get(oldPath)).status).toBe(404);
    expect((await post(oldPath)).status).toBe(404);
    expect((await webClient(t).get(`/b/${slug}/?key=${key}`)).status).toBe(200);
    // The book changed (its ETag moved): its owner hears of it as book.updated.
    const book = (await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body;
    const [event] = (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'book.updated', book_slug: slug } })).body.items;
    expect(event.data.object).toEqual(book);
  });

  it('is idempotency-keyed: a retry with the same key answers the same address and rotates nothing more', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const first = await rotate(slug, owner.token, { idempotencyKey: 'rotate-once-1' });
    const key = await keyOf(slug);
    const again = await rotate(slug, owner.token, { idempotencyKey: 'rotate-once-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await keyOf(slug)).toBe(key);
    const missing = await rotate(slug, owner.token, { idempotencyKey: false });
    expect(missing.status).toBe(428);
  });

  it('403 for an admin or a contributor, 404 for anyone outside the book and for an unknown book; the key unchanged', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const key = await keyOf(slug);
    const admin = await newUser(t);
    const contributor = await newUser(t);
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, contributor, 'contributor');
    const stranger = await newUser(t);
    expect((await rotate(slug, admin.token)).status).toBe(403);
    expect((await rotate(slug, admin.token)).body.code).toBe('insufficient_role');
    expect((await rotate(slug, contributor.token)).status).toBe(403);
    expect((await rotate(slug, stranger.token)).status).toBe(404);
    expect((await rotate('no-such-book-anywhere', owner.token)).status).toBe(404);
    expect(await keyOf(slug)).toBe(key);
  });

  it('401 without credentials', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    expect((await t.post(`/api/v1/books/${slug}/form_key/rotate/`, undefined)).status).toBe(401);
  });
});
