/** Members: list on the shared list path, add by email or user_id, remove. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const url = (slug: string) => `/api/v1/books/${slug}/members/`;

describe('GET /books/{slug}/members/', () => {
  it('lists everyone with a role, the owner included, newest first, with the member fields', async () => {
    const owner = await newUser(t, { firstName: 'Olive', lastName: 'Owner' });
    const slug = (await newBook(t, owner)).slug;
    const admin = await newUser(t, { firstName: 'Ada', lastName: 'Admin' });
    const contributor = await newUser(t);
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, contributor, 'contributor');

    const res = await t.get(url(slug), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers['last-modified']).toMatch(/GMT$/);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.items.map((m: any) => [m.user_id, m.role])).toEqual([
      [contributor.user.id, 'contributor'],
      [admin.user.id, 'admin'],
      [owner.user.id, 'owner'],
    ]);
    expect(res.body.items[1]).toEqual({
      user_id: admin.user.id,
      email: admin.email,
      first_name: 'Ada',
      last_name: 'Admin',
      role: 'admin',
      joined_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
      updated_at: expect.stringMatching(/\.\d{6}Z$/),
    });
    // An admin reads it too.
    expect((await t.get(url(slug), { token: admin.token })).status).toBe(200);
  });

  it('pages with a cursor bound to its book, and syncs with updated_since', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const others = [];
    for (let i = 0; i < 4; i++) {
      const u = await newUser(t);
      await addMember(t, slug, u, 'contributor');
      others.push(u);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.get(url(slug), { token: owner.token, query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((m: any) => m.user_id));
      cursor = res.body.next_cursor ?? undefined;
      expect(res.body.has_more).toBe(Boolean(cursor));
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);

    const first = await t.get(url(slug), { token: owner.token, query: { limit: '2' } });
    const otherBook = (await newBook(t, owner)).slug;
    const foreign = await t.get(url(otherBook), { token: owner.token, query: { cursor: first.body.next_cursor } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('query_param_invalid');

    // Sync: nothing has changed since the watermark is pinned …
    const all = await t.get(url(slug), { token: owner.token });
    const since = all.headers['last-modified'] as string;
    await new Promise((r) => setTimeout(r, 1100));
    const newcomer = await newUser(t);
    await addMember(t, slug, newcomer, 'admin');
    const changed = await t.get(url(slug), { token: owner.token, query: { updated_since: since } });
    expect(changed.status).toBe(200);
    const ids = changed.body.items.map((m: any) => m.user_id);
    // … a new member shows up (older rows may be seen again, none is missed), oldest change first.
    expect(ids).toContain(newcomer.user.id);
    expect(ids[ids.length - 1]).toBe(newcomer.user.id);
    const stamps = changed.body.items.map((m: any) => m.updated_at);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it("a member's new name moves them into the next sync", async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const m = await newUser(t);
    await addMember(t, slug, m, 'contributor');
    const before = await t.get(url(slug), { token: owner.token });
    await new Promise((r) => setTimeout(r, 1100));
    const renamed = await t.patch('/api/v1/me/', { first_name: 'Renamed' }, { token: m.token });
    expect(renamed.status).toBe(200);
    const after = await t.get(url(slug), { token: owner.token, query: { updated_since: before.headers['last-modified'] as string } });
    // Rows within the watermark's margin may come again; the renamed member must come, last.
    expect(after.body.items.map((x: any) => [x.user_id, x.first_name]).at(-1)).toEqual([m.user.id, 'Renamed']);
  });
});

describe('POST /books/{slug}/members/', () => {
  it('adds by email as admin by default: 201 with Location, and the member is listed', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t, { firstName: 'Grace', lastName: 'Hopper' });
    const res = await t.post(url(slug), { email: u.email.toUpperCase() }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/books/${slug}/members/${u.user.id}/`);
    expect(res.body).toMatchObject({ user_id: u.user.id, email: u.email, first_name: 'Grace', last_name: 'Hopper', role: 'admin' });
    const list = await t.get(url(slug), { token: owner.token });
    expect(list.body.items.map((m: any) => m.user_id)).toContain(u.user.id);
    // The new admin can now read the book.
    expect((await t.get(`/api/v1/books/${slug}/`, { token: u.token })).status).toBe(200);
  });

  it('adds by user_id as contributor; an admin may add too; a replay with the same key adds nothing more', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    await addMember(t, slug, admin, 'admin');
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const res = await t.post(url(slug), { user_id: u.user.id, role: 'contributor' }, { token: admin.token, idempotencyKey: key });
    expect(res.status).toBe(201);
    expect(res.body.role).toBe('contributor');
    const again = await t.post(url(slug), { user_id: u.user.id, role: 'contributor' }, { token: admin.token, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(res.body);
    // A contributor has no general API access to the book.
    expect((await t.get(`/api/v1/books/${slug}/`, { token: u.token })).status).toBe(403);
  });
});

describe('DELETE /books/{slug}/members/{user_id}/', () => {
  it('the owner removes a member: 204, and 204 again when already removed or never a member', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t);
    await addMember(t, slug, u, 'admin');
    const res = await t.delete(`${url(slug)}${u.user.id}/`, { token: owner.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.get(url(slug), { token: owner.token })).body.items.map((m: any) => m.user_id)).not.toContain(u.user.id);
    expect((await t.get(`/api/v1/books/${slug}/`, { token: u.token })).status).toBe(404);
    expect((await t.delete(`${url(slug)}${u.user.id}/`, { token: owner.token })).status).toBe(204);
    expect((await t.delete(`${url(slug)}${crypto.randomUUID()}/`, { token: owner.token })).status).toBe(204);
  });

  it('frees a place under the cap', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const members = [];
    for (let i = 0; i < 4; i++) {
      const u = await newUser(t);
      await addMember(t, slug, u, 'contributor');
      members.push(u);
    }
    const late = await newUser(t);
    expect((await t.post(url(slug), { user_id: late.user.id }, { token: owner.token })).status).toBe(402);
    expect((await t.delete(`${url(slug)}${members[0].user.id}/`, { token: owner.token })).status).toBe(204);
    expect((await t.post(url(slug), { user_id: late.user.id }, { token: owner.token })).status).toBe(201);
  });
});

describe('the operator CLI path', () => {
  it('member add goes through the same service and rules', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t);
    const m = await t.services.members.addMemberAsOwner(slug, { email: u.email }, 'contributor');
    expect(m).toMatchObject({ user_id: u.user.id, email: u.email, role: 'contributor' });
    await expect(t.services.members.addMemberAsOwner(slug, { email: u.email }, 'admin')).rejects.toMatchObject({ code: 'already_a_member' });
  });
});
