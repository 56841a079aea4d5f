import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newToken, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('POST /auth/token/', () => {
  it('issues a key from a browser session, shown once, that then authenticates', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    const key = crypto.randomUUID();
    const res = await t.post('/api/v1/auth/token/', { name: 'laptop' }, { session, idempotencyKey: key });
    expect(res.status).toBe(201);
    expect(res.body.plaintext).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(res.body.replayed).toBe(false);
    expect(res.headers.location).toBeTruthy();

    const me = await t.get('/api/v1/auth/me/', { token: res.body.plaintext });
    expect(me.status).toBe(200);
    expect(me.body.token.name).toBe('laptop');

    // The replay never carries the plaintext and creates no second key.
    const replay = await t.post('/api/v1/auth/token/', { name: 'laptop' }, { session, idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toMatchObject({ plaintext: null, replayed: true, name: 'laptop', id: res.body.id });
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1 AND name = 'laptop'`, [u.user.id]);
    expect(n).toBe(1);
  });

  it('stores only a hash of the key', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/auth/token/', { name: 'hashed' }, { session: await newSession(t, u) });
    const rows = await t.db.query<{ token_hash: Buffer }>(`SELECT token_hash FROM api_tokens WHERE id = $1`, [res.body.id]);
    expect(rows[0].token_hash.length).toBe(32);
    const everything = JSON.stringify(await t.db.query(`SELECT * FROM api_tokens`)) + JSON.stringify(await t.db.query(`SELECT * FROM idempotency_keys`));
    expect(everything).not.toContain(res.body.plaintext);
  });

  it('409 name_taken when the name is already used by a live key', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    expect((await t.post('/api/v1/auth/token/', { name: 'ci' }, { session })).status).toBe(201);
    const dup = await t.post('/api/v1/auth/token/', { name: 'ci' }, { session });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('name_taken');
  });

  it('403 session_required for a bearer key', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/auth/token/', { name: 'x' }, { token: u.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('session_required');
  });

  it.each<[string, Record<string, string>]>([
    ['an empty X-CSRFToken', { 'x-csrftoken': '' }],
    ['a wrong X-CSRFToken', { 'x-csrftoken': 'not-the-cookie' }],
    ['an empty Referer', { referer: '' }],
    ['a foreign Referer', { referer: 'https://evil.example/page' }],
  ])('403 csrf_failed with %s', async (_name, headers) => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/auth/token/', { name: 'x' }, { session: await newSession(t, u), headers });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('csrf_failed');
  });

  it('403 csrf_failed without the X-CSRFToken header at all', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    const res = await t.post('/api/v1/auth/token/', { name: 'x' }, { session: { ...session, csrf: '' }, headers: {} });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('csrf_failed');
  });

  it('422 for a missing name or an unknown field, with one entry per field', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    const res = await t.post('/api/v1/auth/token/', { nam: 'typo' }, { session });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'name'], type: 'missing' }),
        expect.objectContaining({ loc: ['body', 'nam'], type: 'extra_forbidden' }),
      ]),
    );
  });
});

describe('DELETE /auth/token/', () => {
  it('revokes the calling key; the next request with it is 401; the replay answers the stored 200', async () => {
    const u = await newUser(t);
    const other = await newToken(t, u);
    const key = crypto.randomUUID();
    const res = await t.delete('/api/v1/auth/token/', { token: u.token, idempotencyKey: key });
    expect(res.status).toBe(200);
    expect(res.body.revoked).toBe(true);
    expect((await t.get('/api/v1/auth/me/', { token: u.token })).status).toBe(401);
    // Other keys of the user and web sessions are unaffected.
    expect((await t.get('/api/v1/auth/me/', { token: other })).status).toBe(200);

    const replay = await t.delete('/api/v1/auth/token/', { token: u.token, idempotencyKey: key });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(res.body);

    // A new key on the revoked credential is not a replay: 401.
    expect((await t.delete('/api/v1/auth/token/', { token: u.token })).status).toBe(401);
  });

  it('401 token_required for a browser session', async () => {
    const u = await newUser(t);
    const res = await t.delete('/api/v1/auth/token/', { session: await newSession(t, u) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_required');
  });

  it('a revoked key frees its name for a new key', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    const first = await t.post('/api/v1/auth/token/', { name: 'rotate' }, { session });
    await t.delete('/api/v1/auth/token/', { token: first.body.plaintext });
    expect((await t.post('/api/v1/auth/token/', { name: 'rotate' }, { session })).status).toBe(201);
  });
});

describe('POST /me/sessions/revoke/', () => {
  it('revokes every key (the calling one too), keeps web sessions, and audits with the request id', async () => {
    const u = await newUser(t);
    const second = await newToken(t, u);
    const session = await newSession(t, u);
    const res = await t.post('/api/v1/me/sessions/revoke/', undefined, { token: u.token, headers: { 'x-request-id': 'revoke-req-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked_count: 2 });
    expect((await t.get('/api/v1/auth/me/', { token: u.token })).status).toBe(401);
    expect((await t.get('/api/v1/auth/me/', { token: second })).status).toBe(401);
    expect((await t.get('/api/v1/auth/me/', { session })).status).toBe(200);

    const events = await t.db.query<{ event: string; request_id: string; user_id: string }>(
      `SELECT event, request_id, user_id FROM audit_events WHERE user_id = $1`,
      [u.user.id],
    );
    expect(events).toEqual([{ event: 'api_sessions_revoked', request_id: 'revoke-req-1', user_id: u.user.id }]);
  });

  it('works from a browser session with CSRF', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/me/sessions/revoke/', {}, { session: await newSession(t, u) });
    expect(res.status).toBe(200);
    expect(res.body.revoked_count).toBe(1);
  });
});
