import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { formCsrf, signUp, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('GET /accounts/logout/', () => {
  it('asks for confirmation with a POST form when signed in, and changes nothing', async () => {
    const { client, email } = await signUp(t);
    const res = await client.get('/accounts/logout/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<form method="post" action="/accounts/logout/">');
    expect(res.text).toContain(email);
    expect(formCsrf(res.text)).toBe(client.jar.get('csrftoken'));
    expect((await t.get('/api/v1/auth/me/', { headers: { cookie: client.cookieHeader() } })).status).toBe(200);
  });

  it('says so when already signed out', async () => {
    const res = await webClient(t).get('/accounts/logout/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('You are signed out');
  });
});

describe('POST /accounts/logout/', () => {
  it('ends the session and clears the cookie; the API then answers 401 for it', async () => {
    const { client } = await signUp(t);
    const session = client.jar.get('mb_session')!;
    const apiKey = await t.post('/api/v1/auth/token/', { name: 'survives-logout' }, { session: client.apiSession() });
    expect(apiKey.status).toBe(201);

    const res = await client.submit('/accounts/logout/', {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/accounts/login/');
    const cleared = res.cookies.mb_session;
    expect(cleared.value).toBe('');
    expect(cleared.attrs.path).toBe('/');
    expect(Number(cleared.attrs['max-age'] ?? 0) <= 0 || Date.parse(String(cleared.attrs.expires)) < Date.now()).toBe(true);

    // The old cookie is dead server-side, not just forgotten by the browser.
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: `mb_session=${session}` } });
    expect(me.status).toBe(401);
    expect(me.body.code).toBe('unauthorized');
    const page = await t.app.inject({ method: 'GET', url: '/settings/tokens/', headers: { cookie: `mb_session=${session}` } });
    expect(page.statusCode).toBe(302);
    // API keys are separate credentials and keep working.
    expect((await t.get('/api/v1/auth/me/', { token: apiKey.body.plaintext })).status).toBe(200);
    const [ended] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM web_sessions WHERE ended_at IS NOT NULL`);
    expect(ended.n).toBeGreaterThan(0);
  });

  it('is harmless without a session', async () => {
    const c = webClient(t);
    await c.get('/accounts/login/');
    const res = await c.submit('/accounts/logout/', {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/accounts/login/');
  });
});
