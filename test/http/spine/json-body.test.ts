/**
 * JSON bodies PostgreSQL could not store: a string holding U+0000 anywhere is
 * a schema failure (422 naming each place, nothing written, in the contract's
 * order after authentication, book access and idempotency); bytes that are
 * not UTF-8 are 400 invalid_json.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const NUL_MSG = 'String must not contain the NUL character (U+0000)';
const nulAt = (...loc: (string | number)[]) => ({ loc: ['body', ...loc], msg: NUL_MSG, type: 'string_nul' });

const countBooks = async (ownerId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM books WHERE owner_id = $1', [ownerId]))[0].n;
const countSubmissions = async (slug: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1', [slug]))[0].n;

describe('U+0000 in a JSON string is a 422 naming the field', () => {
  it('in a book title: 422 at ["body","title"], no book made', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: 'Our\u0000Book' }, { token: u.token });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [nulAt('title')] });
    expect(await countBooks(u.user.id)).toBe(0);
  });

  it("in a submission's text_content: 422, no submission stored", async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const res = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'We met\u0000 in 1990.' }, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([nulAt('text_content')]);
    expect(await countSubmissions(slug)).toBe(0);
  });

  it('in a profile first_name: 422, the profile unchanged', async () => {
    const u = await newUser(t, { firstName: 'Ada' });
    const res = await t.patch('/api/v1/me/', { first_name: '\u0000' }, { token: u.token });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([nulAt('first_name')]);
    expect((await t.get('/api/v1/me/', { token: u.token })).body.first_name).toBe('Ada');
  });

  it('in a settings key and in nested settings values: one entry per place, the book unchanged', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const before = (await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body;
    const res = await t.patch(
      `/api/v1/books/${slug}/`,
      { subtitle: 'fine', settings: { 'ke\u0000y': 1, a: 'x\u0000', nested: { list: ['ok', 'b\u0000d'] } } },
      { token: owner.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([nulAt('settings', 'ke\u0000y'), nulAt('settings', 'a'), nulAt('settings', 'nested', 'list', 1)]);
    const after = (await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body;
    expect(after).toEqual(before);
  });

  it('in a rejection reason: 422, the submission still pending', async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const { slug } = await newBook(t, owner);
    const s = await newSubmission(t, slug, author);
    const res = await t.post(`/api/v1/books/${slug}/submissions/${s.id}/reject/`, { reason: 'spam\u0000' }, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([nulAt('reason')]);
    const got = await t.get(`/api/v1/books/${slug}/submissions/${s.id}/`, { token: owner.token });
    expect(got.body).toMatchObject({ status: 'pending', rejection_reason: null });
  });

  it('a body that is itself such a string is named at ["body"]', async () => {
    const u = await newUser(t);
    const res = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'application/json' }, payload: '"\\u0000"' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body'], msg: NUL_MSG, type: 'string_nul' }]);
  });

  it('an escaped backslash before u0000 is ordinary text and is stored as sent', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const text = 'a literal \\u0000 is six characters';
    const res = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: text }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body.text_content).toBe(text);
    expect((await t.get(`/api/v1/books/${slug}/submissions/${res.body.id}/`, { token: owner.token })).body.text_content).toBe(text);
  });
});

describe('U+0000 comes after authentication, book access and idempotency, like other schema failures', () => {
  it('without credentials: 401', async () => {
    const res = await t.post('/api/v1/books/', { title: '\u0000' }, { idempotencyKey: false });
    expect(res.status).toBe(401);
  });

  it('on a book the caller cannot see: 404; as a contributor on an admin action: 403', async () => {
    const owner = await newUser(t);
    const stranger = await newUser(t);
    const contributor = await newUser(t);
    const { slug } = await newBook(t, owner);
    await addMember(t, slug, contributor, 'contributor');
    expect((await t.patch(`/api/v1/books/${slug}/`, { title: '\u0000' }, { token: stranger.token })).status).toBe(404);
    const forbidden = await t.patch(`/api/v1/books/${slug}/`, { title: '\u0000' }, { token: contributor.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('insufficient_role');
  });

  it('without an Idempotency-Key: 428; the 422 is not stored, so the key is free for the corrected body', async () => {
    const u = await newUser(t);
    expect((await t.post('/api/v1/books/', { title: '\u0000' }, { token: u.token, idempotencyKey: false })).status).toBe(428);
    const key = crypto.randomUUID();
    expect((await t.post('/api/v1/books/', { title: 'Bad\u0000' }, { token: u.token, idempotencyKey: key })).status).toBe(422);
    const fixed = await t.post('/api/v1/books/', { title: 'Good' }, { token: u.token, idempotencyKey: key });
    expect(fixed.status).toBe(201);
    expect(await countBooks(u.user.id)).toBe(1);
  });
});

describe('a body that is not UTF-8 is 400 invalid_json', () => {
  it('invalid bytes inside a string', async () => {
    const u = await newUser(t);
    // {"title":"\xff\xfe"}
    const payload = Buffer.from([0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await t.request('POST', '/api/v1/books/', { token: u.token, headers: { 'content-type': 'application/json' }, payload });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_json', details: null });
    expect(await countBooks(u.user.id)).toBe(0);
  });

  it('an overlong encoding and a lone surrogate encoded as UTF-8', async () => {
    const u = await newUser(t);
    for (const bad of [[0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const payload = Buffer.concat([Buffer.from('{"first_name":"'), Buffer.from(bad), Buffer.from('"}')]);
      const res = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'application/json' }, payload });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_json');
    }
  });

  it('valid multi-byte UTF-8 is read as such', async () => {
    const u = await newUser(t);
    const payload = Buffer.from(JSON.stringify({ first_name: 'Zoë 李 🎂' }), 'utf8');
    const res = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'application/json' }, payload });
    expect(res.status).toBe(200);
    expect(res.body.first_name).toBe('Zoë 李 🎂');
  });

  it('bad JSON and over-deep nesting stay 400 invalid_json', async () => {
    const u = await newUser(t);
    for (const payload of ['{"first_name": ', '['.repeat(100) + ']'.repeat(100)]) {
      const res = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'application/json' }, payload });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_json');
    }
  });
});
