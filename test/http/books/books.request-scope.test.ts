import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser, type TestUser } from '../../helpers/factories.js';

// What the early book guard read is remembered for its request alone (lib/request-scope.ts, carried on the
// request's actor since issue 44): the book is read once per request, and never lent to another caller.

let t: TestApp;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let slug: string;
beforeAll(async () => {
  t = await buildTestApp();
  [owner, viewer, stranger] = [await newUser(t), await newUser(t), await newUser(t)];
  ({ slug } = await newBook(t, owner));
  await addMember(t, slug, viewer, 'admin');
});
afterAll(() => t.close());

/** The statements that read the book's access context while fn runs (watched on the app's own Db). */
async function contextReads(fn: () => Promise<unknown>): Promise<number> {
  const db = t.db as { query: (text: string, params?: unknown[]) => Promise<unknown> };
  const query = db.query;
  let reads = 0;
  db.query = (text, params) => {
    if (text.includes('CROSS JOIN LATERAL') && text.includes('book_members')) reads++;
    return query.call(t.db, text, params);
  };
  try {
    await fn();
  } finally {
    db.query = query;
  }
  return reads;
}

it('reads the book once for the guard and the service together', async () => {
  let status = 0;
  expect(await contextReads(async () => (status = (await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).status))).toBe(1);
  expect(status).toBe(200);
});

it('never answers one caller with what another caller’s request read', async () => {
  const asked = Array.from({ length: 6 }, (_, i) => [owner, viewer, stranger][i % 3]);
  const answers = await Promise.all(asked.map((u) => t.get(`/api/v1/books/${slug}/`, { token: u.token })));
  expect(answers.map((r) => r.status)).toEqual(asked.map((u) => (u === stranger ? 404 : 200)));
  expect(answers.filter((r) => r.status === 200).map((r) => r.body.role)).toEqual(asked.filter((u) => u !== stranger).map((u) => (u === owner ? 'owner' : 'admin')));
});
