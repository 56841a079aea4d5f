import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('GET /auth/me/', () => {
  it('answers the key owner, the auth method and the token', async () => {
    const u = await newUser(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const res = await t.get('/api/v1/auth/me/', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ id: u.user.id, email: u.email, first_name: 'Ada', last_name: 'Lovelace' });
    expect(res.body.auth_method).toBe('api_key');
    expect(res.body.token.name).toMatch(/^key-/);
    expect(res.body.token.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('answers a browser session with auth_method session and no token', async () => {
    const u = await newUser(t);
    const res = await t.get('/api/v1/auth/me/', { session: await newSession(t, u) });
    expect(res.status).toBe(200);
    expect(res.body.auth_method).toBe('session');
    expect(res.body.token).toBeNull();
  });

  it.each([
    ['no credentials', {}],
    ['a malformed key', { authorization: 'Bearer nope' }],
    ['a well-formed unknown key', { authorization: `Bearer svc_live_${'a'.repeat(40)}` }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('401 unauthorized with WWW-Authenticate for %s', async (_name, headers) => {
    const res = await t.get('/api/v1/auth/me/', { headers });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  });
});
