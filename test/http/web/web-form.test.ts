/**
 * The public contributor form of a book, /b/{slug}/ (the `web` channel):
 * who may see it, and what a sent memory becomes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newBook as createBook, newUser, setGrace, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import type { Part } from '../../helpers/multipart.js';
import { formCsrf, webClient, formPathOf } from './web-client.js';

let t: TestApp;
let jpeg: Buffer;
beforeAll(async () => {
  t = await buildTestApp({ worker: true });
  jpeg = await readFixture('jpeg');
});

/** The form's path with the book's key (books here are not public), as its links carry it. */
const formPaths = new Map<string, string>();
const form = (slug: string) => formPaths.get(slug) ?? `/b/${slug}/`;
const newBook: typeof createBook = async (...args) => {
  const book = await createBook(...args);
  formPaths.set(book.slug, await formPathOf(t, book.slug));
  return book;
};

/** The parts a browser sends for the form, in its order (the CSRF field is added by the client). */
function fields(o: { name?: string; text?: string; photo?: { data: Buffer; filename: string; contentType: string } | null } = {}): Part[] {
  return [
    { name: 'name', data: o.name ?? 'Aunt May' },
    { name: 'text', data: o.text ?? 'The summer we all learned to swim in the lake.' },
    // An empty file input still sends its part, with no file name and no bytes.
    o.photo ? { name: 'photo', ...o.photo } : { name: 'photo', filename: '', contentType: 'application/octet-stream', data: '' },
  ];
}

async function openForm(slug: string, client = webClient(t)) {
  const page = await client.get(form(slug));
  expect(page.status).toBe(200);
  return client;
}

async function submissionsOf(owner: TestUser, slug: string) {
  const res = await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.items as any[];
}

const count = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]))[0].n;

describe('GET /b/{slug}/', () => {
  it('shows the book and an accessible form: labels for every field, a photo input for images, the CSRF field first', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { title: 'Grandma turns 90', theme: 'wedding_album' });
    const res = await webClient(t).get(form(slug));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Grandma turns 90');
    expect(res.text).toContain('class="theme-wedding_album"');
    expect(res.text).toMatch(/<form id="memory-form" method="post" action="\/b\/[^"]+\/\?key=[A-Za-z0-9_-]+" enctype="multipart\/form-data"/);
    for (const id of ['name', 'text', 'photo']) expect(res.text).toContain(`<label for="${id}">`);
    expect(res.text).toContain('accept="image/*"');
    const csrf = res.cookies.csrftoken.value;
    expect(formCsrf(res.text)).toBe(csrf);
    expect(res.text.indexOf('csrfmiddlewaretoken')).toBeLessThan(res.text.indexOf('name="name"'));
    // Its own sources only: the title face and the local preview of a chosen photo.
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("font-src 'self'");
    expect(csp).toContain("img-src 'self' blob:");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('serves the theme stylesheet and its title typeface', async () => {
    const page = await webClient(t).get(form((await newBook(t, await newUser(t))).slug));
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)![1];
    const css = await t.app.inject({ method: 'GET', url: href });
    expect(css.statusCode).toBe(200);
    expect(css.body).toContain('.theme-elegant_classic');
    const font = await t.app.inject({ method: 'GET', url: '/static/fonts/elegant_classic-title.ttf' });
    expect(font.statusCode).toBe(200);
    expect(font.headers['content-type']).toBe('font/ttf');
    expect(font.rawPayload.subarray(0, 4).toString('hex')).toBe('00010000'); // a TrueType file
  });

  it('is 404 for an unknown slug, and for a malformed one', async () => {
    for (const slug of ['no-such-book', 'Bad..Slug', 'x'.repeat(300)]) {
      const res = await webClient(t).get(form(slug));
      expect(res.status).toBe(404);
      expect(res.text).toContain('This memory book isn’t open here');
    }
  });
});

