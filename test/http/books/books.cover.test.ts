/**
 * A book's cover (contract-decisions, "Cover"): PUT /books/{slug}/cover/ (an
 * upload through the media intake), PATCH cover_media_id / cover_focal_point,
 * DELETE /books/{slug}/cover/, for each role, with bad input, and the
 * book.updated each change is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSharp, MAX_IMAGE_PIXELS } from '../../../src/media-tools/sharp.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { fileUpload } from '../../helpers/multipart.js';
import { buildMediaApp, upload, type MediaTestApp } from '../media/media-setup.js';
import { pixelBombPng } from '../media/pixel-bomb.js';
import { fetchSigned } from '../exports/exports-setup.js';
import pg from 'pg';
import { backendName, TEST_DATABASE_URL } from '../../helpers/test-db.js';
import type { ObjectStore } from '../../../src/storage/object-store.js';

let t: MediaTestApp;
let owner: TestUser;
let admin: TestUser;
let contributor: TestUser;
let outsider: TestUser;
/** Called as the service reads a stored file to work on it (subject detection reads the photo this way). */
let onLocalCopy: ((key: string) => Promise<void>) | null = null;
const watchLocalCopies = (real: ObjectStore): ObjectStore =>
  new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'localCopy') {
        return async (key: string, o?: { signal?: AbortSignal }) => {
          await onLocalCopy?.(key);
          return target.localCopy(key, o);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });

beforeAll(async () => {
  t = await buildMediaApp('local', { worker: false, wrapStore: watchLocalCopies });
  [owner, admin, contributor, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t)]);
});
afterAll(() => t?.close());

/** A JPEG whose subject (a bright red disc on grey) sits at (sx, sy) of its width and height. */
async function photo(sx = 0.2, sy = 0.5, w = 600, h = 400): Promise<Buffer> {
  const sharp = await loadSharp();
  const r = Math.round(h / 8);
  const disc = Buffer.from(`<svg width="${w}" height="${h}"><circle cx="${Math.round(sx * w)}" cy="${Math.round(sy * h)}" r="${r}" fill="#ff2020"/></svg>`);
  return sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).composite([{ input: disc }]).jpeg().toBuffer();
}

const coverPath = (slug: string) => `/api/v1/books/${slug}/cover/`;
function putCover(user: Pick<TestUser, 'token'>, slug: string, data: Buffer, o: { filename?: string; contentType?: string; key?: string } = {}) {
  const body = fileUpload(data, { filename: o.filename ?? 'cover.jpg', contentType: o.contentType ?? 'image/jpeg' });
  return t.request('PUT', coverPath(slug), {
    token: user.token,
    payload: body.payload,
    headers: { 'content-type': body.contentType, ...(o.key ? { 'idempotency-key': o.key } : {}) },
  });
}

async function bookWithMembers(plan?: string) {
  const b = await newBook(t, owner, plan ? { plan } : {});
  await addMember(t, b.slug, admin, 'admin');
  await addMember(t, b.slug, contributor, 'contributor');
  return b;
}

const storageUsed = async (slug: string) => Number((await t.db.query<{ n: string }>(`SELECT storage_used_bytes AS n FROM books WHERE slug = $1`, [slug]))[0]!.n);
const coverEvents = async (slug: string) => (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'book.updated', book_slug: slug } })).body.items;

