import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type SessionCredentials, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newUser } from '../../helpers/factories.js';

let t: TestApp;
let site: string;
beforeAll(async () => {
  t = await buildTestApp();
  site = t.config.http.publicOrigin;
});

/**
 * POST /api/v1/auth/token/ from a signed-in browser, with exactly the
 * source headers given (the helper's `session` option would add a Referer).
 */
async function issueToken(source: Record<string, string>, session?: SessionCredentials) {
  const s = session ?? (await newSession(t, await newUser(t)));
  return t.post('/api/v1/auth/token/', { name: `k-${crypto.randomUUID().slice(0, 8)}` }, {
    headers: { cookie: s.cookie, 'x-csrftoken': s.csrf, ...source },
  });
}

describe('CSRF on API calls made with a browser session', () => {
  it.each<[string, Record<string, string>]>([
    // inject sends Host: localhost:80, so these are the request's own origin but not PUBLIC_URL's.
    ['a Referer of the Host header’s origin', { referer: 'http://localhost/settings/tokens/' }],
    ['an Origin of the Host header’s origin', { origin: 'http://localhost' }],
    ['an Origin of the Host header’s origin, port spelled out', { origin: 'http://localhost:80' }],
    ['an attacker’s Host header with a matching Referer', { host: 'evil.example', referer: 'http://evil.example/page' }],
    ['an attacker’s Host header with a matching Origin', { host: 'evil.example', origin: 'http://evil.example' }],
    ['a foreign Origin beside a Referer of this site', { origin: 'https://evil.example', referer: 'http://localhost:8000/settings/tokens/' }],
    ['Origin null and no Referer', { origin: 'null' }],
    ['PUBLIC_URL on another scheme', { origin: 'https://localhost:8000' }],
    ['neither Origin nor Referer', {}],
    // The contract: POST /auth/token/ needs a Referer, whatever the Origin says.
    ['Origin: PUBLIC_URL and no Referer', { origin: 'http://localhost:8000' }],
  ])('403 csrf_failed with %s', async (_what, source) => {
    const res = await issueToken(source);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'csrf_failed', details: null });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  });

  it('a refused call issues no key', async () => {
    const u = await newUser(t);
    const res = await issueToken({ referer: 'http://localhost/settings/tokens/' }, await newSession(t, u));
    expect(res.status).toBe(403);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1`, [u.user.id]);
    expect(n).toBe(1); // only the factory's key
  });

  it.each<[string, () => Record<string, string>]>([
    ['Origin: PUBLIC_URL and a Referer on PUBLIC_URL', () => ({ origin: site, referer: `${site}/settings/tokens/` })],
    ['a Referer on PUBLIC_URL and no Origin', () => ({ referer: `${site}/settings/tokens/` })],
    ['Origin null and a Referer on PUBLIC_URL', () => ({ origin: 'null', referer: `${site}/settings/tokens/` })],
    ['PUBLIC_URL’s origin whatever the Host header says', () => ({ host: 'internal-name:3000', origin: site, referer: `${site}/settings/tokens/` })],
  ])('201 with %s', async (_what, source) => {
    const res = await issueToken(source());
    expect(res.status).toBe(201);
    expect(res.body.plaintext).toMatch(/^svc_live_/);
  });

  it('the token is still required when the source is right', async () => {
    const s = await newSession(t, await newUser(t));
    const res = await issueToken({ origin: site, referer: `${site}/settings/tokens/`, 'x-csrftoken': 'not-the-cookie' }, s);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('csrf_failed');
  });
});
