/**
 * A client that hangs up mid-request does not cut its request's transaction
 * short: the handler finishes, the effect commits with its answer, and the
 * retry with the same key replays it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newBook, newUser } from '../../helpers/factories.js';

let erasure: http.Server;
let t: TestApp;
let base: string;
beforeAll(async () => {
  // An erasure endpoint that takes its time, so the client can hang up while the DELETE runs.
  erasure = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => res.writeHead(204).end(), 600);
  });
  await new Promise<void>((r) => erasure.listen(0, '127.0.0.1', () => r()));
  t = await buildTestApp({ env: { BACKUP_ERASURE_URL: `http://127.0.0.1:${(erasure.address() as AddressInfo).port}/erase` } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t.close();
  erasure.close();
});

describe('a client that hangs up mid-request', () => {
  it('leaves the effect committed with its answer: the retry replays the 204', async () => {
    const owner = await newUser(t);
    const b = await newBook(t, owner);
    const key = crypto.randomUUID();
    await new Promise<void>((resolve) => {
      const req = http.request(`${base}/api/v1/books/${b.slug}/`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${owner.token}`, 'idempotency-key': key },
      });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    // The request goes on without its client and commits.
    await eventually(async () => (await t.db.query(`SELECT 1 FROM books WHERE slug = $1 AND deleted_at IS NOT NULL`, [b.slug])).length === 1);
    await eventually(async () => (await t.db.query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key])).length === 1);
    const retry = await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key });
    expect(retry.status).toBe(204);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });
});
