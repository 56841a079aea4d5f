/**
 * Who may call every /books/{slug}/… operation, generated from the served
 * OpenAPI document (test/helpers/access-cases.ts): each operation's
 * `x-book-access` gives the least role, whether it writes, its answer during
 * the grace period and the plan feature it needs, and every caller on a
 * public and a private book gets the contract's answer for it. An operation
 * without the extension fails the first test here. The hand-written cases
 * at the end pin the order of checks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  accessProblems,
  arrange,
  sendFor,
  bookOperations,
  bookState,
  callersFor,
  credentials,
  expectedOutcome,
  planFor,
  type BookAccess,
  type BookOperation,
  type Outcome,
  type People,
  type PlanSummary,
} from '../../helpers/access-cases.js';
import { buildTestApp, type TestResponse } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newToken, newUser, setGrace } from '../../helpers/factories.js';

// The document is read before the tests are collected, so each case is its own test.
// A transcription endpoint is configured (requests are only queued here: no worker runs).
const t = await buildTestApp({ env: { TRANSCRIPTION_URL: 'http://127.0.0.1:9' } });
const operations = bookOperations((await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json());
const declared = operations.filter((op): op is BookOperation & { access: BookAccess } => op.access !== null);
const label = (op: BookOperation) => `${op.operationId} (${op.method} ${op.template.slice('/api/v1'.length)})`;
const show = (o: Outcome) => (o.success ? '2xx' : `${o.status} ${o.code}`);

let people: People;
let plans: PlanSummary[];
beforeAll(async () => {
  const [owner, admin, contributor, otherContributor, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t), newUser(t), newUser(t)]);
  const revokedKey = await newToken(t, owner);
  expect((await t.delete('/api/v1/auth/token/', { token: revokedKey })).status).toBe(200);
  people = { owner, admin, contributor, otherContributor, outsider, revokedKey };
  plans = (await t.get('/api/v1/plans/')).body.items;
});

/** Sends the operation's request and checks the answer; a refused request must leave the book as it was. */
async function check(op: BookOperation, want: Outcome, bookId: string, send: () => Promise<TestResponse>) {
  const before = await bookState(t, bookId);
  const res = await send();
  if (want.success) {
    expect(res.status >= 200 && res.status < 300, `${label(op)}: expected 2xx, got ${res.status} ${res.text.slice(0, 300)}`).toBe(true);
  } else {
    expect({ status: res.status, code: res.body?.code }, res.text.slice(0, 300)).toEqual({ status: want.status, code: want.code });
    expect(await bookState(t, bookId), 'a refused request changed the book').toBe(before);
  }
}

describe('the served document', () => {
  it('has operations under /books/{slug}/, each with a well-formed x-book-access', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.flatMap(accessProblems)).toEqual([]);
  });
});

describe.each(declared.map((op) => [label(op), op] as const))('%s', (_name, op) => {
  const a = op.access;
  for (const isPublic of [false, true]) {
    for (const caller of callersFor(op)) {
      const want = expectedOutcome(a, caller, isPublic);
      it(`on a ${isPublic ? 'public' : 'private'} book, as ${caller} → ${show(want)}`, async () => {
        // Where rows are the contributor's own only, the others' rows are another contributor's;
        // elsewhere the row is the contributor's own, which must grant nothing.
        const ownRow = a.own_rows_only ? caller === 'contributor, own row' : true;
        const { bookId, url } = await arrange(t, people, op, { isPublic, plan: planFor(a, plans).slug, ownRow });
        await check(op, want, bookId, () => t.request(op.method, url, { ...credentials(people, caller), ...sendFor(op) }));
      });
    }
  }

  const inGrace: Outcome = a.write && !a.allowed_in_grace ? { success: false, status: a.grace_status!, code: 'book_grace_period' } : { success: true };
  it(`for the owner during the grace period → ${show(inGrace)}`, async () => {
    const { bookId, url } = await arrange(t, people, op, { isPublic: false, plan: planFor(a, plans).slug, ownRow: false, grace: true });
    await check(op, inGrace, bookId, () => t.request(op.method, url, { token: people.owner.token, ...sendFor(op) }));
  });

  if (a.feature) {
    it(`for the owner on a plan without ${a.feature} → 403 feature_gated`, async () => {
      const without = plans.find((p) => !p.features[a.feature!]);
      expect(without, `a shipped plan without ${a.feature}`).toBeDefined();
      const { bookId, url } = await arrange(t, people, op, { isPublic: false, plan: without!.slug, ownRow: false });
      await check(op, { success: false, status: 403, code: 'feature_gated' }, bookId, () => t.request(op.method, url, { token: people.owner.token, ...sendFor(op) }));
    });
  }

  // Role comes before idempotency: a contributor refused by role is told so, not asked for a key.
  if (a.write && !expectedOutcome(a, 'contributor', false).success) {
    it('as contributor without an Idempotency-Key → 403 insufficient_role', async () => {
      const { bookId, url } = await arrange(t, people, op, { isPublic: false, plan: planFor(a, plans).slug, ownRow: true });
      const send = () => t.request(op.method, url, { token: people.contributor.token, ...sendFor(op), idempotencyKey: false });
      await check(op, { success: false, status: 403, code: 'insufficient_role' }, bookId, send);
    });
  }
});

