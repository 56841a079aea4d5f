/**
 * Every way a member is added goes through the member service, so the plan's
 * cap (the owner counts) holds for the operator CLI as it will for the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e) => (e instanceof AppError ? e.code : String(e)));

describe('member cap', () => {
  it('the free plan takes 5 members, the owner included; the sixth is 402 member_limit_exceeded', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const members = t.services.members;
    for (let i = 0; i < 4; i++) await members.addMemberAsOwner(slug, { userId: (await newUser(t)).user.id }, 'contributor');
    const extra = await newUser(t);
    const refused = await members.addMemberAsOwner(slug, { email: extra.email }, 'admin').catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'member_limit_exceeded', status: 402, details: { plan: 'free', limit: 5 } });
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]);
    expect(n).toBe(5);
  });

  it('two concurrent adds for the last place: exactly one gets it', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const members = t.services.members;
    for (let i = 0; i < 3; i++) await members.addMemberAsOwner(slug, { userId: (await newUser(t)).user.id }, 'contributor');
    const [a, b] = await Promise.all([newUser(t), newUser(t)]);
    const outcomes = await Promise.all([a, b].map((u) => codeOf(members.addMemberAsOwner(slug, { userId: u.user.id }, 'contributor'))));
    expect(outcomes.sort()).toEqual(['member_limit_exceeded', 'ok']);
  });

  it('an existing member is 409 already_a_member, even at the cap; unknown users are 404 user_not_found; the owner stays owner', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const members = t.services.members;
    const m = await newUser(t);
    await members.addMemberAsOwner(slug, { userId: m.user.id }, 'admin');
    expect(await codeOf(members.addMemberAsOwner(slug, { userId: m.user.id }, 'contributor'))).toBe('already_a_member');
    expect(await codeOf(members.addMemberAsOwner(slug, { userId: owner.user.id }, 'admin'))).toBe('already_a_member');
    expect(await codeOf(members.addMemberAsOwner(slug, { email: 'nobody@example.test' }, 'admin'))).toBe('user_not_found');
    expect(await codeOf(members.addMemberAsOwner(slug, { userId: 'not-an-id' }, 'admin'))).toBe('user_not_found');
    expect(await codeOf(members.addMemberAsOwner('no-such-book', { userId: m.user.id }, 'admin'))).toBe('not_found');
    const perms = await t.get(`/api/v1/books/${slug}/permissions/`, { token: owner.token });
    expect(perms.body.role).toBe('owner');
  });

  it('an admin may add, a contributor may not (403), an outsider does not see the book (404)', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const members = t.services.members;
    const [admin, contributor, outsider, target] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t)]);
    await members.addMemberAsOwner(slug, { userId: admin.user.id }, 'admin');
    await members.addMemberAsOwner(slug, { userId: contributor.user.id }, 'contributor');
    expect(await codeOf(t.db.transaction((tx) => members.addMember(tx, contributor.user, slug, { userId: target.user.id }, 'contributor')))).toBe('insufficient_role');
    expect(await codeOf(t.db.transaction((tx) => members.addMember(tx, outsider.user, slug, { userId: target.user.id }, 'contributor')))).toBe('not_found');
    expect(await codeOf(t.db.transaction((tx) => members.addMember(tx, admin.user, slug, { userId: target.user.id }, 'contributor')))).toBe('ok');
  });
});
