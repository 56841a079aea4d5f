import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { newBook, newUser } from '../helpers/factories.js';
import { waitFor } from './helpers.js';

/**
 * No continuation rows: a backup erasure job has a bounded plan, and the
 * hourly deletions.sweep queues it again while the book is still owed its
 * erasure (never twice at once); a purge that gave up is queued again too.
 */
let t: TestApp;
let accepting = false;
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(accepting ? 200 : 503).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  // An hour between retries: after its first failure the job waits, as one would between two sweeps.
  t = await buildTestApp({ worker: true, env: { BACKUP_ERASURE_URL: `http://127.0.0.1:${port}/erase`, BACKUP_ERASURE_RETRY_SECONDS: '3600' } });
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

const erasureJobs = (bookId: string) =>
  t.db.query<{ id: string; state: string }>(`SELECT id, state FROM ${t.queue.schema}.job WHERE name = 'book.erase-backup' AND singleton_key = $1 ORDER BY created_on`, [bookId]);
async function sweep() {
  const id = (await t.queue.send('deletions.sweep', { period: new Date().toISOString() }))!;
  await waitFor('the sweep to complete', async () => (await t.queue.getJob('deletions.sweep', id))?.state === 'completed');
}

it('queues the erasure of a book still owed it once its job gave up, never beside a pending one, until the book is gone', async () => {
  const owner = await newUser(t);
  const b = await newBook(t, owner);
  const [{ id: bookId }] = await t.db.query<{ id: string }>(`SELECT id FROM books WHERE slug = $1`, [b.slug]);
  expect((await t.delete(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(202);
  // The request queued the erasure job (its recovery point), to start after the retry delay: it waits, as between two sweeps.
  expect((await erasureJobs(bookId)).map((j) => j.state)).toEqual(['created']);

  // While that job waits to retry, the sweep adds none.
  await sweep();
  expect(await erasureJobs(bookId)).toHaveLength(1);

  // The job gives up (its bounded plan is spent); the book is still owed its erasure.
  await t.db.query(`UPDATE ${t.queue.schema}.job SET state = 'failed', completed_on = now() WHERE name = 'book.erase-backup' AND singleton_key = $1`, [bookId]);
  accepting = true;
  await sweep();
  const jobs = await erasureJobs(bookId);
  expect(jobs).toHaveLength(2);
  await waitFor('the book to be gone', async () => (await t.db.query(`SELECT 1 FROM books WHERE id = $1`, [bookId])).length === 0);
  expect((await t.get(`/api/v1/books/${b.slug}/`, { token: owner.token })).status).toBe(404);

  // Nothing owed any more: the next sweep queues nothing.
  await sweep();
  expect(await erasureJobs(bookId)).toHaveLength(2);
});

it('queues the purge of a book deleted over an hour ago whose rows are still there', async () => {
  const owner = await newUser(t);
  const b = await newBook(t, owner);
  // As if its purge had given up: deleted two hours ago, rows in place, no job pending.
  await t.db.query(`UPDATE books SET deleted_at = now() - interval '2 hours', deletion_requested_at = now() - interval '2 hours' WHERE slug = $1`, [b.slug]);
  await sweep();
  await waitFor('the purge to remove the book', async () => (await t.db.query(`SELECT 1 FROM books WHERE slug = $1`, [b.slug])).length === 0);
});

it("queues again the purge of a deleted account that did not finish; the purge deletes the account's own books through their own jobs", async () => {
  const owner = await newUser(t);
  const b = await newBook(t, owner);
  // As if the purge had given up: the account scrubbed two hours ago, its book and memberships still there.
  await t.db.query(`UPDATE users SET deleted_at = now() - interval '2 hours' WHERE id = $1`, [owner.user.id]);
  await sweep();
  await waitFor('the purge to finish', async () => (await t.db.query(`SELECT 1 FROM users WHERE id = $1 AND purged_at IS NOT NULL`, [owner.user.id])).length === 1);
  await waitFor('the owned book to be gone', async () => (await t.db.query(`SELECT 1 FROM books WHERE slug = $1`, [b.slug])).length === 0);
  // Purged: the next sweep queues nothing for it.
  const purges = () => t.db.query(`SELECT id FROM ${t.queue.schema}.job WHERE name = 'account.purge' AND singleton_key = $1`, [owner.user.id]);
  const before = (await purges()).length;
  await sweep();
  expect(await purges()).toHaveLength(before);
});
