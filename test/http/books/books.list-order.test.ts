import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser, type TestUser } from '../../helpers/factories.js';

// GET /books/ reads its orderings from the membership rows' copies of their
// books' columns (migrations/0013_book_list_keys.sql): every change of a book
// must reach the list at once, in every books_sort.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

async function titles(u: TestUser, sort: string, query: Record<string, string> = {}): Promise<string[]> {
  await t.patch('/api/v1/me/', { books_sort: sort }, { token: u.token });
  const res = await t.get('/api/v1/books/', { token: u.token, query });
  expect(res.status).toBe(200);
  return res.body.items.map((b: { title: string }) => b.title);
}

describe('GET /books/ follows every change of a book', () => {
  it('a rename moves the book in the title order', async () => {
    const u = await newUser(t);
    const a = await newBook(t, u, { title: 'Mango' });
    await newBook(t, u, { title: 'Kiwi' });
    expect(await titles(u, 'title')).toEqual(['Kiwi', 'Mango']);
    const renamed = await t.patch(`/api/v1/books/${a.slug}/`, { title: 'apple' }, { token: u.token });
    expect(renamed.status).toBe(200);
    expect(await titles(u, 'title')).toEqual(['apple', 'Kiwi']);
  });

  it('a new memory moves its book to the front of the activity order', async () => {
    const u = await newUser(t);
    const older = await newBook(t, u, { title: 'Older', plan: 'plus' });
    await newBook(t, u, { title: 'Newer' });
    expect(await titles(u, 'activity')).toEqual(['Newer', 'Older']);
    const sent = await t.post(`/api/v1/books/${older.slug}/submissions/`, { text_content: 'Hello' }, { token: u.token });
    expect(sent.status).toBe(201);
    expect(await titles(u, 'activity')).toEqual(['Older', 'Newer']);
  });

  it('archive and restore move the book between the active and the archived list', async () => {
    const u = await newUser(t);
    const a = await newBook(t, u, { title: 'Shelved' });
    await newBook(t, u, { title: 'Kept' });
    expect((await t.post(`/api/v1/books/${a.slug}/archive/`, undefined, { token: u.token })).status).toBe(200);
    expect(await titles(u, 'created')).toEqual(['Kept']);
    expect(await titles(u, 'created', { status: 'archived' })).toEqual(['Shelved']);
    expect((await t.post(`/api/v1/books/${a.slug}/restore/`, undefined, { token: u.token })).status).toBe(200);
    expect(await titles(u, 'created')).toEqual(['Kept', 'Shelved']);
  });

  it('a change of role, and leaving the book, reach the role order', async () => {
    const u = await newUser(t);
    const other = await newUser(t);
    await newBook(t, u, { title: 'Mine' });
    const theirs = await newBook(t, other, { title: 'Theirs' });
    await addMember(t, theirs.slug, u, 'admin');
    expect(await titles(u, 'role')).toEqual(['Mine', 'Theirs']);
    const removed = await t.delete(`/api/v1/books/${theirs.slug}/members/${u.user.id}/`, { token: other.token });
    expect(removed.status).toBe(204);
    expect(await titles(u, 'role')).toEqual(['Mine']);
  });

  it('a book being deleted is listed until its deletion is final, then never again', async () => {
    const u = await newUser(t);
    const gone = await newBook(t, u, { title: 'Gone' });
    await newBook(t, u, { title: 'Stays' });
    const [{ id }] = await t.db.query<{ id: string }>(`SELECT id FROM books WHERE slug = $1`, [gone.slug]);
    await t.db.query(`UPDATE books SET deleted_at = now() WHERE id = $1`, [id]);
    expect(await titles(u, 'title')).toEqual(['Stays']);
    expect(await titles(u, 'title', { updated_since: '2000-01-01T00:00:00Z' })).toEqual(['Stays']);
  });

  it("a membership's copies do not move its own updated_at, which the members list syncs on", async () => {
    const owner = await newUser(t);
    const book = await newBook(t, owner, { title: 'Synced', plan: 'plus' });
    const before = await t.get(`/api/v1/books/${book.slug}/members/`, { token: owner.token });
    await t.patch(`/api/v1/books/${book.slug}/`, { title: 'Synced again' }, { token: owner.token });
    await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: 'Hello' }, { token: owner.token });
    const after = await t.get(`/api/v1/books/${book.slug}/members/`, { token: owner.token });
    expect(after.body.items.map((m: { updated_at: string }) => m.updated_at)).toEqual(before.body.items.map((m: { updated_at: string }) => m.updated_at));
  });
});

