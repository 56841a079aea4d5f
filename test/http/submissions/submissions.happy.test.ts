import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const base = (slug: string) => `/api/v1/books/${slug}/submissions/`;
const rows = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]))[0].n;
const bookRow = async (slug: string) =>
  (await t.db.query<{ last_activity_at: string; updated_at: string }>(`SELECT last_activity_at, updated_at FROM books WHERE slug = $1`, [slug]))[0];

async function plusBook(owner: TestUser) {
  return (await newBook(t, owner, { plan: 'plus' })).slug;
}

describe('POST /books/{slug}/submissions/', () => {
  it('creates a pending memory: 201, Location, ETag; contributor is the caller; source api', async () => {
    const owner = await newUser(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const slug = await plusBook(owner);
    const res = await t.post(base(slug), { text_content: 'We met in 1990.', contributor_name: 'Aunt Ada', is_private: true }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      book_slug: slug,
      text_content: 'We met in 1990.',
      contributor_name: 'Aunt Ada',
      contributor_email: owner.email,
      contributor_user: { id: owner.user.id, first_name: 'Ada', last_name: 'Lovelace' },
      is_private: true,
      status: 'pending',
      is_pinned: false,
      pinned_at: null,
      rejection_reason: null,
      share_card_url: null,
      media: [],
      source: 'api',
    });
    expect(res.body.etag).toBe(`"${res.body.updated_at}"`);
    expect(res.headers.etag).toBe(res.body.etag);
    expect(res.headers.location).toBe(`${base(slug)}${res.body.id}/`);

    const got = await t.get(String(res.headers.location), { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.headers.etag).toBe(res.body.etag);
  });

  it('defaults: no contributor_name, not private; an admin creates under their own email', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const slug = await plusBook(owner);
    await addMember(t, slug, admin, 'admin');
    const res = await t.post(base(slug), { text_content: 'x' }, { token: admin.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ contributor_name: null, is_private: false, contributor_email: admin.email, contributor_user: { id: admin.user.id } });
  });

  it('a replay with the same key returns the original and creates no second row', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const key = crypto.randomUUID();
    const first = await t.post(base(slug), { text_content: 'once' }, { token: owner.token, idempotencyKey: key });
    const again = await t.post(base(slug), { text_content: 'once' }, { token: owner.token, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await rows(slug)).toBe(1);
  });

  it("moves the book's activity but not its ETag", async () => {
    const owner = await newUser(t);
    const book = await newBook(t, owner, { plan: 'plus' });
    const before = await bookRow(book.slug);
    await t.post(base(book.slug), { text_content: 'activity' }, { token: owner.token });
    const after = await bookRow(book.slug);
    expect(after.last_activity_at > before.last_activity_at).toBe(true);
    expect(after.updated_at).toBe(before.updated_at);
    expect((await t.get(`/api/v1/books/${book.slug}/`, { token: owner.token })).body.etag).toBe(book.etag);
    // Any other change of the book still moves it.
    expect((await t.patch(`/api/v1/books/${book.slug}/`, { subtitle: 's' }, { token: owner.token, headers: { 'if-match': book.etag } })).status).toBe(200);
  });

  it('a book with a new memory comes first under books_sort=activity', async () => {
    const owner = await newUser(t);
    const older = await plusBook(owner);
    const newer = await plusBook(owner);
    const order = async () => (await t.get('/api/v1/books/', { token: owner.token })).body.items.map((b: { slug: string }) => b.slug);
    expect(await order()).toEqual([newer, older]);
    await t.post(base(older), { text_content: 'news' }, { token: owner.token });
    expect(await order()).toEqual([older, newer]);
  });
});

describe('GET /books/{slug}/submissions/', () => {
  it('lists newest first with keyset pages, an etag per item and Last-Modified; private rows included', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.post(base(slug), { text_content: `m${i}`, is_private: i === 2 }, { token: owner.token })).body.id);
    const other = await plusBook(owner);
    await t.post(base(other), { text_content: 'elsewhere' }, { token: owner.token });

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const res = await t.get(base(slug), { token: owner.token, query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(typeof res.headers['last-modified']).toBe('string');
      for (const s of res.body.items) expect(s.etag).toBe(`"${s.updated_at}"`);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      expect(res.body.has_more).toBe(page < 2);
      cursor = res.body.next_cursor ?? undefined;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('with updated_since: oldest change first, from the pinned Last-Modified on', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const a = (await t.post(base(slug), { text_content: 'a' }, { token: owner.token })).body;
    const b = (await t.post(base(slug), { text_content: 'b' }, { token: owner.token })).body;
    const all = await t.get(base(slug), { token: owner.token, query: { updated_since: '2000-01-01T00:00:00Z' } });
    expect(all.body.items.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);

    const mark = String(all.headers['last-modified']);
    await t.patch(`${base(slug)}${a.id}/`, { text_content: 'a2' }, { token: owner.token });
    const since = await t.get(base(slug), { token: owner.token, query: { updated_since: mark } });
    const ids = since.body.items.map((s: { id: string }) => s.id);
    // Rows changed since the watermark are there, the last change last; seeing one twice is allowed.
    expect(ids[ids.length - 1]).toBe(a.id);
  });
});