describe('visibility', () => {
  it('an outsider of a public book sees role null and no actions', async () => {
    const b = await newBook(t, people.owner, { isPublic: true });
    const res = await t.get(`/api/v1/books/${b.slug}/permissions/`, { token: people.outsider.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: null, actions: [] });
  });

  it.each(['no-such-book', 'UPPER', '..', 'a'.repeat(150)])('404 not_found for the slug %s', async (slug) => {
    const res = await t.get(`/api/v1/books/${encodeURIComponent(slug)}/`, { token: people.owner.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('an outsider of a private book gets 404 even with a malformed row id or a real one', async () => {
    const b = await newBook(t, people.owner, { plan: 'plus' });
    const s = await newSubmission(t, b.slug, people.owner);
    for (const id of ['not-a-uuid', s.id]) {
      const res = await t.get(`/api/v1/books/${b.slug}/submissions/${id}/`, { token: people.outsider.token });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('the row id is looked at only after authentication and role: 401, then 403, then 404', async () => {
    const b = await newBook(t, people.owner, { plan: 'plus' });
    await addMember(t, b.slug, people.contributor, 'contributor');
    const url = `/api/v1/books/${b.slug}/submissions/not-an-id/approve/`;
    expect((await t.post(url, undefined, {})).status).toBe(401);
    expect((await t.post(url, undefined, { token: people.contributor.token })).status).toBe(403);
    expect((await t.post(url, undefined, { token: people.owner.token })).status).toBe(404);
  });
});

describe('preconditions and the order of checks', () => {
  it('a non-member of a private book with a stale If-Match gets 404, not 412', async () => {
    const b = await newBook(t, people.owner);
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: people.outsider.token, headers: { 'if-match': '"stale"' } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it("another contributor's stale If-Match on a submission gets 403, not 412; the author's gets 412", async () => {
    const b = await newBook(t, people.owner, { plan: 'plus' });
    await addMember(t, b.slug, people.contributor, 'contributor');
    await addMember(t, b.slug, people.otherContributor, 'contributor');
    const s = await newSubmission(t, b.slug, people.contributor);
    const url = `/api/v1/books/${b.slug}/submissions/${s.id}/`;
    const other = await t.patch(url, { text_content: 'x' }, { token: people.otherContributor.token, headers: { 'if-match': '"stale"' } });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('insufficient_role');
    const mine = await t.patch(url, { text_content: 'x' }, { token: people.contributor.token, headers: { 'if-match': '"stale"' } });
    expect(mine.status).toBe(412);
    expect(mine.body.details.current_etag).toBe(`"${s.updated_at}"`);
  });

  it("another member's submission is a matter of role: a contributor gets 403 ahead of 428 and 422, the author 428", async () => {
    const b = await newBook(t, people.owner, { plan: 'plus' });
    await addMember(t, b.slug, people.contributor, 'contributor');
    await addMember(t, b.slug, people.otherContributor, 'contributor');
    const s = await newSubmission(t, b.slug, people.contributor);
    const url = `/api/v1/books/${b.slug}/submissions/${s.id}/`;
    const noKey = await t.patch(url, { text_content: 'x' }, { token: people.otherContributor.token, idempotencyKey: false });
    expect({ status: noKey.status, code: noKey.body.code }).toEqual({ status: 403, code: 'insufficient_role' });
    const badBody = await t.patch(url, { text_content: 42 }, { token: people.otherContributor.token });
    expect({ status: badBody.status, code: badBody.body.code }).toEqual({ status: 403, code: 'insufficient_role' });
    const author = await t.patch(url, { text_content: 'x' }, { token: people.contributor.token, idempotencyKey: false });
    expect(author.status).toBe(428);
  });

  it("the route's own value checks come after the precondition and the gates", async () => {
    const free = await newBook(t, people.owner);
    const blank = await t.post(`/api/v1/books/${free.slug}/submissions/`, { text_content: '   ' }, { token: people.owner.token });
    expect({ status: blank.status, code: blank.body.code }).toEqual({ status: 403, code: 'feature_gated' });
    const stale = await t.patch(`/api/v1/books/${free.slug}/`, { theme: 'no-such-theme' }, { token: people.owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(stale.status).toBe(412);
    const current = await t.patch(`/api/v1/books/${free.slug}/`, { theme: 'no-such-theme' }, { token: people.owner.token, headers: { 'if-match': free.etag } });
    expect({ status: current.status, code: current.body.code }).toEqual({ status: 400, code: 'validation_failed' });
  });

  it('an admin may edit any submission, without resetting its moderation', async () => {
    const b = await newBook(t, people.owner, { plan: 'plus' });
    await addMember(t, b.slug, people.admin, 'admin');
    const s = await newSubmission(t, b.slug, people.owner);
    expect((await t.post(`/api/v1/books/${b.slug}/submissions/${s.id}/approve/`, undefined, { token: people.owner.token })).status).toBe(200);
    const res = await t.patch(`/api/v1/books/${b.slug}/submissions/${s.id}/`, { text_content: 'tidied' }, { token: people.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ text_content: 'tidied', status: 'approved' });
  });
});

describe('grace period', () => {
  it('billing and permissions show it; a refused write is not stored, so the same key works once billing is settled', async () => {
    const b = await newBook(t, people.owner);
    await setGrace(t, b.slug, true);
    const billing = await t.get(`/api/v1/books/${b.slug}/billing/`, { token: people.owner.token });
    expect(billing.body.status).toBe('grace_period');
    const perms = await t.get(`/api/v1/books/${b.slug}/permissions/`, { token: people.owner.token });
    expect(perms.body.actions).not.toContain('update');
    expect(perms.body.actions).toContain('delete');

    const key = crypto.randomUUID();
    const refused = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'later' }, { token: people.owner.token, idempotencyKey: key });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('book_grace_period');
    await setGrace(t, b.slug, false);
    const settled = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'later' }, { token: people.owner.token, idempotencyKey: key });
    expect(settled.status).toBe(200);
    expect(settled.body.subtitle).toBe('later');
  });

  it('a stale If-Match is 412 before the grace period; a current one meets the 403', async () => {
    const b = await newBook(t, people.owner);
    await setGrace(t, b.slug, true);
    const etag = (await t.get(`/api/v1/books/${b.slug}/`, { token: people.owner.token })).body.etag;
    const stale = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: people.owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.details.current_etag).toBe(etag);
    const current = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'x' }, { token: people.owner.token, headers: { 'if-match': etag } });
    expect(current.status).toBe(403);
    expect(current.body.code).toBe('book_grace_period');
  });

  it('schema errors still come before the grace period (422)', async () => {
    const b = await newBook(t, people.owner);
    await setGrace(t, b.slug, true);
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { slug: 'new-slug' }, { token: people.owner.token });
    expect(res.status).toBe(422);
  });
});
