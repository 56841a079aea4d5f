import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { TEST_DATABASE_URL } from '../../helpers/test-db.js';

const ERASURE_MS = 5000;

/**
 * Deletion asks the operator's backup endpoint first, which may take its
 * full 5 s. That wait happens before the request's transaction opens (the
 * phases of DELETE /books/{slug}/ and /me/delete/), so on PGlite's single
 * connection every other request goes on meanwhile, and on PostgreSQL no
 * connection sits in a transaction while it waits.
 */
describe(`a slow backup erasure endpoint (${TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  let t: TestApp;
  let server: http.Server;
  let waiting: (() => void) | undefined;
  const arrived = new Promise<void>((r) => (waiting = r));

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        waiting?.();
        // Answers just before the eraser's own 5 s timeout.
        setTimeout(() => res.writeHead(200).end(), ERASURE_MS - 300);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    t = await buildTestApp({ env: { BACKUP_ERASURE_URL: `http://127.0.0.1:${port}/erase` } });
  });
  afterAll(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('delays no other request and holds no transaction while it waits; the deletion then commits with its answer', { timeout: 20_000 }, async () => {
    const owner = await newUser(t);
    const other = await newUser(t);
    const doomed = await newBook(t, owner, { title: 'Doomed' });
    const key = crypto.randomUUID();

    const started = Date.now();
    const deletion = t.delete(`/api/v1/books/${doomed.slug}/`, { token: owner.token, idempotencyKey: key });
    await arrived;

    // While the endpoint takes its time: reads and writes of another owner run at once.
    const t0 = Date.now();
    const created = await t.post('/api/v1/books/', { title: 'Meanwhile' }, { token: other.token });
    expect(created.status).toBe(201);
    expect((await t.get('/api/v1/books/', { token: other.token })).status).toBe(200);
    expect((await t.get(`/api/v1/books/${doomed.slug}/`, { token: owner.token })).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1500);

    if (TEST_DATABASE_URL) {
      // No session is in a transaction for this request (its claim would name the key) while the endpoint waits.
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state <> 'idle' AND pid <> pg_backend_pid() AND position($1 in query) > 0`,
          [key],
        );
        expect(rows[0].n).toBe(0);
      } finally {
        await admin.end();
      }
    }

    const res = await deletion;
    expect(res.status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(ERASURE_MS - 400);
    expect((await t.get(`/api/v1/books/${doomed.slug}/`, { token: owner.token })).status).toBe(404);
    // The answer was stored with the effect: a retry replays it without asking the endpoint again.
    const replay = await t.delete(`/api/v1/books/${doomed.slug}/`, { token: owner.token, idempotencyKey: key });
    expect(replay.status).toBe(204);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});
