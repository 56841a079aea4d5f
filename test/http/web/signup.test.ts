import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { formCsrf, newEmail, signUp, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('GET /accounts/signup/', () => {
  it('renders the form and sets a readable csrftoken cookie that the form carries', async () => {
    const c = webClient(t);
    const res = await c.get('/accounts/signup/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csrf = res.cookies.csrftoken;
    expect(csrf.value).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(csrf.attrs.httponly).toBeUndefined();
    expect(csrf.attrs.samesite).toBe('Lax');
    expect(csrf.attrs.path).toBe('/');
    expect(csrf.attrs.secure).toBe(true); // PUBLIC_URL is http://localhost:8000, which browsers treat as secure
    expect(formCsrf(res.text)).toBe(csrf.value);
    for (const field of ['email', 'password', 'first_name', 'last_name']) expect(res.text).toContain(`name="${field}"`);
  });

  it('keeps an existing csrftoken cookie', async () => {
    const c = webClient(t);
    const first = await c.get('/accounts/signup/');
    const second = await c.get('/accounts/signup/');
    expect(second.cookies.csrftoken).toBeUndefined();
    expect(formCsrf(second.text)).toBe(first.cookies.csrftoken.value);
  });

  it('sends the page security headers', async () => {
    const res = await webClient(t).get('/accounts/signup/');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('stays out of the API document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths.some((p) => p.includes('accounts') || p.includes('settings') || p.includes('static'))).toBe(false);
  });
});

describe('POST /accounts/signup/', () => {
  it('creates the account, starts a session and goes to the tokens page', async () => {
    const c = webClient(t);
    const page = await c.get('/accounts/signup/');
    const email = newEmail();
    const res = await c.submit('/accounts/signup/', { email: `  ${email.toUpperCase()} `, password: 'a long enough password', first_name: 'Ada', last_name: 'Lovelace' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/settings/tokens/');
    const session = res.cookies.mb_session;
    expect(session.value).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(session.attrs.httponly).toBe(true);
    expect(session.attrs.samesite).toBe('Lax');
    expect(session.attrs.path).toBe('/');
    expect(session.attrs.secure).toBe(true);
    expect(session.attrs['max-age']).toBe(String(14 * 24 * 3600));
    // The CSRF token is replaced at sign-in.
    expect(res.cookies.csrftoken.value).not.toBe(page.cookies.csrftoken.value);

    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: c.cookieHeader() } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ auth_method: 'session', user: { email, first_name: 'Ada', last_name: 'Lovelace' } });
    expect(await t.db.query(`SELECT event FROM audit_events WHERE user_id = $1`, [me.body.user.id])).toEqual([{ event: 'web_signed_up' }]);
  });

  it('takes the names as optional', async () => {
    const { client, email } = await signUp(t);
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: client.cookieHeader() } });
    expect(me.body.user).toMatchObject({ email, first_name: '', last_name: '' });
  });

  it.each([
    ['an invalid email', { email: 'not-an-email' }, 400, 'Enter a valid email address.'],
    ['a short password', { password: 'short' }, 400, 'at least 8 characters'],
    ['an over-long password', { password: 'x'.repeat(1025) }, 400, 'at most 1024 characters'],
    ['an over-long name', { first_name: 'x'.repeat(151) }, 400, 'at most 150 characters'],
  ])('re-renders the form on %s', async (_what, fields, status, message) => {
    const c = webClient(t);
    await c.get('/accounts/signup/');
    const email = newEmail();
    const res = await c.submit('/accounts/signup/', { email, password: 'a long enough password', ...fields });
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain(message);
    expect(res.cookies.mb_session).toBeUndefined();
    expect(res.text).not.toContain('a long enough password'); // the password is never echoed
  });

  it('409 for an email that already has an account', async () => {
    const existing = await newUser(t);
    const c = webClient(t);
    await c.get('/accounts/signup/');
    const res = await c.submit('/accounts/signup/', { email: existing.email, password: 'a long enough password' });
    expect(res.status).toBe(409);
    expect(res.text).toContain('already exists');
    expect(res.cookies.mb_session).toBeUndefined();
  });

  it('escapes what it echoes back', async () => {
    const c = webClient(t);
    await c.get('/accounts/signup/');
    const res = await c.submit('/accounts/signup/', { email: '"><script>alert(1)</script>', password: 'a long enough password', first_name: '<b>x</b>' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.text).toContain('value="&lt;b&gt;x&lt;/b&gt;"');
  });

  it('a signed-in browser is sent on to the tokens page', async () => {
    const { client } = await signUp(t);
    const res = await client.get('/accounts/signup/');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/settings/tokens/');
  });
});
