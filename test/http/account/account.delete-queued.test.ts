/** POST /me/delete/ while the off-site backup erasure endpoint refuses: 202 deletion_queued, the grant given back, the queue finishing. */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newUser } from '../../helpers/factories.js';
import { grantFor } from './account-helpers.js';

let t: TestApp;
let accepting = false;
const calls: { kind: string; id: string }[] = [];
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      calls.push(JSON.parse(body));
      res.writeHead(accepting ? 204 : 503).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  t = await buildTestApp({ worker: true, env: { BACKUP_ERASURE_URL: `http://127.0.0.1:${port}/erase`, BACKUP_ERASURE_RETRY_SECONDS: '1' } });
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

const DELETE = '/api/v1/me/delete/';
const deletedAt = async (id: string) => (await t.db.query<{ deleted_at: string | null }>(`SELECT deleted_at FROM users WHERE id = $1`, [id]))[0].deleted_at;

describe('POST /me/delete/ while backup erasure is unreachable', () => {
  it('202 deletion_queued with Retry-After; the account keeps working; the retry with the same key finds the grant again', async () => {
    accepting = false;
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const body = { reauth_token: await grantFor(t, u) };

    const res = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ code: 'deletion_queued', request_id: res.headers['x-request-id'] });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(calls).toContainEqual({ kind: 'user', id: u.user.id });
    expect((await t.get('/api/v1/me/', { token: u.token })).status).toBe(200);
    expect(await deletedAt(u.user.id)).toBeNull();

    // Not stored: the same key runs again, with the grant given back (still refused while erasure is).
    const again = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBeUndefined();

    // The endpoint comes back; the retry with the same key and grant deletes the account.
    accepting = true;
    const retry = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    // (Replayed when the queue's own retry got there first: the deletion's answer waits under the key.)
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ status: 'deleted' });
    expect((await t.get('/api/v1/me/', { token: u.token })).status).toBe(401);
    expect(await deletedAt(u.user.id)).not.toBeNull();
  });

  it('the queue finishes first: a retry with the same key answers the deletion, not 401 (only that request: another body under the revoked key is 401)', async () => {
    accepting = false;
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const body = { reauth_token: await grantFor(t, u) };
    expect((await t.post(DELETE, body, { token: u.token, idempotencyKey: key })).status).toBe(202);
    accepting = true;
    await eventually(async () => (await deletedAt(u.user.id)) !== null);
    // The key the request was sent with is revoked by the deletion; the retry is still answered.
    expect((await t.get('/api/v1/me/', { token: u.token })).status).toBe(401);
    const retry = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual({ status: 'deleted' });
    // Bound to the request it answered: a revoked key gets only that replay.
    expect((await t.post(DELETE, { reauth_token: 'another' }, { token: u.token, idempotencyKey: key })).status).toBe(401);
    // A new key with the revoked key is refused as before.
    expect((await t.post(DELETE, body, { token: u.token })).status).toBe(401);
    // Still answered once the purge has run (it keeps the deletion's own answers).
    await eventually(async () => (await t.db.query(`SELECT 1 FROM users WHERE id = $1 AND purged_at IS NOT NULL`, [u.user.id])).length === 1);
    expect((await t.post(DELETE, body, { token: u.token, idempotencyKey: key })).status).toBe(200);
    expect(await t.db.query(`SELECT 1 FROM account_deletion_keys WHERE user_id = $1`, [u.user.id])).toEqual([]);
  });

  it('the deletion answer replaces an expired answer left under the same key', async () => {
    accepting = false;
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const body = { reauth_token: await grantFor(t, u) };
    expect((await t.post(DELETE, body, { token: u.token, idempotencyKey: key })).status).toBe(202);
    // The same key answered another request more than a day ago; that answer is past its time but not yet swept.
    await t.db.query(
      `INSERT INTO idempotency_keys (user_id, key, fingerprint, response_status, response_headers, response_body, created_at, expires_at)
       VALUES ($1, $2, 'an older request', 204, '{}', '', now() - interval '2 days', now() - interval '1 day')`,
      [u.user.id, key],
    );
    accepting = true;
    await eventually(async () => (await deletedAt(u.user.id)) !== null);
    const retry = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual({ status: 'deleted' });
  });

  it('the queue keeps trying and deletes the account once erasure is confirmed', async () => {
    accepting = false;
    const u = await newUser(t);
    expect((await t.post(DELETE, { reauth_token: await grantFor(t, u) }, { token: u.token })).status).toBe(202);
    const seen = calls.filter((c) => c.id === u.user.id).length;
    await eventually(async () => calls.filter((c) => c.id === u.user.id).length >= seen + 2);
    expect(await deletedAt(u.user.id)).toBeNull();
    accepting = true;
    await eventually(async () => (await deletedAt(u.user.id)) !== null);
    expect((await t.get('/api/v1/me/', { token: u.token })).status).toBe(401);
    const [row] = await t.db.query<{ email: string }>(`SELECT email FROM users WHERE id = $1`, [u.user.id]);
    expect(row.email).toBe(`deleted-${u.user.id}@invalid`);
  });

  it('a grant given back for a 202 is still single use', async () => {
    accepting = false;
    const u = await newUser(t);
    const grant = await grantFor(t, u);
    expect((await t.post(DELETE, { reauth_token: grant }, { token: u.token })).status).toBe(202);
    accepting = true;
    expect((await t.post(DELETE, { reauth_token: grant }, { token: u.token })).status).toBeOneOf([200, 401]);
    // Once spent by a request that finished, it does not come back.
    const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM reauth_grants WHERE user_id = $1 AND used_at IS NULL`, [u.user.id]);
    expect(row.n).toBe(0);
  });
});
