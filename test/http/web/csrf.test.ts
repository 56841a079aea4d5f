import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { newEmail, signUp, webClient, type SubmitOptions } from './web-client.js';

let t: TestApp;
let u: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  u = await newUser(t);
});

const FORMS: [string, () => Record<string, string>][] = [
  ['/accounts/signup/', () => ({ email: newEmail(), password: 'a long enough password' })],
  ['/accounts/login/', () => ({ email: u.email, password: u.password })],
  ['/accounts/logout/', () => ({})],
];

const FAILURES: [string, SubmitOptions & { dropCookie?: boolean }][] = [
  ['no hidden field', { csrf: null }],
  ['a hidden field that does not match the cookie', { csrf: 'A'.repeat(43) }],
  ['no csrftoken cookie', { dropCookie: true }],
  ['a foreign Origin', { origin: 'https://evil.example' }],
  ['Origin null', { origin: 'null' }],
  ['a foreign Referer and no Origin', { origin: null, referer: 'https://evil.example/accounts/login/' }],
  ['neither Origin nor Referer', { origin: null }],
  ['a foreign Origin and a same-site Referer', { origin: 'https://evil.example', referer: 'http://localhost:8000/accounts/login/' }],
  // inject sends Host: localhost:80; the request's own origin is not PUBLIC_URL's, and the sender picks it.
  ['the Host header’s origin', { origin: 'http://localhost' }],
  ['the Host header’s origin with its port', { origin: 'http://localhost:80' }],
  ['the Host header’s origin as Referer', { origin: null, referer: 'http://localhost/accounts/login/' }],
  ['an attacker’s Host with its own Origin', { origin: 'https://evil.example', headers: { host: 'evil.example' } }],
  ['a token only in an X-CSRFToken header that does not match', { csrf: null, headers: { 'x-csrftoken': 'A'.repeat(43) } }],
  ['a wrong X-CSRFToken header beside a right form field', { headers: { 'x-csrftoken': 'A'.repeat(43) } }],
];

describe.each(FORMS)('POST %s', (url, fields) => {
  it.each(FAILURES)('403 page on %s', async (_what, o) => {
    const { client } = await signUp(t); // a live session, so logout has something to end
    const session = client.jar.get('mb_session')!;
    if (o.dropCookie) {
      const csrf = client.jar.get('csrftoken')!;
      client.jar.delete('csrftoken');
      o = { ...o, csrf };
    }
    const res = await client.submit(url, fields(), o);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Please send the form again');
    expect(res.text).not.toMatch(/X-CSRFToken|csrftoken cookie/i);
    expect(res.cookies.mb_session).toBeUndefined();
    // Nothing happened: the session is still the same live one.
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: `mb_session=${session}` } });
    expect(me.status).toBe(200);
  });

  it('accepts a same-origin Referer when the browser sends no Origin', async () => {
    const { client } = await signUp(t);
    const res = await client.submit(url, fields(), { origin: null, referer: `${t.config.http.publicOrigin}${url}` });
    // A sign-up is answered by the page asking to check the mail; the others redirect.
    expect(res.status).toBe(url === '/accounts/signup/' ? 200 : 303);
  });
});

it('a failed sign-up creates no account', async () => {
  const c = webClient(t);
  await c.get('/accounts/signup/');
  const email = newEmail();
  expect((await c.submit('/accounts/signup/', { email, password: 'a long enough password' }, { csrf: null })).status).toBe(403);
  expect(await t.db.query(`SELECT id FROM users WHERE email = $1`, [email])).toEqual([]);
});

describe('accepted sources', () => {
  const login = async (o: SubmitOptions) => {
    const c = webClient(t);
    await c.get('/accounts/login/');
    return c.submit('/accounts/login/', { email: u.email, password: u.password }, o);
  };

  it('PUBLIC_URL’s origin, whatever the Host header says', async () => {
    expect(t.config.http.publicOrigin).toBe('http://localhost:8000');
    expect((await login({ headers: { host: 'internal-name:3000' } })).status).toBe(303);
  });

  it('Origin null falls back to a same-site Referer', async () => {
    expect((await login({ origin: 'null', referer: 'http://localhost:8000/accounts/login/' })).status).toBe(303);
  });

  it('a form posted by first-party script with the token only in the X-CSRFToken header', async () => {
    const c = webClient(t);
    await c.get('/accounts/login/');
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password }, { csrf: null, headers: { 'x-csrftoken': c.jar.get('csrftoken')! } });
    expect(res.status).toBe(303);
    expect(res.cookies.mb_session).toBeDefined();
  });
});
