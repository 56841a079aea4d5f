/** Invitations: refusals, and that a refusal leaves nothing behind. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser, setGrace } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const url = (slug: string) => `/api/v1/books/${slug}/invitations/`;
const count = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM invitations i JOIN books b ON b.id = i.book_id WHERE b.slug = $1`, [slug]))[0].n;
const jobs = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.queue.schema}.job WHERE name IN ('mail.send', 'sms.send', 'telegram.send')`))[0].n;

describe('create: refusals', () => {
  it.each([
    ['email', 'not-an-email'],
    ['email', 'two@@example.test'],
    ['email', 'spaces in@example.test'],
    ['phone', '12345'],
    ['phone', 'call me'],
    ['phone', '+999 123'],
    ['telegram', '@ab'],
    ['telegram', 'has space'],
    ['telegram', '9starts_with_digit'],
    ['telegram', 'x'.repeat(40)],
  ])('400 validation_failed for the %s %j', async (identifier_type, identifier) => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const res = await t.post(url(slug), { identifier_type, identifier }, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: { field: 'identifier', identifier_type } });
    expect(await count(slug)).toBe(0);
  });

  it('422 for a schema failure: unknown type, role owner, missing identifier, unknown field', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    for (const body of [
      { identifier_type: 'fax', identifier: '123' },
      { identifier_type: 'email', identifier: 'a@example.test', role: 'owner' },
      { identifier_type: 'email' },
      { identifier_type: 'email', identifier: '' },
      { identifier_type: 'email', identifier: 'a@example.test', status: 'accepted' },
    ]) {
      const res = await t.post(url(slug), body, { token: owner.token });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect(await count(slug)).toBe(0);
  });

  it('409 invitation_pending while one for the same identifier waits; another book is not affected', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const first = await t.post(url(slug), { identifier_type: 'email', identifier: 'twice@example.test' }, { token: owner.token });
    const before = await jobs();
    const second = await t.post(url(slug), { identifier_type: 'email', identifier: 'Twice@Example.test', role: 'admin' }, { token: owner.token });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'invitation_pending', details: { invitation_id: first.body.id } });
    expect(await jobs()).toBe(before);
    const elsewhere = (await newBook(t, owner)).slug;
    expect((await t.post(url(elsewhere), { identifier_type: 'email', identifier: 'twice@example.test' }, { token: owner.token })).status).toBe(201);
  });

  it('an existing member: 409 already_a_member; at the cap: 402 member_limit_exceeded; nothing stored', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug; // free: 5 members
    const member = await newUser(t);
    await addMember(t, slug, member, 'contributor');
    const dup = await t.post(url(slug), { identifier_type: 'email', identifier: member.email }, { token: owner.token });
    expect({ status: dup.status, code: dup.body.code }).toEqual({ status: 409, code: 'already_a_member' });
    const self = await t.post(url(slug), { identifier_type: 'email', identifier: owner.email }, { token: owner.token });
    expect({ status: self.status, code: self.body.code }).toEqual({ status: 409, code: 'already_a_member' });
    for (let i = 0; i < 3; i++) await addMember(t, slug, await newUser(t), 'contributor');
    const late = await newUser(t);
    const before = await jobs();
    const capped = await t.post(url(slug), { identifier_type: 'email', identifier: late.email }, { token: owner.token });
    expect(capped.status).toBe(402);
    expect(capped.body).toMatchObject({ code: 'member_limit_exceeded', details: { plan: 'free', limit: 5 } });
    expect(await count(slug)).toBe(0);
    expect(await jobs()).toBe(before);
    // Someone without an account can still be invited: the cap is met when they accept.
    expect((await t.post(url(slug), { identifier_type: 'email', identifier: 'newcomer@example.test' }, { token: owner.token })).status).toBe(201);
  });

  it('roles and gates: contributor 403, outsider 404, grace period 403 on create and revoke, the list still reads', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const [contributor, outsider] = [await newUser(t), await newUser(t)];
    await addMember(t, slug, contributor, 'contributor');
    const body = { identifier_type: 'email', identifier: 'gated@example.test' };
    const c = await t.post(url(slug), body, { token: contributor.token, idempotencyKey: false });
    expect({ status: c.status, code: c.body.code }).toEqual({ status: 403, code: 'insufficient_role' });
    expect((await t.get(url(slug), { token: contributor.token })).status).toBe(403);
    const o = await t.post(url(slug), body, { token: outsider.token });
    expect({ status: o.status, code: o.body.code }).toEqual({ status: 404, code: 'not_found' });
    expect((await t.get(url(slug), { token: outsider.token })).status).toBe(404);

    const inv = (await t.post(url(slug), { identifier_type: 'email', identifier: 'before-grace@example.test' }, { token: owner.token })).body;
    await setGrace(t, slug, true);
    const g = await t.post(url(slug), body, { token: owner.token });
    expect({ status: g.status, code: g.body.code }).toEqual({ status: 403, code: 'book_grace_period' });
    const r = await t.delete(`${url(slug)}${inv.id}/`, { token: owner.token });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 403, code: 'book_grace_period' });
    expect((await t.get(url(slug), { token: owner.token })).body.items.map((i: any) => i.status)).toEqual(['pending']);
  });
});

describe('revoke: refusals', () => {
  it('404 for an unknown, malformed or other book’s id; 409 invalid_state for an accepted one', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const other = (await newBook(t, owner)).slug;
    const foreign = (await t.post(url(other), { identifier_type: 'email', identifier: 'foreign@example.test' }, { token: owner.token })).body;
    for (const id of [crypto.randomUUID(), 'not-an-id', foreign.id]) {
      const res = await t.delete(`${url(slug)}${id}/`, { token: owner.token });
      expect({ status: res.status, code: res.body.code }, id).toEqual({ status: 404, code: 'not_found' });
    }
    const member = await newUser(t);
    const accepted = (await t.post(url(slug), { identifier_type: 'email', identifier: member.email }, { token: owner.token })).body;
    expect(accepted.status).toBe('accepted');
    const res = await t.delete(`${url(slug)}${accepted.id}/`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'invalid_state', details: { status: 'accepted' } });
  });
});