describe('PUT /books/{slug}/cover/', () => {
  it('owner and admin upload a cover: the book answers with it (signed url, size, detected focal point), ETag moves, book.updated, storage counted', async () => {
    const b = await bookWithMembers();
    const before = await storageUsed(b.slug);
    const jpeg = await photo(0.2, 0.5);
    const res = await putCover(owner, b.slug, jpeg, { key: 'cover-1' });
    expect(res.status).toBe(200);
    expect(res.body.cover).toMatchObject({ media_id: expect.any(String), url: expect.stringMatching(/^http/), width: 600, height: 400 });
    expect(res.body.cover.focal_point.x).toBeLessThan(0.4);
    expect(res.body.cover.focal_point.y).toBeGreaterThan(0.3);
    expect(res.body.etag).not.toBe(b.etag);
    expect(res.headers.etag).toBe(res.body.etag);
    expect(await storageUsed(b.slug)).toBe(before + jpeg.length);
    // The signed URL gives the bytes uploaded.
    const file = await fetchSigned(t, res.body.cover.url);
    expect(file.status).toBe(200);
    expect(file.body.equals(jpeg)).toBe(true);

    // Keyed: the same key and file answer the same book, once.
    const again = await putCover(owner, b.slug, jpeg, { key: 'cover-1' });
    expect(again.status).toBe(200);
    expect(again.body.cover.media_id).toBe(res.body.cover.media_id);
    expect(await storageUsed(b.slug)).toBe(before + jpeg.length);

    // GET and the list show it too.
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).body.cover.media_id).toBe(res.body.cover.media_id);
    const listed = (await t.get('/api/v1/books/', { token: owner.token })).body.items.find((x: { slug: string }) => x.slug === b.slug);
    expect(listed.cover).toMatchObject({ media_id: res.body.cover.media_id, width: 600, height: 400 });

    // An admin replaces it: the first upload goes with its bytes.
    const second = await photo(0.8, 0.5);
    const byAdmin = await putCover(admin, b.slug, second);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.cover.media_id).not.toBe(res.body.cover.media_id);
    expect(byAdmin.body.cover.focal_point.x).toBeGreaterThan(0.6);
    expect(await storageUsed(b.slug)).toBe(before + second.length);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media WHERE id = $1`, [res.body.cover.media_id]);
    expect(n).toBe(0);

    const events = await coverEvents(b.slug);
    expect(events.map((e: { data: { object: { cover: { media_id: string } | null } } }) => e.data.object.cover?.media_id)).toEqual(
      expect.arrayContaining([res.body.cover.media_id, byAdmin.body.cover.media_id]),
    );
  });

  it('a contributor gets 403, an outsider 404, and nothing is stored', async () => {
    const b = await bookWithMembers();
    const jpeg = await photo();
    const keys = await t.storedKeys();
    const c = await putCover(contributor, b.slug, jpeg);
    expect(c.status).toBe(403);
    expect(c.body.code).toBe('insufficient_role');
    const o = await putCover(outsider, b.slug, jpeg);
    expect(o.status).toBe(404);
    expect(o.body.code).toBe('not_found');
    expect(await t.storedKeys()).toEqual(keys);
  });

  it('bad uploads: not an image 400, over 100 megapixels 400 too_many_pixels, over the photo cap 413, past the plan storage 402; nothing stored', async () => {
    const b = await bookWithMembers();
    const keys = await t.storedKeys();
    const pdf = await putCover(owner, b.slug, Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'), { filename: 'x.pdf', contentType: 'image/jpeg' });
    expect(pdf.status).toBe(400);
    expect(pdf.body).toMatchObject({ code: 'validation_failed', details: { field: 'file', detected_mime_type: 'application/pdf' } });

    const bomb = await putCover(owner, b.slug, pixelBombPng(12_000, 12_000), { filename: 'small.png', contentType: 'image/png' });
    expect(bomb.status).toBe(400);
    expect(bomb.body).toMatchObject({ code: 'validation_failed', details: { field: 'file', reason: 'too_many_pixels', max_pixels: MAX_IMAGE_PIXELS } });

    // A JPEG head followed by 21 MB: over the photo cap while it streams.
    const big = Buffer.concat([await photo(), Buffer.alloc(21 * 1024 * 1024)]);
    const tooBig = await putCover(owner, b.slug, big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('payload_too_large');

    // The book's storage nearly full: 402 plan_limit_exceeded.
    await t.db.query(`UPDATE books SET storage_used_bytes = (SELECT storage_bytes_per_book FROM plans p WHERE p.slug = books.plan_slug) - 10 WHERE slug = $1`, [b.slug]);
    const full = await putCover(owner, b.slug, await photo());
    expect(full.status).toBe(402);
    expect(full.body.code).toBe('plan_limit_exceeded');

    expect(await t.storedKeys()).toEqual(keys);
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).body.cover).toBeNull();
  });
});

describe('PATCH cover_media_id and cover_focal_point, DELETE …/cover/', () => {
  it("chooses a memory's photo (focused on its subject), moves the focus, returns to automatic; each a book.updated", async () => {
    const b = await bookWithMembers();
    const sub = await newSubmission(t, b.slug, owner);
    const up = await upload(t, owner, b.slug, sub.id, await photo(0.75, 0.25), { filename: 'p.jpg', contentType: 'image/jpeg' });
    expect(up.status).toBe(201);
    const eventsBefore = (await coverEvents(b.slug)).length;

    const chosen = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: up.body.id }, { token: owner.token });
    expect(chosen.status, chosen.text).toBe(200);
    expect(chosen.body.cover).toMatchObject({ media_id: up.body.id, url: expect.stringMatching(/^http/) });
    expect(chosen.body.cover.focal_point.x).toBeGreaterThan(0.6);
    expect(chosen.body.cover.focal_point.y).toBeLessThan(0.4);

    const moved = await t.patch(`/api/v1/books/${b.slug}/`, { cover_focal_point: { x: 0.1, y: 0.9 } }, { token: admin.token, headers: { 'if-match': chosen.body.etag } });
    expect(moved.status).toBe(200);
    expect(moved.body.cover).toMatchObject({ media_id: up.body.id, focal_point: { x: 0.1, y: 0.9 } });
    expect(moved.body.etag).not.toBe(chosen.body.etag);

    const back = await t.delete(coverPath(b.slug), { token: owner.token });
    expect(back.status).toBe(200);
    expect(back.body.cover).toBeNull();
    // The memory's photo stays in its memory.
    expect((await t.get(`/api/v1/books/${b.slug}/submissions/${sub.id}/media/${up.body.id}/`, { token: owner.token })).status).toBe(200);
    // Nothing to return from: the book as it is, no event.
    const again = await t.delete(coverPath(b.slug), { token: admin.token });
    expect(again.status).toBe(200);
    expect(again.body.etag).toBe(back.body.etag);

    const events = await coverEvents(b.slug);
    expect(events.length - eventsBefore).toBe(3);
    expect(events[0].data.object.cover).toBeNull();
  });

  it('another book\'s photo or an unknown id: 404; a focus without a cover: 400 no_cover; a focus outside 0..1: 422', async () => {
    const b = await bookWithMembers();
    const other = await newBook(t, owner);
    const otherSub = await newSubmission(t, other.slug, owner);
    const foreign = await upload(t, owner, other.slug, otherSub.id, await photo(), { filename: 'p.jpg', contentType: 'image/jpeg' });
    expect(foreign.status).toBe(201);

    const f = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: foreign.body.id }, { token: owner.token });
    expect(f.status).toBe(404);
    expect(f.body.code).toBe('not_found');
    const unknown = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: '01936f4e-8a1b-7c3d-9e2f-0a1b2c3d4e5f' }, { token: owner.token });
    expect(unknown.status).toBe(404);

    const noCover = await t.patch(`/api/v1/books/${b.slug}/`, { cover_focal_point: { x: 0.5, y: 0.5 } }, { token: owner.token });
    expect(noCover.status).toBe(400);
    expect(noCover.body).toMatchObject({ code: 'validation_failed', details: { field: 'cover_focal_point', reason: 'no_cover' } });

    for (const bad of [{ x: 1.5, y: 0.5 }, { x: -0.1, y: 0.5 }, { x: 0.5 }, { x: 0.5, y: 0.5, z: 1 }]) {
      const res = await t.patch(`/api/v1/books/${b.slug}/`, { cover_focal_point: bad }, { token: owner.token });
      expect(res.status).toBe(422);
    }
    const notUuid = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: 'nope' }, { token: owner.token });
    expect(notUuid.status).toBe(422);
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).body.cover).toBeNull();
  });

  it('a contributor gets 403 and an outsider 404 on PATCH and DELETE', async () => {
    const b = await bookWithMembers();
    const sub = await newSubmission(t, b.slug, contributor);
    const up = await upload(t, contributor, b.slug, sub.id, await photo(), { filename: 'p.jpg', contentType: 'image/jpeg' });
    expect(up.status).toBe(201);
    for (const [user, status] of [
      [contributor, 403],
      [outsider, 404],
    ] as const) {
      expect((await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: up.body.id }, { token: user.token })).status).toBe(status);
      expect((await t.delete(coverPath(b.slug), { token: user.token })).status).toBe(status);
    }
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).body.cover).toBeNull();
  });

  it("deleting the memory's photo that is the cover: the book returns to automatic, its ETag moves, book.updated; so does deleting the memory", async () => {
    for (const how of ['media', 'memory'] as const) {
      const b = await bookWithMembers();
      const sub = await newSubmission(t, b.slug, owner);
      const up = await upload(t, owner, b.slug, sub.id, await photo(), { filename: 'p.jpg', contentType: 'image/jpeg' });
      expect(up.status).toBe(201);
      const chosen = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: up.body.id, cover_focal_point: { x: 0.3, y: 0.3 } }, { token: owner.token });
      expect(chosen.status).toBe(200);
      const eventsBefore = (await coverEvents(b.slug)).length;

      const gone =
        how === 'media'
          ? await t.delete(`/api/v1/books/${b.slug}/submissions/${sub.id}/media/${up.body.id}/`, { token: owner.token })
          : await t.delete(`/api/v1/books/${b.slug}/submissions/${sub.id}/`, { token: owner.token });
      expect(gone.status, gone.text).toBe(204);
      const after = await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token });
      expect(after.body.cover).toBeNull();
      expect(after.body.etag).not.toBe(chosen.body.etag);
      expect(after.headers.etag).toBe(after.body.etag);
      // A conditional write with the old ETag is stale now.
      const stale = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: owner.token, headers: { 'if-match': chosen.body.etag } });
      expect(stale.status).toBe(412);
      const events = await coverEvents(b.slug);
      expect(events.length - eventsBefore, how).toBe(1);
      expect(events[0].data.object.cover).toBeNull();
      expect(events[0].data.object.etag).toBe(after.body.etag);
    }
  });

  it("deleting a memory's photo that is not the cover leaves the book, its ETag and its events alone", async () => {
    const b = await bookWithMembers();
    const sub = await newSubmission(t, b.slug, owner);
    const [cover, other] = [
      await upload(t, owner, b.slug, sub.id, await photo(), { filename: 'a.jpg', contentType: 'image/jpeg' }),
      await upload(t, owner, b.slug, sub.id, await photo(), { filename: 'b.jpg', contentType: 'image/jpeg' }),
    ];
    const chosen = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: cover.body.id }, { token: owner.token });
    expect(chosen.status).toBe(200);
    const eventsBefore = (await coverEvents(b.slug)).length;
    expect((await t.delete(`/api/v1/books/${b.slug}/submissions/${sub.id}/media/${other.body.id}/`, { token: owner.token })).status).toBe(204);
    const after = await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token });
    expect(after.body.cover.media_id).toBe(cover.body.id);
    expect(after.body.etag).toBe(chosen.body.etag);
    expect((await coverEvents(b.slug)).length).toBe(eventsBefore);
  });

  it("a processed photo: the cover is focused on the subject its processing stored, without reading the photo again", async () => {
    const b = await bookWithMembers();
    const sub = await newSubmission(t, b.slug, owner);
    const up = await upload(t, owner, b.slug, sub.id, await photo(0.75, 0.25), { filename: 'p.jpg', contentType: 'image/jpeg' });
    expect(up.status).toBe(201);
    await t.services.mediaProcessing.process(up.body.id, { signal: new AbortController().signal, lastAttempt: true });
    const [{ subject }] = await t.db.query<{ subject: { version: number; faces: unknown[]; attention: { x: number; y: number } } }>(`SELECT subject FROM media WHERE id = $1`, [up.body.id]);
    expect(subject).toMatchObject({ version: 1, faces: [] });
    expect(subject.attention.x).toBeGreaterThan(0.6);
    expect(subject.attention.y).toBeLessThan(0.4);
    const reads: string[] = [];
    onLocalCopy = async (key) => void reads.push(key);
    try {
      const chosen = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: up.body.id }, { token: owner.token });
      expect(chosen.status, chosen.text).toBe(200);
      expect(chosen.body.cover.focal_point.x).toBeCloseTo(subject.attention.x, 6);
      expect(chosen.body.cover.focal_point.y).toBeCloseTo(subject.attention.y, 6);
    } finally {
      onLocalCopy = null;
    }
    expect(reads).toEqual([]);
  });

  it('an uploaded cover keeps the subject found when it was examined, with its row, as processing does for a memory’s photo', async () => {
    const b = await bookWithMembers();
    const res = await putCover(owner, b.slug, await photo(0.2, 0.7));
    expect(res.status, res.text).toBe(200);
    const [{ subject }] = await t.db.query<{ subject: { version: number; faces: unknown[]; attention: { x: number; y: number } } }>(`SELECT subject FROM media WHERE id = $1`, [res.body.cover.media_id]);
    expect(subject).toMatchObject({ version: 1, faces: [] });
    expect(res.body.cover.focal_point.x).toBeCloseTo(subject.attention.x, 6);
    expect(res.body.cover.focal_point.y).toBeCloseTo(subject.attention.y, 6);
    expect(res.body.cover.focal_point.x).toBeLessThan(0.4);
  });

  it("choosing a memory's photo finds its subject before the book is locked", async () => {
    const b = await bookWithMembers();
    const sub = await newSubmission(t, b.slug, owner);
    const up = await upload(t, owner, b.slug, sub.id, await photo(0.75, 0.25), { filename: 'p.jpg', contentType: 'image/jpeg' });
    expect(up.status).toBe(201);
    const reads: { key: string; bookLocked: boolean | null }[] = [];
    // PostgreSQL: a connection of the test's own tries the book's row lock without waiting. (PGlite has
    // one connection, held by the request's transaction: there the order of work is all there is to see.)
    const [{ schema }] = await t.db.query<{ schema: string }>(`SELECT current_schema() AS schema`);
    const probe = TEST_DATABASE_URL ? new pg.Client({ connectionString: TEST_DATABASE_URL }) : null;
    await probe?.connect();
    onLocalCopy = async (key) => {
      let bookLocked: boolean | null = null;
      if (probe) {
        await probe.query('BEGIN');
        bookLocked = await probe
          .query(`SELECT 1 FROM ${schema}.books WHERE slug = $1 FOR NO KEY UPDATE NOWAIT`, [b.slug])
          .then(() => false)
          .catch((err: { code?: string }) => {
            if (err.code === '55P03') return true;
            throw err;
          })
          .finally(() => probe.query('ROLLBACK'));
      }
      reads.push({ key, bookLocked });
    };
    try {
      const chosen = await t.patch(`/api/v1/books/${b.slug}/`, { cover_media_id: up.body.id }, { token: owner.token });
      expect(chosen.status, chosen.text).toBe(200);
      expect(chosen.body.cover.focal_point.x).toBeGreaterThan(0.6);
      expect(chosen.body.cover.focal_point.y).toBeLessThan(0.4);
    } finally {
      onLocalCopy = null;
      await probe?.end();
    }
    // The photo was read once, to find its subject, and (on PostgreSQL) the book was not locked meanwhile.
    expect(reads).toHaveLength(1);
    expect(reads[0]!.bookLocked).toBe(backendName === 'postgres' ? false : null);
  });
});
