import { beforeAll, describe, expect, it } from 'vitest';
import { createUserAccount } from '../../../src/services/users/user-service.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { formCsrf, newEmail, signUp, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

async function openLogin(url = '/accounts/login/') {
  const c = webClient(t);
  const page = await c.get(url);
  expect(page.status).toBe(200);
  return { c, page };
}

describe('GET /accounts/login/', () => {
  it('renders the form with email, password, the CSRF field and next', async () => {
    const { page } = await openLogin('/accounts/login/?next=/settings/tokens/%3Ftab%3D1');
    expect(page.text).toContain('name="email"');
    expect(page.text).toContain('name="password"');
    expect(formCsrf(page.text)).toBe(page.cookies.csrftoken.value);
    expect(page.text).toContain('name="next" value="/settings/tokens/?tab=1"');
  });

  it('a signed-in browser goes straight on', async () => {
    const { client } = await signUp(t);
    const res = await client.get('/accounts/login/');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
  });
});

describe('POST /accounts/login/', () => {
  it('signs in with the right password and starts a session', async () => {
    const u = await newUser(t);
    const { c } = await openLogin();
    const res = await c.submit('/accounts/login/', { email: u.email.toUpperCase(), password: u.password });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    expect(res.cookies.mb_session.attrs.httponly).toBe(true);
    expect(res.cookies.mb_session.attrs['max-age']).toBe(String(14 * 24 * 3600));
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: c.cookieHeader() } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ auth_method: 'session', user: { id: u.user.id } });
    const events = await t.db.query(`SELECT event FROM audit_events WHERE user_id = $1`, [u.user.id]);
    expect(events).toEqual([{ event: 'web_signed_in' }]);
  });

  it('the session it starts can issue an API key, as the tokens page does', async () => {
    const u = await newUser(t);
    const { c } = await openLogin();
    await c.submit('/accounts/login/', { email: u.email, password: u.password });
    const res = await t.post('/api/v1/auth/token/', { name: 'from-the-page' }, { session: c.apiSession() });
    expect(res.status).toBe(201);
    const page = await c.get('/settings/tokens/');
    expect(page.text).toContain('from-the-page');
  });

  it('rotates the session: the one the browser had before is ended', async () => {
    const u = await newUser(t);
    const { client } = await signUp(t);
    const before = client.jar.get('mb_session')!;
    await client.get('/accounts/logout/'); // keeps the cookie; the session is still live
    // Signing in as someone else from the same browser.
    const res = await client.submit('/accounts/login/', { email: u.email, password: u.password });
    expect(res.status).toBe(303);
    const after = client.jar.get('mb_session')!;
    expect(after).not.toBe(before);
    expect((await t.get('/api/v1/auth/me/', { headers: { cookie: `mb_session=${before}` } })).status).toBe(401);
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: `mb_session=${after}` } });
    expect(me.body.user.id).toBe(u.user.id);
  });

  it('goes to a local next path', async () => {
    const u = await newUser(t);
    const { c } = await openLogin();
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next: '/settings/tokens/?from=mail' });
    expect(res.headers.location).toBe('/settings/tokens/?from=mail');
  });

  it.each(['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/%0d%0aSet-Cookie:x=1', '/\r\nSet-Cookie: x=1'])(
    'never redirects off-site (next=%s)',
    async (next) => {
      const u = await newUser(t);
      const { c } = await openLogin();
      const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next });
      expect(res.status).toBe(303);
      expect(String(res.headers.location).startsWith('/')).toBe(true);
      expect(String(res.headers.location)).not.toMatch(/^\/[/\\]|evil|\r|\n/);
    },
  );

  it('keeps a legitimate next from the query through the form', async () => {
    const u = await newUser(t);
    const { c, page } = await openLogin(`/accounts/login/?next=${encodeURIComponent('/settings/tokens/?x=1')}`);
    const next = hiddenNext(page.text);
    expect(next).toBe('/settings/tokens/?x=1');
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next: next! });
    expect(res.headers.location).toBe('/settings/tokens/?x=1');
  });

  it('refuses a wrong password with a page that reveals nothing', async () => {
    const u = await newUser(t);
    const { c } = await openLogin();
    const wrong = await c.submit('/accounts/login/', { email: u.email, password: 'not the password' });
    const unknown = await c.submit('/accounts/login/', { email: 'nobody-here@example.test', password: 'not the password' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('That email and password do not match an account.');
      expect(res.text).not.toContain('not the password');
      expect(res.cookies.mb_session).toBeUndefined();
    }
    expect(wrong.text).toContain(`value="${u.email}"`);
    expect((await t.get('/api/v1/auth/me/', { headers: { cookie: c.cookieHeader() } })).status).toBe(401);
  });

  it('refuses an account without a password and an inactive one', async () => {
    const passwordless = await createUserAccount(t.db, { email: newEmail(), password: null });
    const inactive = await newUser(t);
    await t.db.query(`UPDATE users SET is_active = false WHERE id = $1`, [inactive.user.id]);
    const { c } = await openLogin();
    expect((await c.submit('/accounts/login/', { email: passwordless.email, password: 'anything at all' })).status).toBe(400);
    expect((await c.submit('/accounts/login/', { email: inactive.email, password: inactive.password })).status).toBe(400);
  });

  it('asks again when a field is empty', async () => {
    const { c } = await openLogin();
    const res = await c.submit('/accounts/login/', { email: '', password: '' });
    expect(res.status).toBe(400);
    // GOV.UK's error pattern: the title says so, a summary links to the field, the field is tied to its message.
    expect(res.text).toContain('<title>Error: Sign in · Memory Book</title>');
    expect(res.text).toMatch(/<div class="error-summary" tabindex="-1" autofocus/);
    expect(res.text).toContain('<a href="#email">Enter your email address.</a>');
    expect(res.text).toMatch(/<p class="field-error" id="email-error"><span class="visually-hidden">Error:<\/span> Enter your email address.<\/p>/);
    expect(res.text).toMatch(/<input type="email" id="email"[^>]* aria-describedby="email-error" aria-invalid="true">/);
    // Only the summary takes the focus.
    expect(res.text.match(/autofocus/g)).toHaveLength(1);
    const noPassword = await c.submit('/accounts/login/', { email: 'a@example.test', password: '' });
    expect(noPassword.text).toMatch(/<input type="password" id="password"[^>]* aria-describedby="password-error" aria-invalid="true">/);
  });

  it('escapes the echoed email', async () => {
    const { c } = await openLogin();
    const res = await c.submit('/accounts/login/', { email: '"><img src=x onerror=alert(1)>', password: 'whatever it is' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('<img src=x');
    expect(res.text).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  });
});

// Each normalises (URL dot segments, decoded or not) to "//evil.com", which a browser reads as another host.
const DOT_SEGMENT_ESCAPES = ['/.//evil.com', '/a/..//evil.com', '/%2e%2e//evil.com', '/%2E%2e//evil.com/x?y=1', '/./.././/evil.com', '/a/%2e%2e/%2e//evil.com'];

/** Asserts a Location a browser would resolve to a path on this site, and not to the attacker's. */
function expectSameOriginLocation(location: unknown) {
  const value = String(location);
  expect(value).toMatch(/^\/(?![/\\])/);
  expect(value).not.toMatch(/evil/);
  // What a browser does with it on a page of ours, and again from the redirected page.
  const resolved = new URL(value, `${t.config.http.publicOrigin}/accounts/login/`);
  expect(resolved.origin).toBe(t.config.http.publicOrigin);
  expect(new URL(value, resolved).origin).toBe(t.config.http.publicOrigin);
}

function hiddenNext(page: string): string | undefined {
  return /name="next" value="([^"]*)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');
}

