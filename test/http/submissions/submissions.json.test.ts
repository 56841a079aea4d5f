import { beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../../src/lib/ids.js';
import { findBookContext } from '../../../src/services/books/book-repository.js';
import { insertSubmission } from '../../../src/services/submissions/submission-repository.js';
import { AWKWARD_TEXTS } from '../../helpers/awkward-text.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { upload } from '../media/media-setup.js';

// GET …/submissions/ sends each submission as JSON the database made
// (submissionJsonSql) around the URLs the service signs; the detail goes
// through the serializer (toSubmission). The two must agree on every field,
// for every kind of value a submission can hold.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const awkward = AWKWARD_TEXTS;

/** Signed URLs are minted afresh on every read (their signature and expiry move with the clock): compared as placeholders. */
const unsigned = (text: string) =>
  text.replace(/"(https?:\/\/[^"]*)"/g, '"<url>"').replace(/"urls_expire_at":"[^"]*"/g, '"urls_expire_at":"<t>"');

describe('GET …/submissions/ items are the submissions, field for field', () => {
  it('every value a submission holds reads the same in the list as in its detail', async () => {
    const owner = await newUser(t, { firstName: awkward[0], lastName: awkward[2] });
    const blank = await newUser(t, { firstName: '', lastName: '' });
    const book = await newBook(t, owner, { plan: 'plus' });
    const ids: string[] = [];
    for (const [i, text] of awkward.entries()) {
      ids.push((await newSubmission(t, book.slug, i % 2 ? blank : owner, { text, name: i === 3 ? undefined : text })).id);
    }
    // Without an author, a name or an email (as an inbound message may come).
    const ctx = await findBookContext(t.db, book.slug, null);
    const anonymous = await insertSubmission(t.db, {
      id: uuidv7(),
      bookId: ctx!.book.id,
      contributorUserId: null,
      contributorName: null,
      contributorEmail: null,
      textContent: 'From nobody in particular',
      isPrivate: true,
      source: 'sms',
    });
    ids.push(anonymous.id);

    // Moderation states: approved and pinned with a share card, rejected with an awkward reason.
    await t.db.query(`UPDATE submissions SET status = 'approved', is_pinned = true, pinned_at = now(), share_card_key = $2 WHERE id = $1`, [
      ids[0],
      `share-cards/${ids[0]}.png`,
    ]);
    await t.db.query(`UPDATE submissions SET status = 'rejected', rejection_reason = $2 WHERE id = $1`, [ids[1], awkward[1]]);
    // Media: one still pending, one processed with dimensions and a fractional duration.
    const first = await upload(t, owner, book.slug, ids[2], await readFixture('jpeg'));
    const second = await upload(t, owner, book.slug, ids[2], await readFixture('png'));
    expect([first.status, second.status]).toEqual([201, 201]);
    await t.db.query(`UPDATE media SET processing_status = 'complete', width = 640, height = 480, duration_seconds = 3.25 WHERE id = $1`, [second.body.id]);

    const list = await t.get(`/api/v1/books/${book.slug}/submissions/`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.body.items.map((s: { id: string }) => s.id).sort()).toEqual([...ids].sort());
    const seen = { media: 0, card: 0, anonymous: 0, pinned: 0 };
    const details: string[] = [];
    for (const item of list.body.items) {
      const detail = await t.get(`/api/v1/books/${book.slug}/submissions/${item.id}/`, { token: owner.token });
      expect(detail.status).toBe(200);
      expect(unsigned(JSON.stringify(item))).toBe(unsigned(detail.text));
      details.push(detail.text);
      seen.media += item.media.length;
      seen.card += item.share_card_url ? 1 : 0;
      seen.anonymous += item.contributor_user === null ? 1 : 0;
      seen.pinned += item.pinned_at ? 1 : 0;
    }
    // Every kind of value was there to compare.
    expect(seen).toEqual({ media: 2, card: 1, anonymous: 1, pinned: 1 });
    // And the page as sent, byte for byte: the database's own escaping against the serializer's.
    expect(unsigned(list.text)).toBe(unsigned(`{"items":[${details.join(',')}],"next_cursor":null,"has_more":false}`));
  });

  it('pages and the sync order keep their cursors, and an empty page is the list envelope', async () => {
    const owner = await newUser(t);
    const book = await newBook(t, owner);
    const made: string[] = [];
    for (const text of ['One', 'Two', 'Three']) made.push((await newSubmission(t, book.slug, owner, { text })).id);
    const path = `/api/v1/books/${book.slug}/submissions/`;
    const first = await t.get(path, { token: owner.token, query: { limit: '2' } });
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await t.get(path, { token: owner.token, query: { limit: '2', cursor: first.body.next_cursor } });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    // Two pages read what one page does (rows made in one clock tick are ordered by id).
    const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((s) => s.id);
    const whole = await t.get(path, { token: owner.token });
    expect([...ids(first), ...ids(second)]).toEqual(ids(whole));
    expect([...ids(whole)].sort()).toEqual([...made].sort());

    const since = '2000-01-01T00:00:00Z';
    const sync1 = await t.get(path, { token: owner.token, query: { limit: '2', updated_since: since } });
    const sync2 = await t.get(path, { token: owner.token, query: { limit: '2', updated_since: since, cursor: sync1.body.next_cursor } });
    const syncWhole = await t.get(path, { token: owner.token, query: { updated_since: since } });
    expect([...ids(sync1), ...ids(sync2)]).toEqual(ids(syncWhole));
    expect([...ids(syncWhole)].sort()).toEqual([...made].sort());

    const empty = await newBook(t, owner);
    expect((await t.get(`/api/v1/books/${empty.slug}/submissions/`, { token: owner.token })).text).toBe('{"items":[],"next_cursor":null,"has_more":false}');
  });
});
