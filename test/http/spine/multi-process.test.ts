import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { createPostgresDb, type Db } from '../../../src/db/client.js';
import { createRateLimiter } from '../../../src/services/rate-limit/rate-limiter.js';
import { buildTestApp, testConfig, type TestApp } from '../../helpers/build-test-app.js';
import { newToken, newUser } from '../../helpers/factories.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';
import { TEST_DATABASE_URL, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('shared state lives in the database', () => {
  it('two app instances on one database share the rate-limit count', async () => {
    const limiterA = createRateLimiter({ db: t.db });
    const second: Db = TEST_DATABASE_URL ? createPostgresDb(TEST_DATABASE_URL!, { schema: t.database.schema, pooler: TEST_DATABASE_POOLER }) : t.db;
    const limiterB = createRateLimiter({ db: second });
    const bucket = `test:${crypto.randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? limiterA : limiterB).hit(bucket, 6, 3600)));
    expect(results.filter((r) => r.allowed)).toHaveLength(6);
    const denied = results.find((r) => !r.allowed)!;
    expect(denied.retryAfterSeconds).toBeGreaterThan(3590);
    expect(denied.retryAfterSeconds).toBeLessThanOrEqual(3600);
    if (second !== t.db) await second.close();
  });

  it('a second app instance sees a revocation on its very next request', async () => {
    const other = await buildApp({ config: testConfig(), db: t.db, queue: t.queue }, { logger: false });
    const u = await newUser(t);
    const key = await newToken(t, u);
    const auth = { authorization: `Bearer ${key}` };
    expect((await other.inject({ method: 'GET', url: '/api/v1/auth/me/', headers: auth })).statusCode).toBe(200);
    await t.delete('/api/v1/auth/token/', { token: key });
    expect((await other.inject({ method: 'GET', url: '/api/v1/auth/me/', headers: auth })).statusCode).toBe(401);
    await other.close();
  });
});

describe.runIf(TEST_DATABASE_URL)('two server processes on one PostgreSQL database', () => {
  let a: SpawnedServer;
  let b: SpawnedServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([spawnServer({ schema: t.database.schema! }), spawnServer({ schema: t.database.schema! })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('revoking a key through one process takes effect on the next request to the other', async () => {
    const u = await newUser(t);
    const key = await newToken(t, u);
    const headers = { authorization: `Bearer ${key}` };
    expect((await fetch(`${b.url}/api/v1/auth/me/`, { headers })).status).toBe(200);
    const revoke = await fetch(`${a.url}/api/v1/auth/token/`, { method: 'DELETE', headers: { ...headers, 'idempotency-key': crypto.randomUUID() } });
    expect(revoke.status).toBe(200);
    const after = await fetch(`${b.url}/api/v1/auth/me/`, { headers });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('an idempotency key claimed through one process is replayed by the other', async () => {
    const u = await newUser(t);
    const headers = { authorization: `Bearer ${u.token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() };
    const body = JSON.stringify({ first_name: 'Twice' });
    const first = await fetch(`${a.url}/api/v1/me/`, { method: 'PATCH', headers, body });
    const second = await fetch(`${b.url}/api/v1/me/`, { method: 'PATCH', headers, body });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
  });
});
