import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newToken, newUser, setGrace, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
let owner: TestUser, admin: TestUser, contributor: TestUser, outsider: TestUser;
let revokedKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, admin, contributor, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t)]);
  revokedKey = await newToken(t, owner);
  await t.delete('/api/v1/auth/token/', { token: revokedKey });
});
afterAll(() => t.close());

type Caller = 'owner' | 'admin' | 'contributor' | 'outsider' | 'anonymous' | 'revoked';
type Min = 'owner' | 'admin' | 'visible';

/** Every /books/{slug}/… route with the least role it needs. Routes added later add theirs here. */
const ROUTES: { name: string; method: string; path: string; body?: unknown; min: Min; write: boolean }[] = [
  { name: 'read book', method: 'GET', path: '', min: 'admin', write: false },
  { name: 'update book', method: 'PATCH', path: '', body: { subtitle: 'x' }, min: 'admin', write: true },
  { name: 'archive', method: 'POST', path: 'archive/', min: 'owner', write: true },
  { name: 'restore', method: 'POST', path: 'restore/', min: 'owner', write: true },
  { name: 'permissions', method: 'GET', path: 'permissions/', min: 'visible', write: false },
  { name: 'billing', method: 'GET', path: 'billing/', min: 'owner', write: false },
];

function expected(min: Min, caller: Caller, isPublic: boolean): number | 'ok' {
  if (caller === 'anonymous' || caller === 'revoked') return 401;
  if (caller === 'outsider') return isPublic ? (min === 'visible' ? 'ok' : 403) : 404;
  if (min === 'visible' || caller === 'owner') return 'ok';
  if (caller === 'admin') return min === 'admin' ? 'ok' : 403;
  return 403; // contributor
}

function credentials(caller: Caller) {
  const users = { owner, admin, contributor, outsider } as Record<string, TestUser>;
  if (caller === 'anonymous') return {};
  if (caller === 'revoked') return { token: revokedKey };
  return { token: users[caller].token };
}

describe.each([false, true])('book routes by role (public book: %s)', (isPublic) => {
  let slug: string;
  beforeAll(async () => {
    slug = (await newBook(t, owner, { isPublic })).slug;
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, contributor, 'contributor');
  });

  for (const route of ROUTES) {
    for (const caller of ['owner', 'admin', 'contributor', 'outsider', 'anonymous', 'revoked'] as Caller[]) {
      const want = expected(route.min, caller, isPublic);
      it(`${route.name} as ${caller} → ${want}`, async () => {
        const res = await t.request(route.method, `/api/v1/books/${slug}/${route.path}`, { ...credentials(caller), body: route.body });
        if (want === 'ok') {
          expect(res.status).toBe(200);
        } else {
          expect(res.status).toBe(want);
          expect(res.body.code).toBe({ 401: 'unauthorized', 403: 'insufficient_role', 404: 'not_found' }[want]);
        }
      });
    }
  }

  it('an outsider of a public book sees role null and no actions', async () => {
    if (!isPublic) return;
    const res = await t.get(`/api/v1/books/${slug}/permissions/`, { token: outsider.token });
    expect(res.body).toMatchObject({ role: null, actions: [] });
  });
});

describe('unknown and malformed slugs', () => {
  it.each(['no-such-book', 'UPPER', '..', 'a'.repeat(150)])('404 not_found for %s', async (slug) => {
    const res = await t.get(`/api/v1/books/${encodeURIComponent(slug)}/`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('a non-member with a stale If-Match gets 404, not 412', async () => {
    const b = await newBook(t, owner);
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: outsider.token, headers: { 'if-match': '"stale"' } });
    expect(res.status).toBe(404);
  });

  it('a contributor without an Idempotency-Key gets 403 (role before idempotency)', async () => {
    const b = await newBook(t, owner);
    await addMember(t, b.slug, contributor, 'contributor');
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: contributor.token, idempotencyKey: false });
    expect(res.status).toBe(403);
  });
});

describe('grace period', () => {
  it('every write answers 403 book_grace_period; reads still work; lifting it restores writes', async () => {
    const b = await newBook(t, owner);
    await setGrace(t, b.slug, true);
    for (const route of ROUTES.filter((r) => r.write)) {
      const res = await t.request(route.method, `/api/v1/books/${b.slug}/${route.path}`, { token: owner.token, body: route.body });
      expect(res.status, route.name).toBe(403);
      expect(res.body.code).toBe('book_grace_period');
    }
    for (const route of ROUTES.filter((r) => !r.write)) {
      expect((await t.request(route.method, `/api/v1/books/${b.slug}/${route.path}`, { token: owner.token })).status, route.name).toBe(200);
    }
    const billing = await t.get(`/api/v1/books/${b.slug}/billing/`, { token: owner.token });
    expect(billing.body.status).toBe('grace_period');
    const perms = await t.get(`/api/v1/books/${b.slug}/permissions/`, { token: owner.token });
    expect(perms.body.actions).not.toContain('update');
    expect(perms.body.actions).toContain('delete');

    // A grace-period 403 is not stored: the same key works once billing is settled.
    const key = crypto.randomUUID();
    expect((await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'later' }, { token: owner.token, idempotencyKey: key })).status).toBe(403);
    await setGrace(t, b.slug, false);
    expect((await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'later' }, { token: owner.token, idempotencyKey: key })).status).toBe(200);
  });

  it('a stale If-Match is 412 before the grace period; a current one meets the 403', async () => {
    const b = await newBook(t, owner);
    await setGrace(t, b.slug, true);
    const etag = (await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).body.etag;
    const stale = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.details.current_etag).toBe(etag);
    const current = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: owner.token, headers: { 'if-match': etag } });
    expect(current.status).toBe(403);
    expect(current.body.code).toBe('book_grace_period');
  });

  it('schema errors still come before the grace period (422)', async () => {
    const b = await newBook(t, owner);
    await setGrace(t, b.slug, true);
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { slug: 'new-slug' }, { token: owner.token });
    expect(res.status).toBe(422);
  });
});
