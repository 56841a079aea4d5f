/**
 * Media and moderation: approve waits for processing; any media change
 * sends an approved memory back to pending (unpinned, share card cleared)
 * before it lands; approval renders a share card.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { fetchSigned, processed, upload } from './media-setup.js';

const moderate = (t: TestApp, u: TestUser, slug: string, id: string, action: string) =>
  t.post(`/api/v1/books/${slug}/submissions/${id}/${action}/`, undefined, { token: u.token });
const read = (t: TestApp, u: TestUser, slug: string, id: string) => t.get(`/api/v1/books/${slug}/submissions/${id}/`, { token: u.token });

describe('approve and processing', () => {
  // No worker: uploads stay pending until the test says otherwise.
  let t: TestApp;
  let owner: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    owner = await newUser(t);
  });

  it('refuses approve while a file is not processed, then allows it once it is complete', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const up = await upload(t, owner, book.slug, sub.id, await readFixture('jpeg'));
    const refused = await moderate(t, owner, book.slug, sub.id, 'approve');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect(refused.body.details.media).toEqual([{ id: up.body.id, processing_status: 'pending', scan_result: 'not_scanned' }]);
    await t.db.query(`UPDATE media SET processing_status = 'complete' WHERE id = $1`, [up.body.id]);
    expect((await moderate(t, owner, book.slug, sub.id, 'approve')).status).toBe(200);
  });

  it('refuses approve while a file is infected', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const up = await upload(t, owner, book.slug, sub.id, await readFixture('jpeg'));
    await t.db.query(`UPDATE media SET processing_status = 'complete', scan_result = 'infected' WHERE id = $1`, [up.body.id]);
    const refused = await moderate(t, owner, book.slug, sub.id, 'approve');
    expect(refused.status).toBe(400);
    expect(refused.body.details.media[0]).toMatchObject({ id: up.body.id, scan_result: 'infected' });
    // An infected file is never downloadable.
    const media = await t.get(up.headers.location as string, { token: owner.token });
    expect(media.body).toMatchObject({ download_url: null, download_status: 'unavailable' });
  });
});

describe('media changes and share cards', () => {
  let t: TestApp;
  let owner: TestUser;
  beforeAll(async () => {
    t = await buildTestApp({ worker: true });
    owner = await newUser(t);
  });

  async function approvedWithPhoto(o: { pin?: boolean } = {}) {
    const book = await newBook(t, owner, { theme: 'botanical_luxe' });
    const sub = await newSubmission(t, book.slug, owner, { text: 'The summer she taught us all to swim in the lake.', name: 'Ada' });
    const up = await upload(t, owner, book.slug, sub.id, await readFixture('jpeg'));
    await processed(t, owner, up.headers.location as string);
    expect((await moderate(t, owner, book.slug, sub.id, 'approve')).status).toBe(200);
    if (o.pin) expect((await moderate(t, owner, book.slug, sub.id, 'pin')).status).toBe(200);
    const withCard = await eventually(() => read(t, owner, book.slug, sub.id), (r) => r.body.share_card_url !== null, 60_000);
    return { slug: book.slug, sub, up, withCard };
  }

  it('renders a share card after approval: a signed 1200x630 PNG', async () => {
    const { withCard } = await approvedWithPhoto();
    const card = await fetchSigned(t, withCard.body.share_card_url);
    expect(card.status).toBe(200);
    const meta = await sharp(card.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 630]);
    expect(new URL(withCard.body.share_card_url).searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('an upload to an approved, pinned memory sends it back to pending, unpinned, without its card, and removes the card file', async () => {
    const { slug, sub, withCard } = await approvedWithPhoto({ pin: true });
    expect(withCard.body).toMatchObject({ status: 'approved', is_pinned: true });
    const cardKey = new URL(withCard.body.share_card_url).pathname;
    const up = await upload(t, owner, slug, sub.id, await readFixture('png'));
    expect(up.status).toBe(201);
    const after = await read(t, owner, slug, sub.id);
    expect(after.body).toMatchObject({ status: 'pending', is_pinned: false, pinned_at: null, share_card_url: null });
    expect(after.body.etag).not.toBe(withCard.body.etag);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions WHERE id = $1 AND share_card_key IS NULL AND share_card_token IS NULL`, [sub.id]);
    expect(n).toBe(1);
    await eventually(async () => (await fetchSigned(t, withCard.body.share_card_url)).status === 404);
    expect(cardKey).toContain('share-cards/');
  });

  it('a delete of media on an approved memory sends it back to pending too', async () => {
    const { slug, sub, up } = await approvedWithPhoto();
    expect((await t.delete(up.headers.location as string, { token: owner.token })).status).toBe(204);
    const after = await read(t, owner, slug, sub.id);
    expect(after.body).toMatchObject({ status: 'pending', share_card_url: null, media: [] });
  });

  it('a media change on a pending memory still moves its updated_at (it embeds its media)', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const before = await read(t, owner, book.slug, sub.id);
    await upload(t, owner, book.slug, sub.id, await readFixture('jpeg'));
    const after = await read(t, owner, book.slug, sub.id);
    expect(after.body.status).toBe('pending');
    expect(after.body.updated_at > before.body.updated_at).toBe(true);
  });

  it('a card rendered for the approval is announced as submission.updated, with its share_card_url', async () => {
    const { slug, sub, withCard } = await approvedWithPhoto();
    const updates = async () => (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'submission.updated', book_slug: slug } })).body.items as any[];
    // Newest first: the card, after the upload's.
    const before = await updates();
    const [event] = before;
    expect(before.map((e) => e.data.object.share_card_url === null)).toEqual([false, true]);
    // URLs are signed afresh on every read: the rest is the Submission as GET answers it.
    const unsigned = (o: any): any =>
      Array.isArray(o) ? o.map(unsigned) : o && typeof o === 'object' ? Object.fromEntries(Object.entries(o).filter(([k]) => !k.endsWith('_url') && k !== 'urls_expire_at').map(([k, v]) => [k, unsigned(v)])) : o;
    expect(unsigned(event.data.object)).toEqual(unsigned(withCard.body));
    expect(event.data.object.id).toBe(sub.id);
    // The job run again changes nothing and says nothing.
    const [{ share_card_token: token }] = await t.db.query<{ share_card_token: string }>(`SELECT share_card_token FROM submissions WHERE id = $1`, [sub.id]);
    expect(await t.services.shareCards.render(sub.id, token)).toBe('rendered');
    expect(await updates()).toHaveLength(before.length);
  });

  it('a card rendered for an approval that was since withdrawn is thrown away', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    expect((await moderate(t, owner, book.slug, sub.id, 'approve')).status).toBe(200);
    const [{ share_card_token: token }] = await t.db.query<{ share_card_token: string }>(`SELECT share_card_token FROM submissions WHERE id = $1`, [sub.id]);
    expect(token).toEqual(expect.any(String));
    expect((await moderate(t, owner, book.slug, sub.id, 'reject')).status).toBe(200);
    expect(await t.services.shareCards.render(sub.id, token)).toBe('stale');
    expect((await read(t, owner, book.slug, sub.id)).body.share_card_url).toBeNull();
  });
});
