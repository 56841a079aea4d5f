/**
 * Who may touch media, and every malformed upload: each answers its
 * documented status and envelope, and leaves nothing behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { multipart } from '../../helpers/multipart.js';
import { mediaPath, upload } from './media-setup.js';
import { createMediaViews } from '../../../src/services/media/media-views.js';
import { SigningError, type ObjectStore } from '../../../src/storage/object-store.js';

let t: TestApp;
let owner: TestUser;
let admin: TestUser;
let contributor: TestUser;
let otherContributor: TestUser;
let stranger: TestUser;
let slug: string;
let ownSub: { id: string };
let othersSub: { id: string };
let photo: Buffer;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, admin, contributor, otherContributor, stranger] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t), newUser(t)]);
  slug = (await newBook(t, owner)).slug;
  await addMember(t, slug, admin, 'admin');
  await addMember(t, slug, contributor, 'contributor');
  await addMember(t, slug, otherContributor, 'contributor');
  ownSub = await newSubmission(t, slug, contributor);
  othersSub = await newSubmission(t, slug, otherContributor);
  photo = await readFixture('jpeg');
});

async function nothingStored() {
  const [{ media }] = await t.db.query<{ media: number }>(`SELECT count(*)::int AS media FROM media`);
  const [{ pending }] = await t.db.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM pending_objects`);
  return { media, pending };
}

describe('who may upload, read and delete', () => {
  it('the author (a contributor) uploads to their own submission', async () => {
    const res = await upload(t, contributor, slug, ownSub.id, photo);
    expect(res.status).toBe(201);
    // Reading and deleting media are owner and admin routes.
    expect((await t.get(res.headers.location as string, { token: contributor.token })).status).toBe(403);
    expect((await t.delete(res.headers.location as string, { token: contributor.token })).body.code).toBe('insufficient_role');
    expect((await t.get(res.headers.location as string, { token: admin.token })).status).toBe(200);
    expect((await t.delete(res.headers.location as string, { token: admin.token })).status).toBe(204);
  });

  it("a contributor uploading to another's submission is 403 insufficient_role", async () => {
    const res = await upload(t, contributor, slug, othersSub.id, photo);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_role');
  });

  it('a non-member is 404 on every media route; so is an unknown or malformed id', async () => {
    const up = await upload(t, owner, slug, ownSub.id, photo);
    expect((await upload(t, stranger, slug, ownSub.id, photo)).status).toBe(404);
    expect((await t.get(up.headers.location as string, { token: stranger.token })).status).toBe(404);
    expect((await t.delete(up.headers.location as string, { token: stranger.token })).status).toBe(404);
    expect((await upload(t, owner, slug, crypto.randomUUID(), photo)).status).toBe(404);
    expect((await upload(t, owner, slug, 'not-an-id', photo)).status).toBe(404);
    expect((await t.get(`${mediaPath(slug, ownSub.id)}nope/`, { token: owner.token })).status).toBe(404);
    expect((await t.get(`${mediaPath(slug, ownSub.id)}${crypto.randomUUID()}/`, { token: owner.token })).status).toBe(404);
    // Media of another submission is not found under this one.
    expect((await t.get(`${mediaPath(slug, othersSub.id)}${up.body.id}/`, { token: owner.token })).status).toBe(404);
  });

  it('a book in its grace period refuses uploads and deletes with 403 book_grace_period', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const up = await upload(t, owner, book.slug, sub.id, photo);
    await t.db.query(`UPDATE books SET billing_status = 'grace_period', grace_period_ends_at = now() + interval '7 days' WHERE slug = $1`, [book.slug]);
    const refused = await upload(t, owner, book.slug, sub.id, photo);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('book_grace_period');
    expect((await t.delete(up.headers.location as string, { token: owner.token })).body.code).toBe('book_grace_period');
    expect((await t.get(up.headers.location as string, { token: owner.token })).status).toBe(200);
  });
});

describe('malformed uploads', () => {
  const send = (payload: Buffer | string, contentType: string, headers: Record<string, string> = {}) =>
    t.request('POST', mediaPath(slug, ownSub.id), { token: owner.token, payload, headers: { 'content-type': contentType, ...headers } });

  it('no Idempotency-Key: 428 before the body is read', async () => {
    const body = multipart([{ name: 'file', filename: 'a.jpg', data: photo }]);
    const res = await send(body.payload, body.contentType, {});
    expect(res.status).toBe(201); // the test client adds a key; without one:
    const bare = await t.request('POST', mediaPath(slug, ownSub.id), { token: owner.token, payload: body.payload, idempotencyKey: false, headers: { 'content-type': body.contentType } });
    expect(bare.status).toBe(428);
  });

  it('a JSON or other non-multipart body is 415 unsupported_media_type', async () => {
    expect((await send(JSON.stringify({ file: 'x' }), 'application/json')).body.code).toBe('unsupported_media_type');
    expect((await send('hello', 'text/plain')).status).toBe(415);
  });

  it('no file part: 422 naming body.file', async () => {
    const body = multipart([]);
    const res = await send(body.payload, body.contentType);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], type: 'missing' })]);
  });

  it('a file under another field name, or an extra field: 422 naming it', async () => {
    const wrong = multipart([{ name: 'photo', filename: 'a.jpg', data: photo }]);
    expect((await send(wrong.payload, wrong.contentType)).body.detail[0]).toMatchObject({ loc: ['body', 'photo'], type: 'extra_forbidden' });
    const extra = multipart([
      { name: 'file', filename: 'a.jpg', data: photo },
      { name: 'caption', data: 'hello' },
    ]);
    const res = await send(extra.payload, extra.contentType);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'caption']);
    expect(await nothingStored()).toMatchObject({ pending: 0 });
  });

  it('two files: 400 validation_failed, and the first is not kept', async () => {
    const before = await nothingStored();
    const two = multipart([
      { name: 'file', filename: 'a.jpg', data: photo },
      { name: 'file', filename: 'b.jpg', data: photo },
    ]);
    const res = await send(two.payload, two.contentType);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: { max_files: 1 } });
    expect(await nothingStored()).toEqual(before);
  });

  it('a file name holding a control character: 422 naming body.file, nothing stored', async () => {
    const before = await nothingStored();
    const bad = multipart([{ name: 'file', filename: 'a\u0000b.jpg', data: photo }]);
    const res = await send(bad.payload, bad.contentType);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'file']);
    expect(await nothingStored()).toEqual(before);
    // The server is still answering (no transaction left open).
    expect((await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).status).toBe(200);
  });

  it('two uploads racing for the last of the storage: one 201, one 402, the server still answering, nothing left behind', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const [{ limit }] = await t.db.query<{ limit: number }>(`SELECT storage_bytes_per_book AS limit FROM plans WHERE slug = 'free'`);
    await t.db.query(`UPDATE books SET storage_used_bytes = $2 WHERE slug = $1`, [book.slug, Number(limit) - Math.floor(photo.length * 1.5)]);
    const before = await nothingStored();
    // Both may stream before either attaches: then the second is refused inside its transaction.
    const answers = await Promise.all([upload(t, owner, book.slug, sub.id, photo), upload(t, owner, book.slug, sub.id, photo)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402]);
    expect((await t.get(`/api/v1/books/${book.slug}/`, { token: owner.token })).status).toBe(200);
    const { eventually } = await import('../../helpers/eventually.js');
    await eventually(async () => (await nothingStored()).pending === before.pending);
    expect((await nothingStored()).media).toBe(before.media + 1);
  });

  it('an empty file: 400 validation_failed', async () => {
    const empty = multipart([{ name: 'file', filename: 'a.jpg', data: Buffer.alloc(0) }]);
    const res = await send(empty.payload, empty.contentType);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('a body cut off half way: 400, nothing stored', async () => {
    const before = await nothingStored();
    const whole = multipart([{ name: 'file', filename: 'a.jpg', data: photo }]);
    const cut = whole.payload.subarray(0, whole.payload.length - 200);
    const res = await send(cut, whole.contentType);
    expect(res.status).toBe(400);
    expect(await nothingStored()).toEqual(before);
  });

  it('a multipart body without a boundary: 400 or 415, never 500', async () => {
    const res = await send('garbage', 'multipart/form-data');
    expect([400, 415]).toContain(res.status);
  });

  it('a boundary over the parser\'s limit (253 characters and more): 400 validation_failed with the envelope, nothing stored', async () => {
    const before = await nothingStored();
    for (const length of [253, 300, 4000]) {
      const body = multipart([{ name: 'file', filename: 'a.jpg', data: photo }], { boundary: 'b'.repeat(length) });
      const res = await send(body.payload, body.contentType);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: { reason: 'boundary_too_long' }, request_id: expect.any(String) });
    }
    // The longest boundary the parser takes still works.
    const longest = multipart([{ name: 'file', filename: 'a.jpg', data: photo }], { boundary: 'b'.repeat(252) });
    expect((await send(longest.payload, longest.contentType)).status).toBe(201);
    expect((await nothingStored()).pending).toBe(before.pending);
  });

  it('every other framing the parser refuses: 400 with the envelope, never 500', async () => {
    const good = multipart([{ name: 'file', filename: 'a.jpg', data: photo }]);
    const cases: [string, Buffer | string][] = [
      ['multipart/form-data; boundary=', good.payload], // an empty boundary
      ['multipart/form-data; boundary=""', good.payload],
      ['multipart/form-data; boundary=abc', 'no boundary line at all'],
      ['multipart/form-data; boundary=abc', '--abc\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n'], // cut in the part's header
      ['multipart/form-data; boundary=abc', `--abc\r\n${'X-Long: y\r\n'.repeat(3000)}\r\nbody\r\n--abc--\r\n`], // headers over the parser's limit
    ];
    for (const [contentType, payload] of cases) {
      const res = await send(payload, contentType);
      expect(res.status, contentType).toBeGreaterThanOrEqual(400);
      expect(res.status, contentType).toBeLessThan(500);
      if (res.status !== 422) expect(res.body, contentType).toMatchObject({ code: expect.any(String), request_id: expect.any(String) });
    }
  });
});

describe('a signer that fails', () => {
  it('fails closed: download_url null, download_status unavailable, thumbnail_url null', async () => {
    const up = await upload(t, owner, slug, ownSub.id, photo);
    const real = t.services.store;
    const broken: ObjectStore = {
      ...real,
      kind: real.kind,
      async signedUrl() {
        throw new SigningError('credentials unavailable');
      },
    };
    const views = createMediaViews({ store: broken });
    const [row] = await t.db.query(`SELECT * FROM media WHERE id = $1`, [up.body.id]);
    const shown = await views.toMedia(row as never);
    expect(shown).toMatchObject({ download_url: null, download_status: 'unavailable', thumbnail_url: null, urls_expire_at: null });
  });
});
