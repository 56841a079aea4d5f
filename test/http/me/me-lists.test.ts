/**
 * GET /me/memberships/, /me/submissions/, /me/subscriptions/: any signed-in
 * caller (owner, admin, contributor, a user with no book) sees their own
 * things across books, and never anyone else's: not another member's
 * memories, nothing of a book they left or one deleted. Paged to the end
 * with cursors bound to their list, updated_since, Last-Modified.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const ME = '/api/v1/me';

/** Every page of a /me list, following next_cursor to the end. */
async function allPages(path: string, u: TestUser, query: Record<string, string> = {}, limit = 2) {
  const items: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await t.get(`${ME}${path}`, { token: u.token, query: { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) } });
    expect(res.status).toBe(200);
    expect(res.headers['last-modified']).toBeTruthy();
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    items.push(...res.body.items);
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      return items;
    }
    cursor = res.body.next_cursor;
  }
  throw new Error('the list never ended');
}

/**
 * Four books: the contributor writes in A (admin there), B (contributor),
 * C (which they then leave) and D (which its owner deletes); others write in
 * A and B too. Each of the owner, the admin and a contributor subscribe.
 */
async function setting() {
  const owner = await newUser(t);
  const admin = await newUser(t);
  const writer = await newUser(t);
  const neighbour = await newUser(t);
  const outsider = await newUser(t);
  const books = {
    a: (await newBook(t, owner, { title: 'Alpha' })).slug,
    b: (await newBook(t, owner, { title: 'Beta' })).slug,
    c: (await newBook(t, owner, { title: 'Gamma' })).slug,
    d: (await newBook(t, owner, { title: 'Delta' })).slug,
  };
  await addMember(t, books.a, admin, 'admin');
  await addMember(t, books.a, writer, 'admin');
  for (const slug of [books.b, books.c, books.d]) await addMember(t, slug, writer, 'contributor');
  for (const slug of Object.values(books)) await addMember(t, slug, neighbour, 'contributor');
  const mine: Record<string, string[]> = { a: [], b: [], c: [], d: [] };
  for (const [name, slug] of Object.entries(books)) {
    for (let i = 0; i < 2; i++) {
      mine[name].push((await newSubmission(t, slug, writer, { text: `${name} by writer ${i}` })).id);
      await newSubmission(t, slug, neighbour, { text: `${name} by neighbour ${i}` });
    }
  }
  // One in B the owner deletes.
  const gone = await newSubmission(t, books.b, writer, { text: 'b deleted' });
  expect((await t.delete(`/api/v1/books/${books.b}/submissions/${gone.id}/`, { token: owner.token })).status).toBe(204);
  for (const u of [owner, admin, writer, neighbour]) await t.services.subscriptions.createSubscription({ slug: books.a, email: u.email, kind: 'new_submission' });
  await t.services.subscriptions.createSubscription({ slug: books.c, email: writer.email, kind: 'digest' });
  await t.services.subscriptions.createSubscription({ slug: books.b, email: writer.email, kind: 'digest' });
  // The writer leaves C; the owner deletes D.
  expect((await t.delete(`/api/v1/books/${books.c}/members/${writer.user.id}/`, { token: owner.token })).status).toBe(204);
  expect((await t.delete(`/api/v1/books/${books.d}/`, { token: owner.token })).status).toBe(204);
  return { owner, admin, writer, neighbour, outsider, books, mine };
}

describe('GET /me/submissions/', () => {
  it("shows a contributor their own memories in the books they still belong to, newest first, and nobody else's", async () => {
    const { writer, neighbour, owner, admin, outsider, books, mine } = await setting();
    const items = await allPages('/submissions/', writer);
    const expected = [...mine.a, ...mine.b];
    expect(items.map((s) => s.id).sort()).toEqual([...expected].sort());
    expect(items.every((s) => s.contributor_user?.id === writer.user.id)).toBe(true);
    // Newest first (ids are time-ordered and created in order).
    expect(items.map((s) => s.created_at)).toEqual([...items.map((s) => s.created_at)].sort().reverse());
    const fromA = items.find((s) => s.id === mine.a[0]);
    expect(fromA).toMatchObject({ book_slug: books.a, book: { slug: books.a, title: 'Alpha' }, status: 'pending', media: [] });
    expect(typeof fromA.etag).toBe('string');
    // Each role sees only what they wrote: the neighbour their own (A and B and C, not the deleted D).
    const theirs = await allPages('/submissions/', neighbour, {}, 50);
    expect(theirs.length).toBe(6);
    expect(new Set(theirs.map((s) => s.book.slug))).toEqual(new Set([books.a, books.b, books.c]));
    expect(theirs.every((s) => s.contributor_user.id === neighbour.user.id)).toBe(true);
    for (const u of [owner, admin, outsider]) expect(await allPages('/submissions/', u)).toEqual([]);
  });

  it('narrows to one book or one status; the cursor belongs to its filtered list', async () => {
    const { writer, owner, books, mine } = await setting();
    const onlyB = await allPages('/submissions/', writer, { book: books.b }, 1);
    expect(onlyB.map((s) => s.id).sort()).toEqual([...mine.b].sort());
    // A book they left, a deleted one, or one that does not exist: nothing.
    for (const slug of [books.c, books.d, 'no-such-book']) expect(await allPages('/submissions/', writer, { book: slug })).toEqual([]);
    const approve = await t.post(`/api/v1/books/${books.a}/submissions/${mine.a[0]}/approve/`, {}, { token: owner.token });
    expect(approve.status).toBe(200);
    expect((await allPages('/submissions/', writer, { status: 'approved' })).map((s) => s.id)).toEqual([mine.a[0]]);
    expect((await allPages('/submissions/', writer, { status: 'pending' })).length).toBe(mine.a.length + mine.b.length - 1);

    const first = await t.get(`${ME}/submissions/`, { token: writer.token, query: { limit: '1', book: books.b } });
    const other = await t.get(`${ME}/submissions/`, { token: writer.token, query: { limit: '1', cursor: first.body.next_cursor } });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('query_param_invalid');
    const bad = await t.get(`${ME}/submissions/`, { token: writer.token, query: { status: 'lost' } });
    expect(bad.status).toBe(400);
  });

  it('updated_since brings an edited memory back, oldest change first', async () => {
    const { writer, books, mine } = await setting();
    const first = await t.get(`${ME}/submissions/`, { token: writer.token });
    const since = first.headers['last-modified'] as string;
    await new Promise((r) => setTimeout(r, 1100));
    const edited = await t.patch(`/api/v1/books/${books.b}/submissions/${mine.b[1]}/`, { text_content: 'b, again' }, { token: writer.token });
    expect(edited.status).toBe(200);
    const sync = await t.get(`${ME}/submissions/`, { token: writer.token, query: { updated_since: since } });
    // The latest change comes last (a row changed just before the watermark may come again: never one missed).
    const last = sync.body.items.at(-1);
    expect(last.id).toBe(mine.b[1]);
    expect(last).toMatchObject({ text_content: 'b, again', book: { slug: books.b, title: 'Beta' } });
  });
});

