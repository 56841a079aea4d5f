import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { confirmationPathOf, formCsrf, newEmail, queuedMailsTo, signUp, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

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
  it('creates the account once the mailed link is confirmed: a session, the tokens page', async () => {
    const c = webClient(t);
    const page = await c.get('/accounts/signup/');
    const email = newEmail();
    const res = await c.submit('/accounts/signup/', { email: `  ${email.toUpperCase()} `, password: 'a long enough password', first_name: 'Ada', last_name: 'Lovelace' });
    // Nothing exists yet: a page asking to check the mail, no session.
    expect(res.status).toBe(200);
    expect(res.text).toContain('Check your mail');
    expect(res.cookies.mb_session).toBeUndefined();
    expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toEqual([]);
    const [mail] = await queuedMailsTo(t, email);
    expect(mail.subject).toBe('Confirm your email address for Memory Book');
    const path = await confirmationPathOf(t, email);

    // Signing in before confirming: no such account.
    const early = webClient(t);
    await early.get('/accounts/login/');
    expect((await early.submit('/accounts/login/', { email, password: 'a long enough password' })).status).toBe(400);

    // The link's page asks for the password (link scanners fetch links); a wrong one changes nothing.
    const confirmPage = await c.get(path);
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.text).toContain(email);
    const wrong = await c.submit(path, { password: 'not the password at all' });
    expect(wrong.status).toBe(400);
    expect(wrong.cookies.mb_session).toBeUndefined();
    const confirmed = await c.submit(path, { password: 'a long enough password' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe('/');
    const session = confirmed.cookies.mb_session;
    expect(session.value).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(session.attrs.httponly).toBe(true);
    expect(session.attrs.samesite).toBe('Lax');
    expect(session.attrs.path).toBe('/');
    expect(session.attrs.secure).toBe(true);
    expect(session.attrs['max-age']).toBe(String(14 * 24 * 3600));
    // The CSRF token is replaced at sign-in.
    expect(confirmed.cookies.csrftoken.value).not.toBe(page.cookies.csrftoken.value);

    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: c.cookieHeader() } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ auth_method: 'session', user: { email, first_name: 'Ada', last_name: 'Lovelace' } });
    expect(await t.db.query(`SELECT event FROM audit_events WHERE user_id = $1`, [me.body.user.id])).toEqual([{ event: 'web_signed_up' }]);

    // The link is spent: its page is a 404.
    expect((await webClient(t).get(path)).status).toBe(404);
    // And the account signs in from anywhere.
    const later = webClient(t);
    await later.get('/accounts/login/');
    expect((await later.submit('/accounts/login/', { email, password: 'a long enough password' })).status).toBe(303);
  });

  it('an unknown, malformed or expired confirmation link: 404 page, GET and POST', async () => {
    const c = webClient(t);
    await c.get('/accounts/signup/');
    const email = newEmail();
    await c.submit('/accounts/signup/', { email, password: 'a long enough password' });
    const path = await confirmationPathOf(t, email);
    await t.db.query(`UPDATE signup_requests SET expires_at = now() - interval '1 second' WHERE email = $1`, [email]);
    for (const p of [path, `/accounts/confirm/${'A'.repeat(43)}/`, '/accounts/confirm/short/']) {
      expect((await c.get(p)).status).toBe(404);
      expect((await c.submit(p, { password: 'a long enough password' })).status).toBe(404);
    }
    expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toEqual([]);
  });

  it('takes the names as optional', async () => {
    const { client, email } = await signUp(t);
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: client.cookieHeader() } });
    expect(me.body.user).toMatchObject({ email, first_name: '', last_name: '' });
  });

  it.each([
    ['an invalid email', { email: 'not-an-email' }, 400, 'Enter a valid email address.'],
    ['a short password', { password: 'short' }, 400, 'at least 8 characters'],
    ['an over-long password', { password: 'x'.repeat(1025) }, 400, 'at most 1,024 characters'],
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

  it('an address that already has an account: the same answer as a new one, and its owner is mailed instead', async () => {
    const existing = await newUser(t);
    const fresh = newEmail();
    const answers = [];
    for (const email of [existing.email, fresh]) {
      const c = webClient(t);
      await c.get('/accounts/signup/');
      const res = await c.submit('/accounts/signup/', { email, password: 'a long enough password' });
      expect(res.cookies.mb_session).toBeUndefined();
      // The page differs only by the address it names.
      answers.push({ status: res.status, type: res.headers['content-type'], text: res.text.replaceAll(email, 'EMAIL').replace(/value="[A-Za-z0-9_-]{32,}"/g, '') });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0].status).toBe(200);
    const [note] = await queuedMailsTo(t, existing.email);
    expect(note.subject).toBe('Someone tried to sign up with your address');
    expect(note.text).toContain('/accounts/login/');
    expect(note.text).not.toMatch(/\/accounts\/confirm\//);
    // The existing account is untouched, its password unchanged.
    const c = webClient(t);
    await c.get('/accounts/login/');
    expect((await c.submit('/accounts/login/', { email: existing.email, password: existing.password })).status).toBe(303);
  });

  it('operator-made accounts (CLI, demo, tests) are confirmed: they sign in at once', async () => {
    const u = await newUser(t);
    const c = webClient(t);
    await c.get('/accounts/login/');
    expect((await c.submit('/accounts/login/', { email: u.email, password: u.password })).status).toBe(303);
  });

  it.each([
    ['a newline in the first name', { first_name: 'Eve\nBcc: x@example.test' }],
    ['a tab in the last name', { last_name: 'Love\tlace' }],
    ['a NUL', { first_name: 'A\u0000' }],
  ])('422 for %s, nothing mailed', async (_what, fields) => {
    const c = webClient(t);
    await c.get('/accounts/signup/');
    const email = newEmail();
    const res = await c.submit('/accounts/signup/', { email, password: 'a long enough password', ...fields });
    expect(res.status).toBe(422);
    expect(res.text).toContain('control characters');
    expect(await queuedMailsTo(t, email)).toEqual([]);
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

  it('a signed-in browser is sent on to its home', async () => {
    const { client } = await signUp(t);
    const res = await client.get('/accounts/signup/');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
  });
});