describe('GET /books/ in activity order', () => {
  // Memberships hold only a ten-minute bucket of their book's last activity
  // (migrations/0025_book_activity_bucket.sql); the list must still give the exact order.
  async function walk(u: TestUser, limit: number): Promise<string[]> {
    const slugs: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.get('/api/v1/books/', { token: u.token, query: { limit: String(limit), ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      slugs.push(...res.body.items.map((b: { slug: string }) => b.slug));
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    return slugs;
  }

  it('orders by the exact time, then id, across and within buckets, page by page', async () => {
    const u = await newUser(t);
    await t.patch('/api/v1/me/', { books_sort: 'activity' }, { token: u.token });
    // Either side of bucket edges (10:00 and 10:10), a tie, and several in one bucket.
    const times = [
      '2026-03-01T10:09:59.999999Z',
      '2026-03-01T10:10:00Z',
      '2026-03-01T10:10:00Z',
      '2026-03-01T10:19:59Z',
      '2026-03-01T10:00:00.000001Z',
      '2026-03-01T10:00:00Z',
      '2026-03-01T09:59:59.999999Z',
      '2026-02-27T08:00:00Z',
    ];
    for (const [i, at] of times.entries()) {
      const book = await newBook(t, u, { title: `Timed ${i}` });
      await t.db.query(`UPDATE books SET last_activity_at = $2 WHERE slug = $1`, [book.slug, at]);
    }
    const expected = (
      await t.db.query<{ slug: string }>(
        `SELECT b.slug FROM books b JOIN book_members m ON m.book_id = b.id AND m.user_id = $1 ORDER BY b.last_activity_at DESC, b.id DESC`,
        [u.user.id],
      )
    ).map((r) => r.slug);
    expect(expected).toHaveLength(times.length);
    expect(await walk(u, 50)).toEqual(expected);
    expect(await walk(u, 1)).toEqual(expected);
    expect(await walk(u, 3)).toEqual(expected);
  });

  it('a memory moves no membership row of its book while its activity stays in its bucket', async () => {
    const owner = await newUser(t);
    const book = await newBook(t, owner, { title: 'Busy', plan: 'plus' });
    for (let i = 0; i < 3; i++) await addMember(t, book.slug, await newUser(t), i === 0 ? 'admin' : 'contributor');
    const rows = () =>
      t.db.query<{ user_id: string; version: string; bucket: number }>(
        `SELECT m.user_id, m.xmin::text AS version, m.book_activity_bucket AS bucket
         FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1 ORDER BY m.user_id`,
        [book.slug],
      );
    const before = await rows();
    const sent = await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: 'Hello' }, { token: owner.token });
    expect(sent.status).toBe(201);
    const after = await rows();
    expect(after).toHaveLength(4);
    // A memory sent just as a bucket ends moves every row once; any other leaves them as they were.
    if (after[0].bucket === before[0].bucket) expect(after).toEqual(before);
    else expect(after.every((r) => r.bucket === after[0].bucket)).toBe(true);
  });
});

describe('a book\'s storage count', () => {
  it('moves neither the book\'s ETag nor any membership row (the Book does not show it)', async () => {
    const owner = await newUser(t);
    const book = await newBook(t, owner, { title: 'Photos', plan: 'plus' });
    await addMember(t, book.slug, await newUser(t), 'contributor');
    const versions = () => t.db.query<{ v: string }>(`SELECT m.xmin::text AS v FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1 ORDER BY m.user_id`, [book.slug]);
    const before = await t.get(`/api/v1/books/${book.slug}/`, { token: owner.token });
    const rows = await versions();
    // What an upload does to the book (MediaRepository's storage count).
    await t.db.query(`UPDATE books SET storage_used_bytes = storage_used_bytes + 1000 WHERE slug = $1`, [book.slug]);
    const after = await t.get(`/api/v1/books/${book.slug}/`, { token: owner.token });
    expect(after.headers.etag).toBe(before.headers.etag);
    expect(await versions()).toEqual(rows);
    const billing = await t.get(`/api/v1/books/${book.slug}/billing/`, { token: owner.token });
    expect(billing.body.quota.storage_used_bytes).toBe(1000);
    // Any change the Book shows still moves it.
    const renamed = await t.patch(`/api/v1/books/${book.slug}/`, { subtitle: 'Moved' }, { token: owner.token });
    expect(renamed.headers.etag).not.toBe(before.headers.etag);
  });
});

describe('GET /books/ read by many clients at once', () => {
  // Identical pages asked together share one query (db/shared-read.ts): never one sent before the asking.
  it('every list asked after a create has answered holds the new book, while identical lists run all along', async () => {
    const u = await newUser(t);
    await newBook(t, u, { title: 'First' });
    let stop = false;
    const list = () => t.get('/api/v1/books/', { token: u.token });
    const background = (async () => {
      while (!stop) for (const res of await Promise.all(Array.from({ length: 8 }, list))) expect(res.status).toBe(200);
    })();
    try {
      for (let i = 0; i < 5; i++) {
        const book = await newBook(t, u, { title: `Book ${i}` });
        const lists = await Promise.all(Array.from({ length: 8 }, list));
        for (const res of lists) expect(res.body.items.map((b: { slug: string }) => b.slug)).toContain(book.slug);
      }
    } finally {
      stop = true;
      await background;
    }
  });
});
