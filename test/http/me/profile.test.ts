import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const ISO_US = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('GET /me/', () => {
  it('answers the full profile with an etag equal to the ETag header', async () => {
    const u = await newUser(t, { firstName: 'Ada', lastName: 'L' });
    const res = await t.get('/api/v1/me/', { token: u.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      ['books_sort', 'date_joined', 'email', 'etag', 'first_name', 'id', 'imessage_identifier', 'is_staff', 'last_name', 'phone_number', 'telegram_chat_id', 'telegram_username', 'updated_at'].sort(),
    );
    expect(res.body).toMatchObject({ email: u.email, first_name: 'Ada', books_sort: 'activity', is_staff: false, phone_number: null });
    expect(res.body.updated_at).toMatch(ISO_US);
    expect(res.body.etag).toBe(`"${res.body.updated_at}"`);
    expect(res.headers.etag).toBe(res.body.etag);
  });
});

describe('PATCH /me/', () => {
  it('updates writable fields and moves the ETag on every change', async () => {
    const u = await newUser(t);
    const before = await t.get('/api/v1/me/', { token: u.token });
    const res = await t.patch('/api/v1/me/', { first_name: 'Grace', books_sort: 'title' }, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ first_name: 'Grace', books_sort: 'title' });
    expect(res.headers.etag).toBe(res.body.etag);
    expect(res.body.etag).not.toBe(before.body.etag);
    expect(res.body.updated_at > before.body.updated_at).toBe(true);
    // Two quick updates in a row still get distinct, increasing timestamps.
    const again = await t.patch('/api/v1/me/', { first_name: 'Grace' }, { token: u.token });
    expect(again.body.updated_at > res.body.updated_at).toBe(true);
  });

  it('If-Match: current etag passes, * passes, a stale one is 412 with details.current_etag, a weak one never matches', async () => {
    const u = await newUser(t);
    const { body: p } = await t.get('/api/v1/me/', { token: u.token });
    const ok = await t.patch('/api/v1/me/', { last_name: 'One' }, { token: u.token, headers: { 'if-match': p.etag } });
    expect(ok.status).toBe(200);
    const stale = await t.patch('/api/v1/me/', { last_name: 'Two' }, { token: u.token, headers: { 'if-match': p.etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    expect(stale.body.details.current_etag).toBe(ok.body.etag);
    const weak = await t.patch('/api/v1/me/', { last_name: 'Two' }, { token: u.token, headers: { 'if-match': `W/${ok.body.etag}` } });
    expect(weak.status).toBe(412);
    const star = await t.patch('/api/v1/me/', { last_name: 'Three' }, { token: u.token, headers: { 'if-match': '*' } });
    expect(star.status).toBe(200);
    const list = await t.patch('/api/v1/me/', { last_name: 'Four' }, { token: u.token, headers: { 'if-match': `"x", ${star.body.etag}` } });
    expect(list.status).toBe(200);
    expect((await t.get('/api/v1/me/', { token: u.token })).body.last_name).toBe('Four');
  });

  it.each(['email', 'phone_number', 'telegram_chat_id', 'telegram_username', 'imessage_identifier'])(
    '400 validation_failed naming the read-only field %s, and nothing changes',
    async (field) => {
      const u = await newUser(t);
      const res = await t.patch('/api/v1/me/', { first_name: 'Changed', [field]: 'x@example.test' }, { token: u.token });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields).toEqual([field]);
      expect(res.body.message).toContain(field);
      expect((await t.get('/api/v1/me/', { token: u.token })).body.first_name).toBe('Test');
    },
  );

  it('422 for unknown fields, wrong types and values outside the enum', async () => {
    const u = await newUser(t);
    const res = await t.patch('/api/v1/me/', { nickname: 'x', first_name: 5, books_sort: 'size' }, { token: u.token });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.nickname', 'body.first_name', 'body.books_sort']));
  });

  it('works from a browser session with CSRF', async () => {
    const u = await newUser(t);
    const res = await t.patch('/api/v1/me/', { first_name: 'Web' }, { session: await newSession(t, u) });
    expect(res.status).toBe(200);
  });
});

describe('GET /me/quotas/', () => {
  it('answers storage and book slots', async () => {
    const u = await newUser(t);
    const res = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.storage.used_bytes).toBe(0);
    expect(Array.isArray(res.body.book_slots)).toBe(true);
  });
});
