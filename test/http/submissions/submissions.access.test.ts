import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newToken, newUser, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
let owner: TestUser, admin: TestUser, author: TestUser, otherContributor: TestUser, outsider: TestUser;
let revokedKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, admin, author, otherContributor, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t), newUser(t)]);
  revokedKey = await newToken(t, owner);
  await t.delete('/api/v1/auth/token/', { token: revokedKey });
});
afterAll(() => t.close());

type Caller = 'owner' | 'admin' | 'author' | 'other contributor' | 'outsider' | 'anonymous' | 'revoked';
const CALLERS: Caller[] = ['owner', 'admin', 'author', 'other contributor', 'outsider', 'anonymous', 'revoked'];

interface Route {
  name: string;
  method: string;
  /** Path under /books/{slug}/submissions/; `:id` is the target submission. */
  path: string;
  body?: unknown;
  /** The least role: owner/admin, or also the submission's author. */
  min: 'admin' | 'author';
  ok: number;
  /** The target must be approved first (pin). */
  approved?: boolean;
}

/** Every submission route. The target of each case is a fresh submission written by `author`. */
const ROUTES: Route[] = [
  { name: 'list', method: 'GET', path: '', min: 'admin', ok: 200 },
  { name: 'create', method: 'POST', path: '', body: { text_content: 'hello' }, min: 'admin', ok: 201 },
  { name: 'read', method: 'GET', path: ':id/', min: 'admin', ok: 200 },
  { name: 'edit', method: 'PATCH', path: ':id/', body: { text_content: 'edited' }, min: 'author', ok: 200 },
  { name: 'delete', method: 'DELETE', path: ':id/', min: 'admin', ok: 204 },
  { name: 'approve', method: 'POST', path: ':id/approve/', min: 'admin', ok: 200 },
  { name: 'reject', method: 'POST', path: ':id/reject/', body: { reason: 'no' }, min: 'admin', ok: 200 },
  { name: 'pin', method: 'POST', path: ':id/pin/', min: 'admin', ok: 200, approved: true },
  { name: 'unpin', method: 'POST', path: ':id/unpin/', min: 'admin', ok: 200 },
];

function expected(route: Route, caller: Caller, isPublic: boolean): number {
  if (caller === 'anonymous' || caller === 'revoked') return 401;
  if (caller === 'outsider') return isPublic ? 403 : 404;
  if (caller === 'owner' || caller === 'admin') return route.ok;
  if (route.min === 'admin') return 403;
  // A contributor may edit only their own submission; another's is not found for them.
  return caller === 'author' ? route.ok : 404;
}

const CODES: Record<number, string> = { 401: 'unauthorized', 403: 'insufficient_role', 404: 'not_found' };

function credentials(caller: Caller) {
  const users: Partial<Record<Caller, TestUser>> = { owner, admin, author, 'other contributor': otherContributor, outsider };
  if (caller === 'anonymous') return {};
  if (caller === 'revoked') return { token: revokedKey };
  return { token: users[caller]!.token };
}

const rowOf = async (id: string) => (await t.db.query<{ updated_at: string }>(`SELECT updated_at FROM submissions WHERE id = $1`, [id]))[0];

describe.each([false, true])('submission routes by role (public book: %s)', (isPublic) => {
  let slug: string;
  beforeAll(async () => {
    slug = (await newBook(t, owner, { plan: 'plus', isPublic })).slug;
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, author, 'contributor');
    await addMember(t, slug, otherContributor, 'contributor');
  });

  for (const route of ROUTES) {
    for (const caller of CALLERS) {
      const want = expected(route, caller, isPublic);
      it(`${route.name} as ${caller} → ${want}`, async () => {
        const target = await newSubmission(t, slug, author);
        if (route.approved) expect((await t.post(`/api/v1/books/${slug}/submissions/${target.id}/approve/`, undefined, { token: owner.token })).status).toBe(200);
        const before = await rowOf(target.id);
        const url = `/api/v1/books/${slug}/submissions/${route.path.replace(':id', target.id)}`;
        const res = await t.request(route.method, url, { ...credentials(caller), body: route.body });
        expect(res.status).toBe(want);
        if (want >= 400) {
          expect(res.body.code).toBe(CODES[want]);
          // A refused write changed nothing.
          expect(await rowOf(target.id)).toEqual(before);
        }
      });
    }
  }
});

describe('order of checks', () => {
  let slug: string;
  beforeAll(async () => {
    slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    await addMember(t, slug, author, 'contributor');
    await addMember(t, slug, otherContributor, 'contributor');
  });

  it("another contributor's stale If-Match gets 404, not 412; the author's gets 412", async () => {
    const s = await newSubmission(t, slug, author);
    const url = `/api/v1/books/${slug}/submissions/${s.id}/`;
    const other = await t.patch(url, { text_content: 'x' }, { token: otherContributor.token, headers: { 'if-match': '"stale"' } });
    expect(other.status).toBe(404);
    const mine = await t.patch(url, { text_content: 'x' }, { token: author.token, headers: { 'if-match': '"stale"' } });
    expect(mine.status).toBe(412);
    expect(mine.body.details.current_etag).toBe(`"${s.updated_at}"`);
  });

  it('a contributor on a moderation route without an Idempotency-Key gets 403 (role before idempotency)', async () => {
    const s = await newSubmission(t, slug, author);
    const res = await t.post(`/api/v1/books/${slug}/submissions/${s.id}/approve/`, undefined, { token: author.token, idempotencyKey: false });
    expect(res.status).toBe(403);
  });

  it("an outsider gets 404 for the book even with a malformed id or another book's id", async () => {
    const s = await newSubmission(t, slug, author);
    for (const id of ['not-a-uuid', s.id]) {
      const res = await t.get(`/api/v1/books/${slug}/submissions/${id}/`, { token: outsider.token });
      expect(res.status).toBe(404);
    }
  });

  it('the id is looked at only after authentication and role: 401, then 403, then 404', async () => {
    const url = `/api/v1/books/${slug}/submissions/not-an-id/approve/`;
    expect((await t.post(url, undefined, {})).status).toBe(401);
    expect((await t.post(url, undefined, { token: author.token })).status).toBe(403);
    expect((await t.post(url, undefined, { token: owner.token })).status).toBe(404);
  });

  it('the author may not read their own submission through the API (owner/admin only)', async () => {
    const s = await newSubmission(t, slug, author);
    expect((await t.get(`/api/v1/books/${slug}/submissions/${s.id}/`, { token: author.token })).status).toBe(403);
    expect((await t.get(`/api/v1/books/${slug}/submissions/`, { token: author.token })).status).toBe(403);
  });

  it('an admin may edit any submission, without resetting its moderation', async () => {
    const a = await newUser(t);
    await addMember(t, slug, a, 'admin');
    const s = await newSubmission(t, slug, author);
    await t.post(`/api/v1/books/${slug}/submissions/${s.id}/approve/`, undefined, { token: owner.token });
    const res = await t.patch(`/api/v1/books/${slug}/submissions/${s.id}/`, { text_content: 'tidied' }, { token: a.token });
    expect(res.body).toMatchObject({ text_content: 'tidied', status: 'approved' });
  });
});