describe('GET /me/memberships/', () => {
  it('lists every live book of the caller with their role (archived included, deleted and left not), newest joined first', async () => {
    const { owner, admin, writer, neighbour, outsider, books } = await setting();
    expect((await t.post(`/api/v1/books/${books.b}/archive/`, {}, { token: owner.token })).status).toBe(200);
    const mine = await allPages('/memberships/', writer, {}, 1);
    expect(mine).toEqual([
      { book: { slug: books.b, title: 'Beta', status: 'archived' }, role: 'contributor', joined_at: expect.any(String) },
      { book: { slug: books.a, title: 'Alpha', status: 'active' }, role: 'admin', joined_at: expect.any(String) },
    ]);
    expect((await allPages('/memberships/', owner)).map((m) => [m.book.slug, m.role])).toEqual([
      [books.c, 'owner'],
      [books.b, 'owner'],
      [books.a, 'owner'],
    ]);
    expect((await allPages('/memberships/', admin)).map((m) => [m.book.slug, m.role])).toEqual([[books.a, 'admin']]);
    expect((await allPages('/memberships/', neighbour)).map((m) => m.book.slug)).toEqual([books.c, books.b, books.a]);
    expect(await allPages('/memberships/', outsider)).toEqual([]);
  });

  it("updated_since brings back a membership whose book changed its title", async () => {
    const { owner, writer, books } = await setting();
    const first = await t.get(`${ME}/memberships/`, { token: writer.token });
    const since = first.headers['last-modified'] as string;
    await new Promise((r) => setTimeout(r, 1100));
    expect((await t.patch(`/api/v1/books/${books.a}/`, { title: 'Alpha, renamed' }, { token: owner.token })).status).toBe(200);
    const sync = await t.get(`${ME}/memberships/`, { token: writer.token, query: { updated_since: since } });
    expect(sync.body.items.at(-1)).toEqual({ book: { slug: books.a, title: 'Alpha, renamed', status: 'active' }, role: 'admin', joined_at: expect.any(String) });
  });
});

describe('GET /me/subscriptions/', () => {
  it('lists only the caller’s own subscriptions, in books they still belong to', async () => {
    const { owner, admin, writer, outsider, books } = await setting();
    const mine = await allPages('/subscriptions/', writer, {}, 1);
    expect(mine.map((s) => [s.book.slug, s.kind, s.user_id])).toEqual([
      [books.b, 'digest', writer.user.id],
      [books.a, 'new_submission', writer.user.id],
    ]);
    expect(Object.keys(mine[0]).sort()).toEqual(['book', 'channel', 'created_at', 'id', 'is_active', 'kind', 'updated_at', 'user_id']);
    for (const u of [owner, admin]) expect((await allPages('/subscriptions/', u)).map((s) => s.user_id)).toEqual([u.user.id]);
    expect(await allPages('/subscriptions/', outsider)).toEqual([]);
    // Cancelled through the per-book DELETE: still listed, inactive.
    expect((await t.delete(`/api/v1/books/${books.a}/notifications/subscriptions/${mine[1].id}/`, { token: writer.token })).status).toBe(200);
    const after = await allPages('/subscriptions/', writer);
    expect(after.find((s) => s.id === mine[1].id).is_active).toBe(false);
  });
});

describe('every /me list', () => {
  it('needs a signed-in caller, and refuses a bad query', async () => {
    const u = await newUser(t);
    for (const path of ['/memberships/', '/submissions/', '/subscriptions/']) {
      const anonymous = await t.get(`${ME}${path}`);
      expect(anonymous.status).toBe(401);
      const bad = await t.get(`${ME}${path}`, { token: u.token, query: { limit: '0' } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('query_param_invalid');
      const forged = await t.get(`${ME}${path}`, { token: u.token, query: { cursor: 'abc.def' } });
      expect(forged.status).toBe(400);
    }
  });
});
