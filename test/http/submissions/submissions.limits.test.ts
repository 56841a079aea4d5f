import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, setGrace, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  // A plan of its own whose cap the tests set, so the shipped catalog stays as it is.
  await t.db.query(
    `INSERT INTO plans (slug, name, sort_order, features, max_members_per_book, storage_bytes_per_book, max_approved_submissions_per_book)
     VALUES ('capped', 'Capped', 9, '{"api_access": true}', 5, 1073741824, 2)`,
  );
});

const base = (slug: string) => `/api/v1/books/${slug}/submissions/`;
const setCap = (cap: number | null) => t.db.query(`UPDATE plans SET max_approved_submissions_per_book = $1 WHERE slug = 'capped'`, [cap]);
const approve = (slug: string, id: string, u: TestUser) => t.post(`${base(slug)}${id}/approve/`, undefined, { token: u.token });
const approvedCount = async (slug: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1 AND s.status = 'approved'`, [slug]))[0].n;

describe('402 plan_limit_exceeded', () => {
  it("refuses an approval beyond the plan's max_approved_submissions_per_book; rejecting one frees a place", async () => {
    await setCap(2);
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'capped' })).slug;
    const [a, b, c] = [await newSubmission(t, slug, owner), await newSubmission(t, slug, owner), await newSubmission(t, slug, owner)];
    expect((await approve(slug, a.id, owner)).status).toBe(200);
    expect((await approve(slug, b.id, owner)).status).toBe(200);
    const over = await approve(slug, c.id, owner);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ code: 'plan_limit_exceeded', details: { plan: 'capped', limit: 2, approved: 2 } });
    expect((await t.get(`${base(slug)}${c.id}/`, { token: owner.token })).body.status).toBe('pending');
    // At the cap, moves that do not add an approved row still work.
    expect((await approve(slug, a.id, owner)).body.changed).toBe(false);
    expect((await t.post(`${base(slug)}${a.id}/pin/`, undefined, { token: owner.token })).status).toBe(200);

    expect((await t.post(`${base(slug)}${a.id}/reject/`, undefined, { token: owner.token })).status).toBe(200);
    expect((await approve(slug, c.id, owner)).status).toBe(200);
    // From rejected counts too.
    expect((await approve(slug, a.id, owner)).status).toBe(402);
    // No cap: unlimited.
    await setCap(null);
    expect((await approve(slug, a.id, owner)).status).toBe(200);
    expect(await approvedCount(slug)).toBe(3);
  });

  it('two concurrent approvals cannot both take the last place', async () => {
    await setCap(2);
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'capped' })).slug;
    const first = await newSubmission(t, slug, owner);
    expect((await approve(slug, first.id, owner)).status).toBe(200);
    const racers = await Promise.all(Array.from({ length: 4 }, () => newSubmission(t, slug, owner)));
    const results = await Promise.all(racers.map((s) => approve(slug, s.id, owner)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402]);
    expect(await approvedCount(slug)).toBe(2);
  });

  it('mixed concurrent writes in one book all succeed (one lock order: book, then submission)', async () => {
    await setCap(null);
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'capped' })).slug;
    const existing = await Promise.all(Array.from({ length: 8 }, () => newSubmission(t, slug, owner)));
    const results = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => t.post(base(slug), { text_content: `new ${i}` }, { token: owner.token })),
      ...existing.map((s, i) =>
        i % 2 ? approve(slug, s.id, owner) : t.patch(`${base(slug)}${s.id}/`, { text_content: `edit ${i}` }, { token: owner.token }),
      ),
      ...existing.slice(0, 4).map((s) => t.post(`${base(slug)}${s.id}/reject/`, undefined, { token: owner.token })),
    ]);
    expect(results.map((r) => r.status).filter((s) => s >= 300)).toEqual([]);
  });

  it('the shipped free plan caps a book at 50 approved memories', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const s = await newSubmission(t, slug, owner);
    await t.db.query(
      `INSERT INTO submissions (id, book_id, text_content, status)
       SELECT gen_random_uuid(), b.id, 'filler', 'approved' FROM books b, generate_series(1, 50) WHERE b.slug = $1`,
      [slug],
    );
    const res = await approve(slug, s.id, owner);
    expect(res.status).toBe(402);
    expect(res.body.details).toMatchObject({ plan: 'free', limit: 50, approved: 50 });
  });
});

// Approval held back by media that is not ready: test/http/media/media.moderation.test.ts.

describe('grace period', () => {
  it('approve answers 423 book_grace_period, every other write 403; reads work; nothing changes; the same key works afterwards', async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    await addMember(t, slug, author, 'contributor');
    const s = await newSubmission(t, slug, author);
    const approved = await newSubmission(t, slug, author);
    expect((await approve(slug, approved.id, owner)).status).toBe(200);
    await setGrace(t, slug, true);

    const key = crypto.randomUUID();
    const locked = await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token, idempotencyKey: key });
    expect(locked.status).toBe(423);
    expect(locked.body.code).toBe('book_grace_period');

    const writes: [string, string, unknown, TestUser][] = [
      ['POST', '', { text_content: 'x' }, owner],
      ['PATCH', `${s.id}/`, { text_content: 'x' }, owner],
      ['PATCH', `${s.id}/`, { text_content: 'x' }, author],
      ['DELETE', `${s.id}/`, undefined, owner],
      ['POST', `${s.id}/reject/`, undefined, owner],
      ['POST', `${approved.id}/pin/`, undefined, owner],
      ['POST', `${approved.id}/unpin/`, undefined, owner],
    ];
    for (const [method, path, body, who] of writes) {
      const res = await t.request(method, `${base(slug)}${path}`, { token: who.token, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('book_grace_period');
    }
    expect((await t.get(base(slug), { token: owner.token })).body.items).toHaveLength(2);
    const unchanged = await t.get(`${base(slug)}${s.id}/`, { token: owner.token });
    expect(unchanged.body).toMatchObject({ status: 'pending', text_content: s.text_content, updated_at: s.updated_at });

    await setGrace(t, slug, false);
    const later = await t.post(`${base(slug)}${s.id}/approve/`, undefined, { token: owner.token, idempotencyKey: key });
    expect(later.status).toBe(200);
    expect(later.body.changed).toBe(true);
  });
});
