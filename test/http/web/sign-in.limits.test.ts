import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { newEmail, signUp, webClient } from './web-client.js';

// Three attempts per window, and a plain-http public address that is not loopback.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { SIGN_IN_ATTEMPTS: '3', SIGN_IN_WINDOW_SECONDS: '600', PUBLIC_URL: 'http://books.internal:8000' } });
});

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

  it('never counts per account: failures from other addresses leave a client that has not failed alone', async () => {
    const u = await newUser(t);
    for (let i = 0; i < 6; i++) expect((await attempt(`10.2.0.${i + 1}`, u.email, 'wrong password')).status).toBe(400);
    expect((await attempt('10.2.0.9', u.email.toUpperCase(), u.password)).status).toBe(303);
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

describe('device cookies (behind a proxy, client addresses from X-Forwarded-For)', () => {
  let p: TestApp;
  beforeAll(async () => {
    p = await buildTestApp({ env: { TRUST_PROXY: 'true', SIGN_IN_ATTEMPTS: '10', SIGN_IN_WINDOW_SECONDS: '900' } });
  });
  afterAll(() => p.close());

  /** A browser behind the proxy: the connection is the proxy's, the client's address is in X-Forwarded-For. */
  function browser(address: string) {
    const c = webClient(p, { ip: '127.0.0.1' });
    const headers = { 'x-forwarded-for': address };
    return {
      c,
      async signIn(email: string, password: string) {
        await c.get('/accounts/login/', headers);
        return c.submit('/accounts/login/', { email, password }, { headers });
      },
    };
  }

  it('ten wrong passwords from other addresses lock out neither the right person (their device cookie) nor a fresh client', async () => {
    const u = await newUser(p);
    // The right person signed in before: their browser holds a device cookie for the address.
    const mine = browser('198.51.100.7');
    const first = await mine.signIn(u.email, u.password);
    expect(first.status).toBe(303);
    const device = first.cookies.mb_device;
    expect(device.value).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(device.attrs.httponly).toBe(true);
    expect(device.attrs.samesite).toBe('Lax');
    expect(device.attrs.path).toBe('/accounts/');
    expect(await mine.c.submit('/accounts/logout/', {}, { headers: { 'x-forwarded-for': '198.51.100.7' } })).toMatchObject({ status: 303 });

    // Ten wrong passwords, one from each of ten addresses, then twenty more from one.
    for (let i = 1; i <= 10; i++) expect((await browser(`203.0.113.${i}`).signIn(u.email, 'wrong password')).status).toBe(400);
    const guesser = browser('203.0.113.66');
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await guesser.signIn(u.email, 'wrong password')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses.slice(10)).toEqual([429, 429]);
    // The guesser is refused even with the right password.
    expect((await guesser.signIn(u.email, u.password)).status).toBe(429);

    // The right person, from their own browser, even behind the guesser's address (a shared NAT): in.
    const again = await mine.signIn(u.email, u.password);
    expect(again.status).toBe(303);
    const sharedNat = browser('203.0.113.66');
    sharedNat.c.jar.set('mb_device', again.cookies.mb_device.value);
    expect((await sharedNat.signIn(u.email, u.password)).status).toBe(303);
    // And from a fresh client that has not failed.
    expect((await browser('192.0.2.200').signIn(u.email, u.password)).status).toBe(303);
  });

  it('a device cookie vouches only for its own address, and only as the server made it', async () => {
    const a = await newUser(p);
    const b = await newUser(p);
    const mine = browser('198.51.100.20');
    const device = (await mine.signIn(a.email, a.password)).cookies.mb_device.value;
    const [nonce, sig] = device.split('.');
    const tampered = `${nonce}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    // With a's cookie (or a tampered one), b's sign-in from a failing address counts as an untrusted client's.
    for (const cookie of [device, tampered, 'garbage']) {
      const c = browser('203.0.113.120');
      c.c.jar.set('mb_device', cookie);
      expect((await c.signIn(b.email, 'wrong password')).status).toBe(400);
    }
    for (let i = 0; i < 7; i++) expect((await browser('203.0.113.120').signIn(b.email, 'wrong password')).status).toBe(400);
    const refused = browser('203.0.113.120');
    refused.c.jar.set('mb_device', device);
    expect((await refused.signIn(b.email, b.password)).status).toBe(429);
  });

  it("a trusted device's own failures stop that device only", async () => {
    const u = await newUser(p);
    const mine = browser('198.51.100.30');
    expect((await mine.signIn(u.email, u.password)).status).toBe(303);
    const stolen = mine.c.jar.get('mb_device')!;
    const thief = browser('203.0.113.130');
    thief.c.jar.set('mb_device', stolen);
    // Ten attempts a window per device (its first sign-in counted against its address, as it had no cookie yet).
    for (let i = 0; i < 10; i++) expect((await thief.signIn(u.email, 'wrong password')).status).toBe(400);
    expect((await thief.signIn(u.email, 'wrong password')).status).toBe(429);
    expect((await thief.signIn(u.email, u.password)).status).toBe(429);
    // The device's budget is spent for the window; another client of the right person is not affected.
    expect((await browser('192.0.2.130').signIn(u.email, u.password)).status).toBe(303);
  });
});

describe('cookies on a plain-http public address', () => {
  it('are not Secure (the browser would drop them), but keep HttpOnly and SameSite', async () => {
    const c = webClient(t, { ip: '10.5.0.1' });
    const page = await c.get('/accounts/signup/');
    expect(page.cookies.csrftoken.attrs.secure).toBeUndefined();
    expect(page.cookies.csrftoken.attrs.samesite).toBe('Lax');
    const { confirmed: res } = await signUp(t, {}, c);
    expect(res.status).toBe(303);
    expect(res.cookies.mb_session.attrs.secure).toBeUndefined();
    expect(res.cookies.mb_session.attrs.httponly).toBe(true);
    expect(res.cookies.mb_session.attrs.samesite).toBe('Lax');
  });
});
