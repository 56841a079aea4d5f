/**
 * The one list path: every list takes `limit` only as a plain decimal
 * integer from 1 to 200, and a cursor only on the list (and ordering) that
 * made it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
let u: TestUser;
let bookA: string;
let bookB: string;
beforeAll(async () => {
  t = await buildTestApp();
  u = await newUser(t);
  bookA = (await newBook(t, u, { title: 'Cursor A' })).slug;
  bookB = (await newBook(t, u, { title: 'Cursor B' })).slug;
  for (const slug of [bookA, bookB]) for (let i = 0; i < 3; i++) await newSubmission(t, slug, u);
});

const LISTS = () => ['/api/v1/books/', `/api/v1/books/${bookA}/submissions/`];

describe('limit', () => {
  it.each([
    ['0x10', '0x10'],
    ['1e1', '1e1'],
    ['+5', '+5'],
    ['5.0', '5.0'],
    [' 5', ' 5'],
    ['0010', '0010'],
    ['', ''],
  ])('limit=%s is 400 query_param_invalid on every list', async (raw, value) => {
    for (const list of LISTS()) {
      const res = await t.get(`${list}?limit=${encodeURIComponent(raw)}`, { token: u.token });
      expect(res.status, list).toBe(400);
      expect(res.body.code).toBe('query_param_invalid');
      expect(res.body.details).toEqual({ param: 'limit', value });
    }
  });

  it('the array form and a repeated limit are 400, not silently ignored', async () => {
    for (const list of LISTS()) {
      for (const qs of ['limit[]=1', 'limit[0]=1', 'limit=1&limit=2']) {
        const res = await t.get(`${list}?${qs}`, { token: u.token });
        expect(res.status, `${list}?${qs}`).toBe(400);
        expect(res.body.code).toBe('query_param_invalid');
        expect(res.body.details.param).toBe('limit');
      }
    }
  });

  it('plain 1 and 200 are taken', async () => {
    for (const list of LISTS()) {
      expect((await t.get(`${list}?limit=1`, { token: u.token })).body.items).toHaveLength(1);
      expect((await t.get(`${list}?limit=200`, { token: u.token })).status).toBe(200);
    }
  });
});

describe('a cursor is bound to its list', () => {
  it("one book's submissions cursor is refused on another book's list", async () => {
    const page = await t.get(`/api/v1/books/${bookA}/submissions/?limit=1`, { token: u.token });
    const cursor = encodeURIComponent(page.body.next_cursor);
    expect((await t.get(`/api/v1/books/${bookA}/submissions/?limit=1&cursor=${cursor}`, { token: u.token })).status).toBe(200);
    const other = await t.get(`/api/v1/books/${bookB}/submissions/?limit=1&cursor=${cursor}`, { token: u.token });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: 'query_param_invalid', details: { param: 'cursor' } });
  });

  it('an empty cursor is 400, not the first page', async () => {
    for (const list of LISTS()) {
      const res = await t.get(`${list}?cursor=`, { token: u.token });
      expect(res.status, list).toBe(400);
      expect(res.body).toMatchObject({ code: 'query_param_invalid', details: { param: 'cursor', value: '' } });
    }
  });

  it("another route's cursor, and another caller's, are refused", async () => {
    const books = await t.get('/api/v1/books/?limit=1', { token: u.token });
    const subs = await t.get(`/api/v1/books/${bookA}/submissions/?limit=1`, { token: u.token });
    const onSubs = await t.get(`/api/v1/books/${bookA}/submissions/?cursor=${encodeURIComponent(books.body.next_cursor)}`, { token: u.token });
    expect(onSubs.status).toBe(400);
    const onBooks = await t.get(`/api/v1/books/?cursor=${encodeURIComponent(subs.body.next_cursor)}`, { token: u.token });
    expect(onBooks.status).toBe(400);

    // An admin of the same books pages their own list: the owner's cursor is not theirs.
    const admin = await newUser(t);
    await addMember(t, bookA, admin, 'admin');
    await addMember(t, bookB, admin, 'admin');
    const foreign = await t.get(`/api/v1/books/?cursor=${encodeURIComponent(books.body.next_cursor)}`, { token: admin.token });
    expect(foreign.status).toBe(400);
  });

  it('an archived-books cursor is refused on the active list', async () => {
    const v = await newUser(t);
    for (let i = 0; i < 2; i++) {
      const b = await newBook(t, v);
      await t.post(`/api/v1/books/${b.slug}/archive/`, undefined, { token: v.token });
    }
    const archived = await t.get('/api/v1/books/?status=archived&limit=1', { token: v.token });
    expect(archived.body.has_more).toBe(true);
    const res = await t.get(`/api/v1/books/?cursor=${encodeURIComponent(archived.body.next_cursor)}`, { token: v.token });
    expect(res.status).toBe(400);
  });
});
