/** Members: the contract's refusals, in the contract's order. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser, setGrace } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const url = (slug: string) => `/api/v1/books/${slug}/members/`;
const memberCount = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]))[0].n;

describe('add member: refusals', () => {
  it('404 user_not_found for an unknown email or user_id, or a malformed id', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    for (const body of [{ email: 'nobody@example.test' }, { user_id: crypto.randomUUID() }, { user_id: 'not-an-id' }]) {
      const res = await t.post(url(slug), body, { token: owner.token });
      expect({ status: res.status, code: res.body.code }, JSON.stringify(body)).toEqual({ status: 404, code: 'user_not_found' });
    }
  });

  it('409 already_a_member, the owner included', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t);
    await addMember(t, slug, u, 'contributor');
    for (const body of [{ user_id: u.user.id }, { email: owner.email, role: 'contributor' }]) {
      const res = await t.post(url(slug), body, { token: owner.token });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'already_a_member' });
    }
    const perms = await t.get(`/api/v1/books/${slug}/permissions/`, { token: owner.token });
    expect(perms.body.role).toBe('owner');
  });

  it('402 member_limit_exceeded at max_members_per_book, the owner counting', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug; // free: 5 members
    for (let i = 0; i < 4; i++) expect((await t.post(url(slug), { user_id: (await newUser(t)).user.id }, { token: owner.token })).status).toBe(201);
    const res = await t.post(url(slug), { user_id: (await newUser(t)).user.id }, { token: owner.token });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'member_limit_exceeded', details: { plan: 'free', limit: 5 } });
    expect(await memberCount(slug)).toBe(5);
  });

  it('422 for both, neither, role owner, or an unknown field', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t);
    for (const body of [{ email: u.email, user_id: u.user.id }, {}, { role: 'admin' }, { user_id: u.user.id, role: 'owner' }, { email: u.email, is_owner: true }]) {
      const res = await t.post(url(slug), body, { token: owner.token });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(res.body.detail), JSON.stringify(body)).toBe(true);
    }
    const owned = await t.post(url(slug), { user_id: u.user.id, role: 'owner' }, { token: owner.token });
    expect(owned.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'role'], type: 'enum' })]);
    expect(await memberCount(slug)).toBe(1);
  });

  it('roles: a contributor 403, an outsider 404, without a key 428 for the owner', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const [contributor, outsider, target] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    await addMember(t, slug, contributor, 'contributor');
    const asContributor = await t.post(url(slug), { user_id: target.user.id }, { token: contributor.token, idempotencyKey: false });
    expect({ status: asContributor.status, code: asContributor.body.code }).toEqual({ status: 403, code: 'insufficient_role' });
    const asOutsider = await t.post(url(slug), { user_id: target.user.id }, { token: outsider.token });
    expect({ status: asOutsider.status, code: asOutsider.body.code }).toEqual({ status: 404, code: 'not_found' });
    expect((await t.post(url(slug), { user_id: target.user.id }, { token: owner.token, idempotencyKey: false })).status).toBe(428);
    expect((await t.get(url(slug), { token: contributor.token })).status).toBe(403);
    expect((await t.get(url(slug), { token: outsider.token })).status).toBe(404);
  });

  it('403 book_grace_period on writes; the list still reads', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t);
    await addMember(t, slug, u, 'admin');
    await setGrace(t, slug, true);
    const add = await t.post(url(slug), { user_id: (await newUser(t)).user.id }, { token: owner.token });
    expect({ status: add.status, code: add.body.code }).toEqual({ status: 403, code: 'book_grace_period' });
    const remove = await t.delete(`${url(slug)}${u.user.id}/`, { token: owner.token });
    expect({ status: remove.status, code: remove.body.code }).toEqual({ status: 403, code: 'book_grace_period' });
    expect((await t.get(url(slug), { token: owner.token })).status).toBe(200);
    expect(await memberCount(slug)).toBe(2);
  });
});

describe('remove member: refusals', () => {
  it('400 cannot_remove_owner', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const res = await t.delete(`${url(slug)}${owner.user.id}/`, { token: owner.token });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'cannot_remove_owner' });
    expect(await memberCount(slug)).toBe(1);
  });

  it('owner only: an admin gets 403 insufficient_role, even on themselves; an outsider 404', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const [admin, other, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, other, 'contributor');
    for (const target of [other, admin, owner]) {
      const res = await t.delete(`${url(slug)}${target.user.id}/`, { token: admin.token });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'insufficient_role' });
    }
    const res = await t.delete(`${url(slug)}${other.user.id}/`, { token: outsider.token });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'not_found' });
    expect(await memberCount(slug)).toBe(3);
  });

  it('a malformed user_id is 404 not_found, answered before the key is claimed', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const key = crypto.randomUUID();
    const res = await t.delete(`${url(slug)}not-a-user/`, { token: owner.token, idempotencyKey: key });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'not_found' });
    expect((await t.db.query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key])).length).toBe(0);
  });
});
