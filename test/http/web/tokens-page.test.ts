import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenService } from '../../../src/services/tokens/token-service.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newToken, newUser } from '../../helpers/factories.js';
import { signUp, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('GET /settings/tokens/ signed out', () => {
  it('redirects to the login page with next', async () => {
    const res = await webClient(t).get('/settings/tokens/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/accounts/login/?next=%2Fsettings%2Ftokens%2F');
  });

  it('redirects and clears a dead session cookie', async () => {
    const res = await webClient(t).get('/settings/tokens/', { cookie: 'mb_session=' + 'x'.repeat(43) });
    expect(res.status).toBe(302);
    expect(res.cookies.mb_session.value).toBe('');
  });

  it('an API key is not a browser session', async () => {
    const u = await newUser(t);
    const res = await t.app.inject({ method: 'GET', url: '/settings/tokens/', headers: { authorization: `Bearer ${u.token}` } });
    expect(res.statusCode).toBe(302);
  });

  it('comes back to the tokens page after signing in', async () => {
    const u = await newUser(t);
    const c = webClient(t);
    const redirect = await c.get('/settings/tokens/');
    const login = await c.get(String(redirect.headers.location));
    expect(login.text).toContain('name="next" value="/settings/tokens/"');
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next: '/settings/tokens/' });
    expect(res.headers.location).toBe('/settings/tokens/');
    expect((await c.get('/settings/tokens/')).status).toBe(200);
  });
});

describe('GET /settings/tokens/ signed in', () => {
  it('lists live tokens only, escaped, with the create form and its script', async () => {
    const { client, email } = await signUp(t);
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: client.cookieHeader() } });
    const issue = async (name: string) => (await createTokenService({ db: t.db }).issueToken(t.db, me.body.user.id, name)).plaintext;
    await issue('<script>alert("x")</script>');
    await issue('laptop');
    const revoked = await issue('old-ci');
    expect((await t.delete('/api/v1/auth/token/', { token: revoked })).status).toBe(200);
    const other = await newUser(t);
    await newToken(t, other, 'someone-elses');

    const res = await client.get('/settings/tokens/');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain(email);
    expect(res.text).toContain('laptop');
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).not.toContain('old-ci');
    expect(res.text).not.toContain('someone-elses');
    expect(res.text).toContain('id="create-token"');
    expect(res.text).toMatch(/<script src="\/static\/tokens\.js\?v=[\w-]+" defer><\/script>/);
    // The CSP forbids inline code, so the page must not contain any.
    expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(res.text).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    // The page never shows a token's secret; there is none to show.
    expect(res.text).not.toMatch(/svc_live_[0-9A-Za-z]{8}/);
  });

  it('says when there are no tokens yet', async () => {
    const { client } = await signUp(t);
    const res = await client.get('/settings/tokens/');
    expect(res.text).toMatch(/<p id="no-tokens" class="empty">/);
    expect(res.text).toMatch(/<table id="token-table" hidden>/);
  });

  it('sets the csrftoken cookie the script reads when the browser lost it', async () => {
    const { client } = await signUp(t);
    client.jar.delete('csrftoken');
    const res = await client.get('/settings/tokens/');
    expect(res.status).toBe(200);
    expect(res.cookies.csrftoken.attrs.httponly).toBeUndefined();
    // The script's call then passes the API's CSRF check.
    const created = await t.post('/api/v1/auth/token/', { name: 'after-refresh' }, { session: client.apiSession() });
    expect(created.status).toBe(201);
  });
});

describe('static assets', () => {
  it('serves the script and stylesheet with their types and a long cache', async () => {
    const page = await (await signUp(t)).client.get('/settings/tokens/');
    const js = /src="(\/static\/tokens\.js\?v=[\w-]+)"/.exec(page.text)![1];
    const css = /href="(\/static\/web\.css\?v=[\w-]+)"/.exec(page.text)![1];
    const jsRes = await t.app.inject({ method: 'GET', url: js });
    expect(jsRes.statusCode).toBe(200);
    expect(jsRes.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(jsRes.headers['cache-control']).toContain('immutable');
    expect(jsRes.body).toContain("'X-CSRFToken'");
    expect(jsRes.body).toContain("'Idempotency-Key'");
    expect(jsRes.body).not.toContain('innerHTML');
    const cssRes = await t.app.inject({ method: 'GET', url: css });
    expect(cssRes.statusCode).toBe(200);
    expect(cssRes.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('adds the trailing slash to page paths with a 308', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/accounts/login?next=/settings/tokens/' });
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe('/accounts/login/?next=/settings/tokens/');
  });
});