describe('PATCH /books/{slug}/submissions/{id}/', () => {
  it('edits fields, moves the ETag, honours If-Match; an unchanged value writes nothing', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const s = (await t.post(base(slug), { text_content: 'draft' }, { token: owner.token })).body;
    const url = `${base(slug)}${s.id}/`;
    const res = await t.patch(url, { text_content: 'final', contributor_name: 'Bo', is_private: true }, { token: owner.token, headers: { 'if-match': s.etag } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ text_content: 'final', contributor_name: 'Bo', is_private: true, status: 'pending' });
    expect(res.headers.etag).toBe(res.body.etag);
    expect(res.body.etag).not.toBe(s.etag);

    const same = await t.patch(url, { text_content: 'final' }, { token: owner.token, headers: { 'if-match': '*' } });
    expect(same.body.etag).toBe(res.body.etag);
    const cleared = await t.patch(url, { contributor_name: null }, { token: owner.token });
    expect(cleared.body.contributor_name).toBeNull();
  });

  it("an owner's or admin's edit keeps the moderation state", async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const s = (await t.post(base(slug), { text_content: 'keep' }, { token: owner.token })).body;
    await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token });
    await t.post(`${base(slug)}${s.id}/pin/`, undefined, { token: owner.token });
    const res = await t.patch(`${base(slug)}${s.id}/`, { text_content: 'kept' }, { token: owner.token });
    expect(res.body).toMatchObject({ status: 'approved', is_pinned: true });
  });

  it("a contributor author's edit sends an approved row back to pending, unpinned, share card cleared", async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const slug = await plusBook(owner);
    await addMember(t, slug, author, 'contributor');
    const s = await newSubmission(t, slug, author, { text: 'my memory' });
    await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token });
    const pinned = await t.post(`${base(slug)}${s.id}/pin/`, undefined, { token: owner.token });
    expect(pinned.body.submission).toMatchObject({ status: 'approved', is_pinned: true });
    await t.db.query(`UPDATE submissions SET share_card_key = 'cards/x.png' WHERE id = $1`, [s.id]);

    const res = await t.patch(`${base(slug)}${s.id}/`, { text_content: 'my memory, corrected' }, { token: author.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ text_content: 'my memory, corrected', status: 'pending', is_pinned: false, pinned_at: null, share_card_url: null });
    const [row] = await t.db.query<{ share_card_key: string | null }>(`SELECT share_card_key FROM submissions WHERE id = $1`, [s.id]);
    expect(row.share_card_key).toBeNull();
  });
});

describe('DELETE /books/{slug}/submissions/{id}/', () => {
  it('deletes permanently: 204, then 404; a replay answers the stored 204', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const s = (await t.post(base(slug), { text_content: 'bye' }, { token: owner.token })).body;
    const url = `${base(slug)}${s.id}/`;
    const key = crypto.randomUUID();
    const del = await t.delete(url, { token: owner.token, idempotencyKey: key });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect(await rows(slug)).toBe(0);
    const replay = await t.delete(url, { token: owner.token, idempotencyKey: key });
    expect(replay.status).toBe(204);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await t.delete(url, { token: owner.token })).status).toBe(404);
    expect((await t.get(url, { token: owner.token })).status).toBe(404);
  });
});

describe('moderation', () => {
  it('approve, pin, reject with a reason, approve again: reason, pin and pinned_at follow', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const s = (await t.post(base(slug), { text_content: 'moderate me' }, { token: owner.token })).body;
    const url = `${base(slug)}${s.id}/`;

    const approved = await t.post(`${url}approve/`, undefined, { token: owner.token });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ action: 'approve', changed: true, submission: { status: 'approved' } });
    expect(approved.headers.etag).toBe(approved.body.submission.etag);

    const pinned = await t.post(`${url}pin/`, {}, { token: owner.token });
    expect(pinned.body.submission.pinned_at).not.toBeNull();
    const pinnedAgain = await t.post(`${url}pin/`, {}, { token: owner.token });
    expect(pinnedAgain.body).toMatchObject({ changed: false, submission: { pinned_at: pinned.body.submission.pinned_at, etag: pinned.body.submission.etag } });

    const rejected = await t.post(`${url}reject/`, { reason: '  Off topic  ' }, { token: owner.token });
    expect(rejected.body).toMatchObject({ action: 'reject', changed: true, submission: { status: 'rejected', is_pinned: false, pinned_at: null, rejection_reason: 'Off topic' } });
    // A second reject changes nothing, its reason included.
    const again = await t.post(`${url}reject/`, { reason: 'other' }, { token: owner.token });
    expect(again.body).toMatchObject({ changed: false, submission: { rejection_reason: 'Off topic' } });

    const back = await t.post(`${url}approve/`, undefined, { token: owner.token });
    expect(back.body.submission).toMatchObject({ status: 'approved', rejection_reason: null, is_pinned: false });
    const unpin = await t.post(`${url}unpin/`, undefined, { token: owner.token });
    expect(unpin.body).toMatchObject({ action: 'unpin', changed: false });
  });

  it('reject accepts no body, an empty body, null and an empty reason', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    for (const body of [undefined, {}, { reason: null }, { reason: '' }]) {
      const s = (await t.post(base(slug), { text_content: 'no reason' }, { token: owner.token })).body;
      const res = await t.post(`${base(slug)}${s.id}/reject/`, body, { token: owner.token });
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.submission).toMatchObject({ status: 'rejected', rejection_reason: null });
    }
    const s = (await t.post(base(slug), { text_content: 'null body' }, { token: owner.token })).body;
    const res = await t.request('POST', `${base(slug)}${s.id}/reject/`, { token: owner.token, payload: 'null', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
  });

  it('a repeated approve with the same key replays the cached result', async () => {
    const owner = await newUser(t);
    const slug = await plusBook(owner);
    const s = (await t.post(base(slug), { text_content: 'twice' }, { token: owner.token })).body;
    const key = crypto.randomUUID();
    const first = await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token, idempotencyKey: key });
    const replay = await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token, idempotencyKey: key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const fresh = await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token });
    expect(fresh.body).toMatchObject({ changed: false, submission: { etag: first.body.submission.etag } });
  });
});
