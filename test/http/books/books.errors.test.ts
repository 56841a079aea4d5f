import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const count = async (ownerId: string) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM books WHERE owner_id = $1`, [ownerId]))[0].n;

describe('POST /books/ errors', () => {
  it('402 payment_required with plan and checkout_url when no slot is free; nothing written', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: 'Paid', plan: 'premium' }, { token: u.token });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('payment_required');
    expect(res.body.details.plan).toBe('premium');
    expect(res.body.details.checkout_url).toMatch(/^http:\/\/localhost:8000\/.*premium/);
    expect(await count(u.user.id)).toBe(0);
  });

  it('400 validation_failed with details.offered for an unknown theme or use case or plan', async () => {
    const u = await newUser(t);
    const theme = await t.post('/api/v1/books/', { title: 'x', theme: 'neon' }, { token: u.token });
    expect(theme.status).toBe(400);
    expect(theme.body.code).toBe('validation_failed');
    expect(theme.body.details.offered).toContain('elegant_classic');
    expect(theme.body.details.offered).toHaveLength(11);
    const useCase = await t.post('/api/v1/books/', { title: 'x', use_case_slug: 'nope' }, { token: u.token });
    expect(useCase.status).toBe(400);
    expect(useCase.body.details.offered).toContain('wedding');
    const plan = await t.post('/api/v1/books/', { title: 'x', plan: 'gold' }, { token: u.token });
    expect(plan.status).toBe(400);
    expect(plan.body.details.offered).toEqual(['free', 'plus', 'premium']);
    expect(await count(u.user.id)).toBe(0);
  });

  it('422 for a missing title, wrong types and unknown fields', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/books/', { subtitle: 5, slug: 'mine', is_public: 'yes' }, { token: u.token });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.title', 'body.subtitle', 'body.slug', 'body.is_public']));
  });

  it('400 validation_failed for a blank title', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: '   ' }, { token: u.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });
});

describe('PATCH /books/{slug}/ errors', () => {
  it.each([['slug'], ['status'], ['plan'], ['role'], ['etag']])('422 for the read-only field %s', async (field) => {
    const u = await newUser(t);
    const b = await newBook(t, u);
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { [field]: 'x' }, { token: u.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', field], type: 'extra_forbidden' });
  });

  it('400 for an unknown theme on update, and the book is unchanged', async () => {
    const u = await newUser(t);
    const b = await newBook(t, u);
    const res = await t.patch(`/api/v1/books/${b.slug}/`, { theme: 'neon', subtitle: 'changed' }, { token: u.token });
    expect(res.status).toBe(400);
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: u.token })).body.subtitle).toBe('');
  });
});
