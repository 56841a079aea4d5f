import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newUser, setGrace } from '../../helpers/factories.js';

const bookRow = (t: TestApp, slug: string) => t.db.query<{ id: string; deleted_at: string | null }>(`SELECT id, deleted_at FROM books WHERE slug = $1`, [slug]);

describe('DELETE /books/{slug}/ without a backup erasure endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ worker: true });
  });

  it('answers 204; the book is 404 at once and its rows are purged in the background', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const b = await newBook(t, owner);
    await addMember(t, b.slug, admin, 'admin');
    const key = crypto.randomUUID();
    const res = await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(404);
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: admin.token })).status).toBe(404);
    expect((await t.get('/api/v1/books/', { token: owner.token })).body.items).toEqual([]);
    // A retry of the same request replays its answer; a new request is 404.
    const replay = await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key });
    expect(replay.status).toBe(204);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(404);

    await eventually(async () => (await bookRow(t, b.slug)).length === 0);
    expect(await t.db.query(`SELECT 1 FROM book_members m WHERE NOT EXISTS (SELECT 1 FROM books WHERE id = m.book_id)`)).toEqual([]);
  });

  it('is owner only, and allowed during a grace period', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const b = await newBook(t, owner);
    await addMember(t, b.slug, admin, 'admin');
    const denied = await t.delete(`/api/v1/books/${b.slug}/`, { token: admin.token });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_role');
    await setGrace(t, b.slug, true);
    expect((await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(204);
  });
});

describe('DELETE /books/{slug}/ with an erasure endpoint that refuses, then accepts', () => {
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
        res.writeHead(accepting ? 200 : 503).end();
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

  it('202 deletion_queued with Retry-After; the book keeps answering; the queue retries; once erased the book is 404', async () => {
    const owner = await newUser(t);
    const b = await newBook(t, owner);
    const [{ id }] = await bookRow(t, b.slug);
    const key = crypto.randomUUID();
    const res = await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ code: 'deletion_queued', request_id: res.headers['x-request-id'] });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(calls).toContainEqual({ kind: 'book', id });
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(200);

    // The 202 was not stored: the same key runs again (and is refused again while the endpoint refuses).
    expect((await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key })).status).toBe(202);
    // The queue keeps trying in the background.
    await eventually(async () => calls.length >= 3);
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(200);

    accepting = true;
    await eventually(async () => (await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).status === 404);
    await eventually(async () => (await bookRow(t, b.slug)).length === 0);
  });

  it('a retry with the same key after the endpoint accepts answers 204', async () => {
    accepting = false;
    const owner = await newUser(t);
    const b = await newBook(t, owner);
    const key = crypto.randomUUID();
    expect((await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key })).status).toBe(202);
    accepting = true;
    const retry = await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token, idempotencyKey: key });
    expect([204, 404]).toContain(retry.status); // 404 if the background retry won the race
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(404);
  });
});
