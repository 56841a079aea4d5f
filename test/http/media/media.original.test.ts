/**
 * GET …/media/{media_id}/original/ on both stores: a signed URL to the bytes
 * exactly as uploaded (sha256 of the download equals the upload's, and the
 * answered sha256), after processing too (EXIF-rotated photo, video with a
 * poster frame). Owner, admin, the memory's own contributor; another
 * contributor 403, an outsider 404; 409 while the scan is pending, 410
 * original_unavailable for an infected file and for one gone from the store.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture, type FixtureName } from '../../helpers/media-fixtures.js';
import { buildMediaApp, fetchSigned, processed, STORES, upload, type MediaTestApp } from './media-setup.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(STORES)('originals on the %s store', (store) => {
  let t: MediaTestApp;
  let owner: TestUser, admin: TestUser, writer: TestUser, neighbour: TestUser, outsider: TestUser;
  let slug: string;
  beforeAll(async () => {
    t = await buildMediaApp(store);
    [owner, admin, writer, neighbour, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t), newUser(t)]);
    slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, writer, 'contributor');
    await addMember(t, slug, neighbour, 'contributor');
  });

  const originalUrl = (location: string) => `${location}original/`;

  async function uploaded(name: FixtureName, by: TestUser, filename: string) {
    const sub = await newSubmission(t, slug, by);
    const bytes = await readFixture(name);
    const res = await upload(t, by, slug, sub.id, bytes, { filename, contentType: 'application/octet-stream' });
    expect(res.status).toBe(201);
    const location = res.headers.location as string;
    await processed(t, owner, location);
    return { location, bytes, id: res.body.id as string };
  }

  it.each([
    ['jpegRotated', 'IMG_0001.JPG'],
    ['mp4', 'clip.mp4'],
  ] as [FixtureName, string][])('answers the %s exactly as uploaded, after processing, with its checksum', async (name, filename) => {
    const { location, bytes } = await uploaded(name, writer, filename);
    for (const who of [owner, admin, writer]) {
      const res = await t.get(originalUrl(location), { token: who.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ filename, size_bytes: bytes.length, sha256: sha256(bytes) });
      expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now());
      const file = await fetchSigned(t, res.body.url);
      expect(file.status).toBe(200);
      expect(sha256(file.body)).toBe(sha256(bytes));
      expect(file.headers['content-disposition']).toContain('attachment');
    }
  });

  it("refuses another contributor (403) and an outsider (404); a bad id is 404", async () => {
    const { location } = await uploaded('png', writer, 'mine.png');
    const other = await t.get(originalUrl(location), { token: neighbour.token });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('insufficient_role');
    expect((await t.get(originalUrl(location), { token: outsider.token })).status).toBe(404);
    expect((await t.get(originalUrl(location.replace(/[0-9a-f-]{36}\/$/, 'nope/')), { token: owner.token })).status).toBe(404);
  });

  it('answers 410 original_unavailable for a file found infected and for one gone from the store; 409 while its scan is pending', async () => {
    const infected = await uploaded('jpeg', owner, 'a.jpg');
    // What the scanner writes when clamd finds a signature (test/http/media/media.scan.test.ts runs the real one).
    await t.db.query(`UPDATE media SET scan_result = 'infected', scan_signature = 'Eicar-Test-Signature' WHERE id = $1`, [infected.id]);
    const gone = await t.get(originalUrl(infected.location), { token: owner.token });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'original_unavailable', details: { reason: 'infected', media_id: infected.id } });

    const pending = await uploaded('png', owner, 'b.png');
    await t.db.query(`UPDATE media SET scan_result = 'pending' WHERE id = $1`, [pending.id]);
    const wait = await t.get(originalUrl(pending.location), { token: owner.token });
    expect(wait.status).toBe(409);
    expect(wait.body).toMatchObject({ code: 'invalid_state', details: { status: 'pending' } });

    const lost = await uploaded('webp', owner, 'c.webp');
    const [{ storage_key }] = await t.db.query<{ storage_key: string }>(`SELECT storage_key FROM media WHERE id = $1`, [lost.id]);
    await t.services.store.delete(storage_key);
    const missing = await t.get(originalUrl(lost.location), { token: owner.token });
    expect(missing.status).toBe(410);
    expect(missing.body).toMatchObject({ code: 'original_unavailable', details: { reason: 'missing' } });
  });
});