describe('closed books are 404 like unknown ones, and take nothing', () => {
  const CLOSE: [string, (owner: TestUser, slug: string) => Promise<void>][] = [
    ['archived', async (owner, slug) => void expect((await t.post(`/api/v1/books/${slug}/archive/`, {}, { token: owner.token })).status).toBe(200)],
    ['deleted', async (owner, slug) => void expect((await t.delete(`/api/v1/books/${slug}/`, { token: owner.token })).status).toBeLessThan(300)],
    ['in its billing grace period', async (_owner, slug) => setGrace(t, slug, true)],
    [
      'with the web channel switched off by the owner',
      async (owner, slug) => void expect((await t.patch(`/api/v1/books/${slug}/`, { settings: { channels: { web: false } } }, { token: owner.token })).status).toBe(200),
    ],
    [
      'on a plan without the web channel',
      async (_owner, slug) => {
        await t.db.query(
          `INSERT INTO plans (slug, name, features, max_members_per_book, storage_bytes_per_book, channels)
           SELECT 'no-web', 'No web', features, max_members_per_book, storage_bytes_per_book, '{email}' FROM plans WHERE slug = 'free'
           ON CONFLICT (slug) DO NOTHING`,
        );
        await t.db.query(`UPDATE books SET plan_slug = 'no-web' WHERE slug = $1`, [slug]);
      },
    ],
  ];

  it.each(CLOSE)('%s', async (_what, close) => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const c = await openForm(slug); // open until now
    await close(owner, slug);
    const page = await c.get(form(slug));
    expect(page.status).toBe(404);
    expect(page.text).toContain('This memory book isn’t open here');
    const sent = await c.submitMultipart(form(slug), fields({ photo: { data: jpeg, filename: 'lake.jpg', contentType: 'image/jpeg' } }));
    expect(sent.status).toBe(404);
    expect(sent.text).toContain('This memory book isn’t open here');
    expect(await count(slug)).toBe(0);
    expect((await c.get(`${form(slug)}thanks/`)).status).toBe(404);
  });

  it('a switched-off web channel can be switched on again', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    await t.patch(`/api/v1/books/${slug}/`, { settings: { channels: { web: false } } }, { token: owner.token });
    expect((await webClient(t).get(form(slug))).status).toBe(404);
    await t.patch(`/api/v1/books/${slug}/`, { settings: { channels: { web: true } } }, { token: owner.token });
    expect((await webClient(t).get(form(slug))).status).toBe(200);
  });
});

