import { beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyStore } from '../../../src/services/idempotency/idempotency-store.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newUser } from '../../helpers/factories.js';
import { createPostgresDb } from '../../../src/db/client.js';
import { TEST_DATABASE_URL, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const countTokens = async (userId: string, name: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1 AND name = $2`, [userId, name]))[0].n;

describe('Idempotency-Key', () => {
  it('25 concurrent identical requests with one key have exactly one effect', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    const key = crypto.randomUUID();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => t.post('/api/v1/auth/token/', { name: 'burst' }, { session, idempotencyKey: key })),
    );
    const created = results.filter((r) => r.status === 201 && r.body.replayed === false);
    expect(created).toHaveLength(1);
    for (const r of results) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 409) {
        expect(r.body.code).toBe('idempotency_key_in_use');
        expect(r.headers['retry-after']).toBe('1');
      }
      if (r.status === 201 && r !== created[0]) expect(r.headers['idempotent-replayed']).toBe('true');
    }
    expect(await countTokens(u.user.id, 'burst')).toBe(1);
  });

  it('JSON key order and whitespace do not change the binding', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const first = await t.request('PATCH', '/api/v1/me/', {
      token: u.token,
      idempotencyKey: key,
      headers: { 'content-type': 'application/json' },
      payload: '{"first_name":"Grace","last_name":"Hopper"}',
    });
    expect(first.status).toBe(200);
    const again = await t.request('PATCH', '/api/v1/me/', {
      token: u.token,
      idempotencyKey: key,
      headers: { 'content-type': 'application/json' },
      payload: '{\n  "last_name" : "Hopper",\n\t"first_name":   "Grace"\n}',
    });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body).toEqual(first.body);
  });

  it('a replay returns the stored body (request_id included) with a new X-Request-Id', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const first = await t.patch('/api/v1/me/', { first_name: 'A' }, { token: u.token, idempotencyKey: key });
    const replay = await t.patch('/api/v1/me/', { first_name: 'A' }, { token: u.token, idempotencyKey: key });
    expect(replay.text).toBe(first.text);
    expect(replay.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it('quoted (structured-header) and bare forms are the same key', async () => {
    const u = await newUser(t);
    const first = await t.patch('/api/v1/me/', { last_name: 'Q' }, { token: u.token, idempotencyKey: 'abc-123' });
    const quoted = await t.patch('/api/v1/me/', { last_name: 'Q' }, { token: u.token, idempotencyKey: '"abc-123"' });
    expect(first.status).toBe(200);
    expect(quoted.headers['idempotent-replayed']).toBe('true');
  });

  it('422 idempotency_key_reused for the same key with another body or route', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    await t.patch('/api/v1/me/', { first_name: 'One' }, { token: u.token, idempotencyKey: key });
    const otherBody = await t.patch('/api/v1/me/', { first_name: 'Two' }, { token: u.token, idempotencyKey: key });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.code).toBe('idempotency_key_reused');
    const otherRoute = await t.post('/api/v1/me/sessions/revoke/', undefined, { token: u.token, idempotencyKey: key });
    expect(otherRoute.status).toBe(422);
    expect(otherRoute.body.code).toBe('idempotency_key_reused');
    expect((await t.get('/api/v1/me/', { token: u.token })).body.first_name).toBe('One');
  });

  it('keys are scoped per user', async () => {
    const a = await newUser(t);
    const b = await newUser(t);
    const key = crypto.randomUUID();
    const ra = await t.patch('/api/v1/me/', { first_name: 'Ann' }, { token: a.token, idempotencyKey: key });
    const rb = await t.patch('/api/v1/me/', { first_name: 'Bob' }, { token: b.token, idempotencyKey: key });
    expect(ra.body.first_name).toBe('Ann');
    expect(rb.body.first_name).toBe('Bob');
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
  });

  it('428 without a key or with an empty one; 400 validation_failed past 200 characters', async () => {
    const u = await newUser(t);
    const none = await t.patch('/api/v1/me/', { first_name: 'X' }, { token: u.token, idempotencyKey: false });
    expect(none.status).toBe(428);
    expect(none.body.code).toBe('idempotency_key_required');
    const empty = await t.patch('/api/v1/me/', { first_name: 'X' }, { token: u.token, idempotencyKey: '' });
    expect(empty.status).toBe(428);
    const quotedEmpty = await t.patch('/api/v1/me/', { first_name: 'X' }, { token: u.token, idempotencyKey: '""' });
    expect(quotedEmpty.status).toBe(428);
    const long = await t.patch('/api/v1/me/', { first_name: 'X' }, { token: u.token, idempotencyKey: 'k'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('validation_failed');
    const max = await t.patch('/api/v1/me/', { first_name: 'X' }, { token: u.token, idempotencyKey: 'k'.repeat(200) });
    expect(max.status).toBe(200);
    expect((await t.get('/api/v1/me/', { token: u.token })).body.first_name).toBe('X');
  });

  it('a 422 schema failure is not stored: the corrected request with the same key runs', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const bad = await t.patch('/api/v1/me/', { first_name: 42 }, { token: u.token, idempotencyKey: key });
    expect(bad.status).toBe(422);
    const good = await t.patch('/api/v1/me/', { first_name: 'Fixed' }, { token: u.token, idempotencyKey: key });
    expect(good.status).toBe(200);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
    expect(good.body.first_name).toBe('Fixed');
  });

  it('a 412 is not stored: a retry with a fresh If-Match and the same key runs', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const stale = await t.patch('/api/v1/me/', { first_name: 'Late' }, { token: u.token, idempotencyKey: key, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(stale.status).toBe(412);
    const etag = (await t.get('/api/v1/me/', { token: u.token })).headers.etag as string;
    const ok = await t.patch('/api/v1/me/', { first_name: 'Late' }, { token: u.token, idempotencyKey: key, headers: { 'if-match': etag } });
    expect(ok.status).toBe(200);
  });

  it('keys expire after 24 hours and are cleaned up', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    await t.patch('/api/v1/me/', { first_name: 'Old' }, { token: u.token, idempotencyKey: key });
    const [row] = await t.db.query<{ hours: number }>(
      `SELECT round(EXTRACT(EPOCH FROM expires_at - created_at) / 3600)::int AS hours FROM idempotency_keys WHERE user_id = $1 AND key = $2`,
      [u.user.id, key],
    );
    expect(row.hours).toBe(24);
    await t.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND key = $2`, [u.user.id, key]);
    // Past the window the key is free again, even with another body.
    const reused = await t.patch('/api/v1/me/', { first_name: 'New' }, { token: u.token, idempotencyKey: key });
    expect(reused.status).toBe(200);
    expect(reused.body.first_name).toBe('New');
    await t.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [u.user.id]);
    expect(await createIdempotencyStore({ db: t.db }).purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await t.db.query(`SELECT 1 FROM idempotency_keys WHERE user_id = $1`, [u.user.id])).toHaveLength(0);
  });

  it('a quoted key that is blank once unquoted is no key: 428', async () => {
    const u = await newUser(t);
    for (const key of ['" "', '"   "', '  ', '"\t"']) {
      const res = await t.patch('/api/v1/me/', { first_name: 'X' }, { token: u.token, idempotencyKey: key });
      expect(res.status, JSON.stringify(key)).toBe(428);
      expect(res.body.code).toBe('idempotency_key_required');
    }
  });

  it("a route's own refusal is stored and replayed (402), and nothing was written", async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const refused = await t.post('/api/v1/books/', { title: 'Needs a slot', plan: 'plus' }, { token: u.token, idempotencyKey: key });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('payment_required');
    await t.services.quotas.grantSlots(u.user.id, 'plus', 1);
    const replay = await t.post('/api/v1/books/', { title: 'Needs a slot', plan: 'plus' }, { token: u.token, idempotencyKey: key });
    expect(replay.status).toBe(402);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await t.get('/api/v1/books/', { token: u.token })).body.items).toEqual([]);
    // A new key runs now that a slot is held.
    expect((await t.post('/api/v1/books/', { title: 'Needs a slot', plan: 'plus' }, { token: u.token })).status).toBe(201);
  });

  it.runIf(TEST_DATABASE_URL)('a key whose request is still running answers 409 with Retry-After: 1, then the replay', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    // Another connection holds the user row, so the first request waits inside its transaction, holding the key.
    const other = createPostgresDb(TEST_DATABASE_URL!, { schema: t.database.schema, pooler: TEST_DATABASE_POOLER });
    const blocker = await other.begin();
    await blocker.query(`SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, [u.user.id]);
    try {
      const first = t.patch('/api/v1/me/', { first_name: 'Slow' }, { token: u.token, idempotencyKey: key });
      await new Promise((r) => setTimeout(r, 300));
      const second = await t.patch('/api/v1/me/', { first_name: 'Slow' }, { token: u.token, idempotencyKey: key });
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('idempotency_key_in_use');
      expect(second.headers['retry-after']).toBe('1');
      await blocker.commit();
      expect((await first).status).toBe(200);
    } finally {
      await blocker.rollback();
      await other.close();
    }
    const third = await t.patch('/api/v1/me/', { first_name: 'Slow' }, { token: u.token, idempotencyKey: key });
    expect(third.status).toBe(200);
    expect(third.headers['idempotent-replayed']).toBe('true');
  });

  it('GET requests need no key', async () => {
    const u = await newUser(t);
    expect((await t.get('/api/v1/me/', { token: u.token })).status).toBe(200);
  });
});