describe('next never leads off-site through dot segments', () => {
  it.each(DOT_SEGMENT_ESCAPES)('in the form field (next=%s)', async (next) => {
    const u = await newUser(t);
    const { c } = await openLogin();
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next });
    expect(res.status).toBe(303);
    expectSameOriginLocation(res.headers.location);
  });

  it.each(DOT_SEGMENT_ESCAPES)('in the query, carried by the form (next=%s)', async (next) => {
    const u = await newUser(t);
    const { c, page } = await openLogin(`/accounts/login/?next=${encodeURIComponent(next)}`);
    const carried = hiddenNext(page.text);
    expect(carried).toBeDefined();
    expectSameOriginLocation(carried);
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next: carried! });
    expect(res.status).toBe(303);
    expectSameOriginLocation(res.headers.location);
  });

  it.each(DOT_SEGMENT_ESCAPES)('in the query, unencoded (next=%s)', async (next) => {
    const { page } = await openLogin(`/accounts/login/?next=${next}`);
    expectSameOriginLocation(hiddenNext(page.text));
  });

  it.each(DOT_SEGMENT_ESCAPES)('in the query of a signed-in browser, which is sent on at once (next=%s)', async (next) => {
    const { client } = await signUp(t);
    const res = await client.get(`/accounts/login/?next=${encodeURIComponent(next)}`);
    expect(res.status).toBe(303);
    expectSameOriginLocation(res.headers.location);
  });

  it('a signed-in browser follows a legitimate next', async () => {
    const { client } = await signUp(t);
    const res = await client.get(`/accounts/login/?next=${encodeURIComponent('/settings/tokens/?x=1')}`);
    expect(res.headers.location).toBe('/settings/tokens/?x=1');
  });
});