describe('POST /b/{slug}/', () => {
  it('a memory without a photo: 303 to the thank-you page; pending, source web, the name as typed, no user or email', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { title: 'Lake House' });
    const c = await openForm(slug);
    const res = await c.submitMultipart(form(slug), fields({ name: '  Aunt   May ', text: 'First line.\r\nSecond line.\r\n' }));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(await formPathOf(t, slug, 'thanks/'));
    const thanks = await c.get(String(res.headers.location));
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('Thank you!');
    expect(thanks.text).toContain('Lake House');
    expect(thanks.text).toContain(`href="${form(slug)}"`);

    const [s] = await submissionsOf(owner, slug);
    expect(s).toMatchObject({
      status: 'pending',
      source: 'web',
      contributor_name: 'Aunt May',
      contributor_email: null,
      contributor_user: null,
      text_content: 'First line.\nSecond line.',
      is_private: false,
      media: [],
    });
  });

  it('a memory with a photo: the photo is attached as image media, stored, counted and processed', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const c = await openForm(slug);
    const res = await c.submitMultipart(form(slug), fields({ photo: { data: jpeg, filename: 'lake.jpg', contentType: 'image/jpeg' } }));
    expect(res.status).toBe(303);
    const [s] = await submissionsOf(owner, slug);
    expect(s).toMatchObject({ status: 'pending', source: 'web', contributor_name: 'Aunt May' });
    expect(s.media).toHaveLength(1);
    expect(s.media[0]).toMatchObject({ kind: 'image', mime_type: 'image/jpeg', size_bytes: jpeg.length });
    const [media] = await t.db.query<{ uploaded_by: string | null; original_filename: string }>(`SELECT uploaded_by, original_filename FROM media WHERE id = $1`, [s.media[0].id]);
    expect(media).toEqual({ uploaded_by: null, original_filename: 'lake.jpg' });
    const [book] = await t.db.query<{ used: string }>(`SELECT storage_used_bytes::text AS used FROM books WHERE slug = $1`, [slug]);
    expect(Number(book.used)).toBeGreaterThanOrEqual(jpeg.length);
    expect(await t.db.query(`SELECT key FROM pending_objects WHERE key LIKE '%' || $1 || '%'`, [s.media[0].id])).toEqual([]);
    // The processing job ran on the real queue: the picture's size is known.
    const m = await eventually(
      async () => (await t.get(`/api/v1/books/${slug}/submissions/${s.id}/media/${s.media[0].id}/`, { token: owner.token })).body,
      (v) => v.processing_status === 'complete',
    );
    expect(m).toMatchObject({ width: 640, height: 480 });
  });

  it('takes an urlencoded form too (no photo)', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const c = await openForm(slug);
    const res = await c.submit(form(slug), { name: 'Bob', text: 'Hello from the garden.' });
    expect(res.status).toBe(303);
    expect((await submissionsOf(owner, slug))[0]).toMatchObject({ source: 'web', contributor_name: 'Bob', text_content: 'Hello from the garden.' });
  });

  it('accepts the token in the X-CSRFToken header instead of the form field', async () => {
    const { slug } = await newBook(t, await newUser(t));
    const c = await openForm(slug);
    const res = await c.submitMultipart(form(slug), fields(), { csrf: null, headers: { 'x-csrftoken': c.jar.get('csrftoken')! } });
    expect(res.status).toBe(303);
    expect(await count(slug)).toBe(1);
  });

  it('a non-image "photo" is refused with a clear message; what was typed stays in the form; nothing is stored', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const c = await openForm(slug);
    const before = await t.db.query(`SELECT key FROM pending_objects`);
    const pdf = await readFixture('pdf');
    const res = await c.submitMultipart(form(slug), fields({ text: 'Our trip <to> the coast', photo: { data: pdf, filename: 'photo.jpg', contentType: 'image/jpeg' } }));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('That file is not a photo');
    // Plain words: no MIME type for a contributor.
    expect(res.text).not.toContain('application/pdf');
    // GOV.UK's pattern: "Error:" in the title, a summary linking to the photo, the photo tied to its message.
    expect(res.text).toContain('<title>Error: Share a memory');
    expect(res.text).toContain('<a href="#photo">That file is not a photo');
    expect(res.text).toMatch(/id="photo"[^>]* aria-describedby="photo-hint photo-error" aria-invalid="true"/);
    // The words come back (escaped), the photo has to be chosen again.
    expect(res.text).toContain('Our trip &lt;to&gt; the coast</textarea>');
    expect(res.text).toContain('value="Aunt May"');
    expect(await count(slug)).toBe(0);
    expect(await t.db.query(`SELECT m.id FROM media m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug])).toEqual([]);
    expect(await t.db.query(`SELECT key FROM pending_objects`)).toEqual(before);
    // The page still works: sending again without the file goes through.
    expect((await c.submitMultipart(form(slug), fields({ text: 'Our trip to the coast' }))).status).toBe(303);
  });

  it('a boundary over the parser\'s limit, or framing the parser refuses: 400, the form again, nothing stored', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const c = await openForm(slug);
    const before = await t.db.query(`SELECT key FROM pending_objects`);
    for (const boundary of ['b'.repeat(253), 'b'.repeat(300)]) {
      const res = await c.submitMultipart(form(slug), fields({ photo: { data: jpeg, filename: 'a.jpg', contentType: 'image/jpeg' } }), { boundary });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('The form arrived incomplete');
    }
    const empty = await c.submitMultipart(form(slug), fields(), { headers: { 'content-type': 'multipart/form-data; boundary=' } });
    expect([400, 403]).toContain(empty.status); // an empty boundary finds no parts, so no token: refused either way, never 500
    expect(await count(slug)).toBe(0);
    expect(await t.db.query(`SELECT key FROM pending_objects`)).toEqual(before);
    // The longest boundary the parser takes goes through.
    expect((await c.submitMultipart(form(slug), fields(), { boundary: 'b'.repeat(252) })).status).toBe(303);
  });

  it.each([
    ['a blank name', { name: '   ' }, 'name', 'Please tell us your name.'],
    ['a blank memory', { text: ' \r\n ' }, 'text', 'Please write your memory.'],
    ['a name over 200 characters', { name: 'n'.repeat(201) }, 'name', 'at most 200 characters'],
    ['a memory over 20,000 characters', { text: 'm'.repeat(20_001) }, 'text', 'at most 20,000 characters'],
  ] as const)('%s: 400, the form again with the field marked', async (_what, o, field, message) => {
    const { slug } = await newBook(t, await newUser(t));
    const c = await openForm(slug);
    const res = await c.submitMultipart(form(slug), fields({ ...o, photo: { data: jpeg, filename: 'a.jpg', contentType: 'image/jpeg' } }));
    expect(res.status).toBe(400);
    expect(res.text).toContain(message);
    expect(res.text).toMatch(new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
    expect(res.text).toContain('Please add your photo again.');
    expect(await count(slug)).toBe(0);
    expect(await t.db.query(`SELECT m.id FROM media m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug])).toEqual([]);
  });

  describe('CSRF: 403, nothing stored', () => {
    const CASES: [string, (c: ReturnType<typeof webClient>) => Parameters<ReturnType<typeof webClient>['submitMultipart']>[2]][] = [
      ['no token field', () => ({ csrf: null })],
      ['a token that does not match the cookie', () => ({ csrf: 'A'.repeat(43) })],
      ['a foreign Origin', () => ({ origin: 'https://evil.example' })],
      ['neither Origin nor Referer', () => ({ origin: null })],
      ['a wrong X-CSRFToken header beside a right field', () => ({ headers: { 'x-csrftoken': 'B'.repeat(43) } })],
    ];
    it.each(CASES)('%s', async (_what, o) => {
      const { slug } = await newBook(t, await newUser(t));
      const c = await openForm(slug);
      const res = await c.submitMultipart(form(slug), fields({ photo: { data: jpeg, filename: 'a.jpg', contentType: 'image/jpeg' } }), o(c));
      expect(res.status).toBe(403);
      expect(res.text).toContain('Please send the form again');
    expect(res.text).not.toMatch(/X-CSRFToken|csrftoken cookie/i);
      expect(await count(slug)).toBe(0);
    });

    it('no csrftoken cookie', async () => {
      const { slug } = await newBook(t, await newUser(t));
      const c = await openForm(slug);
      const token = c.jar.get('csrftoken')!;
      c.jar.delete('csrftoken');
      expect((await c.submitMultipart(form(slug), fields(), { csrf: token })).status).toBe(403);
      expect(await count(slug)).toBe(0);
    });

    it('the token field after the other fields', async () => {
      const { slug } = await newBook(t, await newUser(t));
      const c = await openForm(slug);
      const res = await c.submitMultipart(form(slug), [...fields(), { name: 'csrfmiddlewaretoken', data: c.jar.get('csrftoken')! }], { csrf: null });
      expect(res.status).toBe(403);
      expect(await count(slug)).toBe(0);
    });

    it('an urlencoded post without the token', async () => {
      const { slug } = await newBook(t, await newUser(t));
      const c = await openForm(slug);
      expect((await c.submit(form(slug), { name: 'x', text: 'y' }, { csrf: null })).status).toBe(403);
      expect(await count(slug)).toBe(0);
    });
  });
});
