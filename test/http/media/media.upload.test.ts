/**
 * Uploads over HTTP on both stores, with real files: type from the bytes,
 * plan gates, caps, what lands in the store and the database, processing,
 * signed URLs, and the submission that embeds its media.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { FIXTURES, readFixture, type FixtureName } from '../../helpers/media-fixtures.js';
import { buildMediaApp, fetchSigned, mediaPath, processed, STORES, storageUsed, upload, type MediaTestApp } from './media-setup.js';

const MB = 1_048_576;

describe.each(STORES)('media uploads on the %s store', (store) => {
  let t: MediaTestApp;
  let owner: TestUser;
  beforeAll(async () => {
    t = await buildMediaApp(store);
    owner = await newUser(t);
  });

  async function bookWith(plan: 'free' | 'plus' | 'premium') {
    const book = await newBook(t, owner, { plan });
    const sub = await newSubmission(t, book.slug, owner);
    return { slug: book.slug, sub };
  }

  async function pendingObjects() {
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_objects`);
    return n;
  }

  async function mediaRows(submissionId: string) {
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media WHERE submission_id = $1`, [submissionId]);
    return n;
  }

  it.each(['jpeg', 'jpegRotated', 'png', 'webp'] as FixtureName[])('takes a %s photo on any plan: 201, processed, downloadable byte for byte', async (name) => {
    const { slug, sub } = await bookWith('free');
    const bytes = await readFixture(name);
    const res = await upload(t, owner, slug, sub.id, bytes, { filename: `photo-${name}`, contentType: 'application/octet-stream' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${mediaPath(slug, sub.id)}${res.body.id}/`);
    expect(res.body).toMatchObject({ kind: 'image', mime_type: FIXTURES[name].mime, size_bytes: bytes.length, processing_status: 'pending', scan_result: 'not_scanned' });
    expect(res.body.download_status).toBe('available');

    const done = await processed(t, owner, res.headers.location as string);
    expect(done.body).toMatchObject({ processing_status: 'complete', width: (FIXTURES[name] as { width: number }).width, height: (FIXTURES[name] as { height: number }).height });
    expect(done.body.thumbnail_url).toBeNull();
    const file = await fetchSigned(t, done.body.download_url);
    expect(file.status).toBe(200);
    expect(Buffer.compare(file.body, bytes)).toBe(0);
    expect(await storageUsed(t, slug)).toBe(bytes.length);
  });

  it('reads the type from the bytes, not the declared Content-Type', async () => {
    const { slug, sub } = await bookWith('free');
    const png = await readFixture('png');
    const res = await upload(t, owner, slug, sub.id, png, { filename: 'lies.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(201);
    expect(res.body.mime_type).toBe('image/png');
  });

  it('refuses a PDF with 400 validation_failed and details.detected_mime_type, storing nothing', async () => {
    const { slug, sub } = await bookWith('premium');
    const before = await t.storedKeys();
    const res = await upload(t, owner, slug, sub.id, await readFixture('pdf'), { filename: 'doc.pdf', contentType: 'image/jpeg' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.detected_mime_type).toBe('application/pdf');
    expect(await t.storedKeys()).toEqual(before);
    expect(await mediaRows(sub.id)).toBe(0);
    expect(await pendingObjects()).toBe(0);
  });

  it('refuses bytes of no known type as application/octet-stream', async () => {
    const { slug, sub } = await bookWith('free');
    const res = await upload(t, owner, slug, sub.id, Buffer.from('just some words, not a picture'), { filename: 'note.txt', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expect(res.body.details.detected_mime_type).toBe('application/octet-stream');
  });

  it('gates audio on feature_audio: the free plan refuses it naming the feature, plus takes MP3 and WAV with their durations', async () => {
    const free = await bookWith('free');
    const refused = await upload(t, owner, free.slug, free.sub.id, await readFixture('mp3'));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect(refused.body.details).toMatchObject({ detected_mime_type: 'audio/mpeg', required_feature: 'feature_audio' });

    const plus = await bookWith('plus');
    for (const name of ['mp3', 'wav'] as const) {
      const res = await upload(t, owner, plus.slug, plus.sub.id, await readFixture(name));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind: 'audio', mime_type: FIXTURES[name].mime, scan_result: 'skipped_by_policy' });
      const done = await processed(t, owner, res.headers.location as string);
      expect(done.body.processing_status).toBe('complete');
      expect(done.body.duration_seconds).toBeCloseTo(FIXTURES[name].durationSeconds, 0);
      expect(done.body.thumbnail_url).toBeNull();
    }
  });

  it('takes video on premium: dimensions, duration and a poster frame as thumbnail_url', async () => {
    const { slug, sub } = await bookWith('premium');
    const mp4 = await readFixture('mp4');
    const res = await upload(t, owner, slug, sub.id, mp4, { filename: 'clip.mp4', contentType: 'video/mp4' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'video', mime_type: 'video/mp4', scan_result: 'skipped_by_policy', thumbnail_url: null });
    const done = await processed(t, owner, res.headers.location as string);
    expect(done.body).toMatchObject({ processing_status: 'complete', width: 320, height: 240 });
    expect(done.body.duration_seconds).toBeCloseTo(2, 0);
    expect(done.body.thumbnail_url).toEqual(expect.any(String));
    const poster = await fetchSigned(t, done.body.thumbnail_url);
    expect(poster.status).toBe(200);
    const meta = await sharp(poster.body).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.width, meta.height]).toEqual([320, 240]);
    // The poster frame counts in the book's storage with the original.
    expect(await storageUsed(t, slug)).toBe(mp4.length + poster.body.length);
  });

  it('on a live-photo-only plan takes short QuickTime motion and refuses a long one or another video type', async () => {
    const { slug, sub } = await bookWith('plus');
    const short = await upload(t, owner, slug, sub.id, await readFixture('movShort'), { filename: 'live.mov' });
    expect(short.status).toBe(201);
    expect(short.body.mime_type).toBe('video/quicktime');
    expect(short.body.duration_seconds).toBeCloseTo(3, 0);
    await processed(t, owner, short.headers.location as string); // its poster frame is in the store before we look

    const before = await t.storedKeys();
    const long = await upload(t, owner, slug, sub.id, await readFixture('movLong'), { filename: 'long.mov' });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('validation_failed');
    expect(long.body.details).toMatchObject({ detected_mime_type: 'video/quicktime', max_duration_seconds: 6 });
    expect(long.body.details.duration_seconds).toBeCloseTo(10, 0);

    const mp4 = await upload(t, owner, slug, sub.id, await readFixture('mp4'));
    expect(mp4.status).toBe(400);
    expect(mp4.body.details).toMatchObject({ detected_mime_type: 'video/mp4', required_feature: 'feature_video' });
    expect(await t.storedKeys()).toEqual(before);
    expect(await mediaRows(sub.id)).toBe(1);
  });

  it('refuses video on a plan with neither video nor live photo', async () => {
    const { slug, sub } = await bookWith('free');
    const res = await upload(t, owner, slug, sub.id, await readFixture('movShort'));
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ detected_mime_type: 'video/quicktime', required_feature: 'feature_video' });
  });

  it('refuses a photo over 20 MB with 413 while it streams, leaving nothing in the store or the database', async () => {
    const { slug, sub } = await bookWith('premium');
    const before = await t.storedKeys();
    const head = await readFixture('jpeg');
    const big = Buffer.concat([head, Buffer.alloc(20 * MB + 1 - head.length, 1)]);
    const res = await upload(t, owner, slug, sub.id, big, { filename: 'huge.jpg' });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(res.body.details).toMatchObject({ limit_bytes: 20 * MB, kind: 'image' });
    expect(await t.storedKeys()).toEqual(before);
    expect(await pendingObjects()).toBe(0);
    expect(await mediaRows(sub.id)).toBe(0);
    expect(await storageUsed(t, slug)).toBe(0);
    // Exactly at the cap is fine.
    const atCap = await upload(t, owner, slug, sub.id, big.subarray(0, 20 * MB), { filename: 'big.jpg' });
    expect(atCap.status).toBe(201);
  });

  it("refuses video over the plan's max_video_bytes with 413", async () => {
    const { slug, sub } = await bookWith('premium');
    const [{ max }] = await t.db.query<{ max: number }>(`SELECT max_video_bytes AS max FROM plans WHERE slug = 'premium'`);
    const head = await readFixture('mp4');
    const big = Buffer.concat([head, Buffer.alloc(Number(max) + 1 - head.length, 0)]);
    const res = await upload(t, owner, slug, sub.id, big);
    expect(res.status).toBe(413);
    expect(res.body.details).toMatchObject({ limit_bytes: Number(max), kind: 'video' });
    expect(await mediaRows(sub.id)).toBe(0);
  });

  it('refuses a declared Content-Length over 90 MB before reading the body', async () => {
    const { slug, sub } = await bookWith('premium');
    const res = await t.app.inject({
      method: 'POST',
      url: mediaPath(slug, sub.id),
      headers: { authorization: `Bearer ${owner.token}`, 'idempotency-key': crypto.randomUUID(), 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(90 * MB + 1) },
      payload: '--x--\r\n',
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large', details: { limit_bytes: 90 * MB } });
  });

  it('refuses an upload that would take the book past its storage with 402 plan_limit_exceeded', async () => {
    const { slug, sub } = await bookWith('free');
    const photo = await readFixture('jpeg');
    const [{ limit }] = await t.db.query<{ limit: number }>(`SELECT storage_bytes_per_book AS limit FROM plans WHERE slug = 'free'`);
    await t.db.query(`UPDATE books SET storage_used_bytes = $2 WHERE slug = $1`, [slug, Number(limit) - photo.length + 1]);
    const res = await upload(t, owner, slug, sub.id, photo);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'plan_limit_exceeded', details: { limit: 'storage_bytes_per_book', limit_bytes: Number(limit) } });
    expect(await mediaRows(sub.id)).toBe(0);
    await t.db.query(`UPDATE books SET storage_used_bytes = 0 WHERE slug = $1`, [slug]);
  });

  it('keeps the Idempotency-Key to the file: a retry replays the first upload, another file with the key is 422', async () => {
    const { slug, sub } = await bookWith('free');
    const key = crypto.randomUUID();
    const photo = await readFixture('jpeg');
    const first = await upload(t, owner, slug, sub.id, photo, { key, filename: 'a.jpg' });
    expect(first.status).toBe(201);
    const keysAfterFirst = await t.storedKeys();
    const again = await upload(t, owner, slug, sub.id, photo, { key, filename: 'a.jpg' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.location).toBe(first.headers.location);
    expect(await mediaRows(sub.id)).toBe(1);
    expect(await storageUsed(t, slug)).toBe(photo.length);

    const other = await upload(t, owner, slug, sub.id, await readFixture('png'), { key, filename: 'a.jpg' });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const renamed = await upload(t, owner, slug, sub.id, photo, { key, filename: 'b.jpg' });
    expect(renamed.status).toBe(422);
    // Neither the replay nor the refusals left a file behind.
    expect(await t.storedKeys()).toEqual(keysAfterFirst);
    expect(await pendingObjects()).toBe(0);
  });

  it('answers a retry from the stored upload even when the book has filled up since (no rule runs again)', async () => {
    const { slug, sub } = await bookWith('free');
    const photo = await readFixture('jpeg');
    const key = crypto.randomUUID();
    const first = await upload(t, owner, slug, sub.id, photo, { key });
    expect(first.status).toBe(201);
    const [{ limit }] = await t.db.query<{ limit: number }>(`SELECT storage_bytes_per_book AS limit FROM plans WHERE slug = 'free'`);
    await t.db.query(`UPDATE books SET storage_used_bytes = $2 WHERE slug = $1`, [slug, Number(limit)]);
    const retry = await upload(t, owner, slug, sub.id, photo, { key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    const other = await upload(t, owner, slug, sub.id, await readFixture('png'), { key });
    expect(other.status).toBe(422);
    expect(await mediaRows(sub.id)).toBe(1);
    expect(await pendingObjects()).toBe(0);
    await t.db.query(`UPDATE books SET storage_used_bytes = $2 WHERE slug = $1`, [slug, photo.length]);
  });

  it('embeds the media in the submission, in upload order, with signed URLs', async () => {
    const { slug, sub } = await bookWith('free');
    const a = await upload(t, owner, slug, sub.id, await readFixture('jpeg'));
    const b = await upload(t, owner, slug, sub.id, await readFixture('png'));
    const read = await t.get(`/api/v1/books/${slug}/submissions/${sub.id}/`, { token: owner.token });
    expect(read.body.media.map((m: { id: string }) => m.id)).toEqual([a.body.id, b.body.id]);
    expect(read.body.media[0].download_url).toEqual(expect.any(String));
    const list = await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token });
    expect(list.body.items.find((s: { id: string }) => s.id === sub.id).media).toHaveLength(2);
  });

  it('mints fresh URLs on every read, lapsing at urls_expire_at (15 minutes)', async () => {
    const { slug, sub } = await bookWith('free');
    const res = await upload(t, owner, slug, sub.id, await readFixture('jpeg'));
    const read = await t.get(res.headers.location as string, { token: owner.token });
    const url = new URL(read.body.download_url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    const expires = Date.parse(read.body.urls_expire_at);
    expect(expires - Date.now()).toBeGreaterThan(880_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(900_000);
    const tampered = new URL(read.body.download_url);
    tampered.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetchSigned(t, tampered.toString())).status).toBe(403);
  });

  it('serves a Range of the file', async () => {
    const { slug, sub } = await bookWith('free');
    const photo = await readFixture('jpeg');
    const res = await upload(t, owner, slug, sub.id, photo);
    const part = await fetchSigned(t, res.body.download_url, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(Buffer.compare(part.body, photo.subarray(10, 20))).toBe(0);
  });

  it('deletes a media file: 204, a replay answers 204, the read is 404, the files go and the storage comes back', async () => {
    const { slug, sub } = await bookWith('premium');
    const res = await upload(t, owner, slug, sub.id, await readFixture('mp4'));
    await processed(t, owner, res.headers.location as string);
    const keys = (await t.storedKeys()).filter((k) => k.includes(res.body.id));
    expect(keys).toHaveLength(2); // the original and its poster frame
    const key = crypto.randomUUID();
    const del = await t.delete(res.headers.location as string, { token: owner.token, idempotencyKey: key });
    expect(del.status).toBe(204);
    const replay = await t.delete(res.headers.location as string, { token: owner.token, idempotencyKey: key });
    expect(replay.status).toBe(204);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await t.get(res.headers.location as string, { token: owner.token })).status).toBe(404);
    expect((await t.delete(res.headers.location as string, { token: owner.token })).status).toBe(404);
    expect(await storageUsed(t, slug)).toBe(0);
    const { eventually } = await import('../../helpers/eventually.js');
    await eventually(async () => (await t.storedKeys()).filter((k) => k.includes(res.body.id)).length === 0);
  });

  it('keeps the storage counters exact in quotas and billing through upload and delete', async () => {
    const user = await newUser(t);
    const book = await newBook(t, user);
    const sub = await newSubmission(t, book.slug, user);
    const quota = async () => (await t.get('/api/v1/me/quotas/', { token: user.token })).body.storage.used_bytes;
    const billing = async () => (await t.get(`/api/v1/books/${book.slug}/billing/`, { token: user.token })).body.quota.storage_used_bytes;
    const a = await readFixture('jpeg');
    const b = await readFixture('png');
    const upA = await upload(t, user, book.slug, sub.id, a);
    await upload(t, user, book.slug, sub.id, b);
    expect([await quota(), await billing()]).toEqual([a.length + b.length, a.length + b.length]);
    expect((await t.delete(upA.headers.location as string, { token: user.token })).status).toBe(204);
    expect([await quota(), await billing()]).toEqual([b.length, b.length]);
    expect((await t.delete(`/api/v1/books/${book.slug}/submissions/${sub.id}/`, { token: user.token })).status).toBe(204);
    expect([await quota(), await billing()]).toEqual([0, 0]);
  });

  it('cleans the files up when the submission is deleted', async () => {
    const { slug, sub } = await bookWith('free');
    const res = await upload(t, owner, slug, sub.id, await readFixture('jpeg'));
    expect((await t.storedKeys()).some((k) => k.includes(res.body.id))).toBe(true);
    expect((await t.delete(`/api/v1/books/${slug}/submissions/${sub.id}/`, { token: owner.token })).status).toBe(204);
    expect(await storageUsed(t, slug)).toBe(0);
    const { eventually } = await import('../../helpers/eventually.js');
    await eventually(async () => !(await t.storedKeys()).some((k) => k.includes(res.body.id)));
  });

  it('cleans every file of a book when the book is deleted', async () => {
    const { slug, sub } = await bookWith('free');
    const res = await upload(t, owner, slug, sub.id, await readFixture('jpeg'));
    const [{ id: bookId }] = await t.db.query<{ id: string }>(`SELECT id FROM books WHERE slug = $1`, [slug]);
    expect((await t.delete(`/api/v1/books/${slug}/`, { token: owner.token })).status).toBe(204);
    const { eventually } = await import('../../helpers/eventually.js');
    await eventually(async () => !(await t.storedKeys()).some((k) => k.includes(bookId) || k.includes(res.body.id)));
  });
});
