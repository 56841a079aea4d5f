import { hash as argon2Hash } from '@node-rs/argon2';
import { randomBytes, scryptSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { signUp, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const CURRENT_HASH = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

/** A hash as the service wrote them before argon2id: scrypt N=2^15, r=8, p=1, NFKC-normalised input. */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$32768$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

async function storedHash(userId: string): Promise<string> {
  const [row] = await t.db.query<{ password_hash: string }>(`SELECT password_hash FROM users WHERE id = $1`, [userId]);
  return row.password_hash;
}

async function setHash(userId: string, hash: string) {
  await t.db.query(`UPDATE users SET password_hash = $2 WHERE id = $1`, [userId, hash]);
}

/** One sign-in from a fresh browser (its own address, so the per-address limiter does not add up). */
async function signIn(email: string, password: string) {
  const c = webClient(t);
  await c.get('/accounts/login/');
  return c.submit('/accounts/login/', { email, password });
}

describe('password hashes', () => {
  it('a new account, from the sign-up page or the service, gets an argon2id PHC string at OWASP’s parameters', async () => {
    const { client, email } = await signUp(t);
    const me = await t.get('/api/v1/auth/me/', { headers: { cookie: client.cookieHeader() } });
    expect(await storedHash(me.body.user.id)).toMatch(CURRENT_HASH);
    const u = await newUser(t);
    expect(await storedHash(u.user.id)).toMatch(CURRENT_HASH);
    expect((await signIn(email, 'a long enough password')).status).toBe(303);
  });

  it('an old scrypt hash still signs in, and is replaced by argon2id at that sign-in', async () => {
    const u = await newUser(t);
    const legacy = legacyScryptHash(u.password);
    await setHash(u.user.id, legacy);

    const wrong = await signIn(u.email, 'not the password');
    expect(wrong.status).toBe(400);
    expect(await storedHash(u.user.id)).toBe(legacy); // a failed attempt changes nothing

    const right = await signIn(u.email, u.password);
    expect(right.status).toBe(303);
    expect(right.cookies.mb_session).toBeDefined();
    const upgraded = await storedHash(u.user.id);
    expect(upgraded).toMatch(CURRENT_HASH);

    // The new hash works, the wrong password still fails, and a current hash is left as it is.
    expect((await signIn(u.email, u.password)).status).toBe(303);
    expect((await signIn(u.email, 'not the password')).status).toBe(400);
    expect(await storedHash(u.user.id)).toBe(upgraded);
  });

  it('an argon2id hash with weaker parameters is raised to the current ones at sign-in', async () => {
    const u = await newUser(t);
    const weak = await argon2Hash(u.password, { memoryCost: 4096, timeCost: 1, parallelism: 1 });
    expect(weak).toMatch(/^\$argon2id\$v=19\$m=4096,t=1,p=1\$/);
    await setHash(u.user.id, weak);
    expect((await signIn(u.email, 'not the password')).status).toBe(400);
    expect(await storedHash(u.user.id)).toBe(weak);
    expect((await signIn(u.email, u.password)).status).toBe(303);
    expect(await storedHash(u.user.id)).toMatch(CURRENT_HASH);
  });

  it('a stronger argon2id hash is kept, not lowered', async () => {
    const u = await newUser(t);
    const strong = await argon2Hash(u.password, { memoryCost: 32768, timeCost: 3, parallelism: 1 });
    await setHash(u.user.id, strong);
    expect((await signIn(u.email, u.password)).status).toBe(303);
    expect(await storedHash(u.user.id)).toBe(strong);
  });

  it('a damaged stored hash matches no password and does not break the page', async () => {
    const u = await newUser(t);
    for (const damaged of ['$argon2id$v=19$m=19456,t=2,p=1$bm90IGJhc2U2NA', 'scrypt$not$a$number$x$y', 'md5$abc']) {
      await setHash(u.user.id, damaged);
      const res = await signIn(u.email, u.password);
      expect(res.status).toBe(400);
      expect(res.text).toContain('That email and password do not match an account.');
      expect(await storedHash(u.user.id)).toBe(damaged);
    }
  });

  it('an unknown email costs a full argon2id verify, like a wrong password for a real account', async () => {
    const u = await newUser(t);
    // CPU time (argon2 runs on the thread pool; process.cpuUsage counts every thread), so a busy
    // machine slows both sides alike instead of skewing wall-clock time.
    const cpuMs = async (email: string) => {
      const before = process.cpuUsage();
      expect((await signIn(email, 'not the password')).status).toBe(400);
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await cpuMs(u.email));
      unknown.push(await cpuMs(`nobody-${crypto.randomUUID().slice(0, 8)}@example.test`));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[2];
    // Skipping the hash would make the unknown side a small fraction of the known one.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
  });
});
