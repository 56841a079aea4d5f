import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { newEmail, webClient } from './web-client.js';

// Three attempts per window, and a plain-http public address that is not loopback.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { SIGN_IN_ATTEMPTS: '3', SIGN_IN_WINDOW_SECONDS: '600', PUBLIC_URL: 'http://books.internal:8000' } });
});
afterAll(() => t.close());

async function attempt(ip: string, email: string, password: string) {
  const c = webClient(t, { ip });
  await c.get('/accounts/login/');
  return c.submit('/accounts/login/', { email, password });
}

describe('sign-in rate limit', () => {
  it('answers 429 with Retry-After after N attempts on one account, even with the right password', async () => {
    const u = await newUser(t);
    for (let i = 0; i < 3; i++) expect((await attempt('10.1.0.1', u.email, 'wrong password')).status).toBe(400);
    const blocked = await attempt('10.1.0.1', u.email, u.password);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/^text\/html/);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(blocked.text).toContain('Too many attempts');
    expect(blocked.cookies.mb_session).toBeUndefined();
  });

  it('counts per account across addresses', async () => {
    const u = await newUser(t);
    for (let i = 0; i < 3; i++) expect((await attempt(`10.2.0.${i + 1}`, u.email, 'wrong password')).status).toBe(400);
    expect((await attempt('10.2.0.9', u.email.toUpperCase(), u.password)).status).toBe(429);
  });

  it('counts per address across accounts', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('10.3.0.1', newEmail(), 'wrong password')).status).toBe(400);
    const u = await newUser(t);
    expect((await attempt('10.3.0.1', u.email, u.password)).status).toBe(429);
    // Another address still gets in.
    expect((await attempt('10.3.0.2', u.email, u.password)).status).toBe(303);
  });

  it('limits sign-ups per address too', async () => {
    const c = webClient(t, { ip: '10.4.0.1' });
    await c.get('/accounts/signup/');
    for (let i = 0; i < 3; i++) expect((await c.submit('/accounts/signup/', { email: 'bad', password: 'a long enough password' })).status).toBe(400);
    const blocked = await c.submit('/accounts/signup/', { email: newEmail(), password: 'a long enough password' });
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeTruthy();
  });
});

describe('cookies on a plain-http public address', () => {
  it('are not Secure (the browser would drop them), but keep HttpOnly and SameSite', async () => {
    const c = webClient(t, { ip: '10.5.0.1' });
    const page = await c.get('/accounts/signup/');
    expect(page.cookies.csrftoken.attrs.secure).toBeUndefined();
    expect(page.cookies.csrftoken.attrs.samesite).toBe('Lax');
    const res = await c.submit('/accounts/signup/', { email: newEmail(), password: 'a long enough password' });
    expect(res.status).toBe(303);
    expect(res.cookies.mb_session.attrs.secure).toBeUndefined();
    expect(res.cookies.mb_session.attrs.httponly).toBe(true);
    expect(res.cookies.mb_session.attrs.samesite).toBe('Lax');
  });
});
