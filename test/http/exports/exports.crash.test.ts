/**
 * A worker killed with SIGKILL in the middle of rendering a PDF: the job
 * stays processing, nothing half-made appears in the store, and once the
 * dead worker's heartbeat has lapsed (half a minute, not the render's
 * 30-minute lease) the next worker renders it from the start and completes
 * it within 90 seconds of starting. On both databases; on both stores with PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createDb } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createQueue, queueSchemaName } from '../../../src/jobs/queue.js';
import { uuidv7 } from '../../../src/lib/ids.js';
import { objectKeys } from '../../../src/services/media/media-types.js';
import { createServices } from '../../../src/services/index.js';
import { createObjectStore } from '../../../src/storage/index.js';
import { startWorker } from '../../../src/worker.js';
import { TEST_SECRET, testConfig } from '../../helpers/build-test-app.js';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { startS3Server, type TestS3Server } from '../../helpers/s3-server.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-db.js';
import { sleep, waitFor } from '../../jobs/helpers.js';
import { STORES } from './exports-setup.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.join(ROOT, 'test/http/exports/fixtures/hanging-export-worker.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** PGlite: a data folder only one process opens at a time. PostgreSQL: a schema of its own. Either on the chosen store. */
async function crashConfig(store: 'local' | 's3'): Promise<{ config: Config; env: Record<string, string>; queueSchema: string }> {
  let s3: TestS3Server | undefined;
  if (store === 's3') {
    s3 = await startS3Server();
    cleanups.push(() => s3!.close());
  }
  const storeEnv = s3?.env ?? {};
  if (!TEST_DATABASE_URL) {
    const config = testConfig(storeEnv);
    cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
    return { config, env: { DATA_DIR: config.dataDir, DATABASE_URL: '', ...storeEnv }, queueSchema: 'pgboss' };
  }
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema!, ...storeEnv };
  const config = testConfig(env);
  cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
  return { config, env: { ...env, DATA_DIR: config.dataDir }, queueSchema: queueSchemaName(database.schema) };
}

// On PGlite each worker opens the data folder from disk (about half a minute a round), so the S3 round runs on PostgreSQL only.
const kinds = TEST_DATABASE_URL ? STORES : (['local'] as const);

for (const kind of kinds) {
  describe(`a worker killed while rendering an export (${kind} store)`, () => {
    it('leaves the job to the next worker, which renders it whole', async () => {
      await ensureFixtures(['jpeg']);
      const { config, env, queueSchema } = await crashConfig(kind);

      // 1. A book with an approved memory and its photo, and an export of it, queued from this process.
      const db = await createDb(config);
      await migrate(db);
      const producer = createQueue({ db, config });
      await producer.start();
      const services = createServices({ db, config, queue: producer });
      const user = await services.users.createUser({ email: `crash-${uuidv7().slice(-8)}@example.test`, password: 'long enough pw' });
      await services.quotas.grantSlots(user.id, 'premium', 1);
      const book = await db.transaction((tx) => services.books.createBook(tx, user, { title: 'Crash course', plan: 'premium' }));
      const [{ id: bookId }] = await db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [book.slug]);
      const submissionId = uuidv7();
      await db.query(
        `INSERT INTO submissions (id, book_id, contributor_user_id, text_content, status, source) VALUES ($1, $2, $3, 'A memory with a photo', 'approved', 'api')`,
        [submissionId, bookId, user.id],
      );
      const mediaId = uuidv7();
      const key = objectKeys.original(bookId, mediaId);
      const photo = readFileSync(fixturePaths.jpeg);
      await services.store.put(key, Readable.from([photo]), { contentType: 'image/jpeg' });
      await db.query(
        `INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, size_bytes, sha256, storage_key, width, height, processing_status, scan_result)
         VALUES ($1, $2, $3, $4, 'image', 'image/jpeg', $5, $6, $7, 640, 480, 'complete', 'not_scanned')`,
        [mediaId, submissionId, bookId, user.id, photo.length, 'a'.repeat(64), key],
      );
      const job = await db.transaction((tx) => services.exports.requestExport(tx, user, book.slug, { theme: 'heirloom_gallery', intent: 'shop' }));
      await producer.stop();
      await services.store.close();
      await db.close();

      // 2. A worker process takes the export and hangs waiting for the photo, mid-render; kill -9 it there.
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: TEST_SECRET, PUBLIC_URL: config.http.publicUrl, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
      cleanups.push(async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      await waitFor(`the child worker to start rendering (stderr: ${stderr})`, async () => stdout.includes(`RENDERING ${key}`) || child.exitCode !== null, 60_000);
      expect(child.exitCode).toBeNull();
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      // 3. What the dead worker left: the job processing, its lease held, no file.
      const after = await createDb(config);
      const [row] = await after.query<{ status: string; attempts: number }>(`SELECT status, attempts FROM exports WHERE id = $1`, [job.id]);
      expect(row).toEqual({ status: 'processing', attempts: 1 });
      const [queued] = await after.query<{ id: string; state: string }>(
        `SELECT id, state FROM ${queueSchema}.job WHERE name = 'export.render' AND data->>'exportId' = $1`,
        [job.id],
      );
      expect(queued.state).toBe('active');
      const store = createObjectStore(config);
      expect(await store.head(`exports/${bookId}/${job.id}/book.pdf`)).toBeNull();
      await after.close();

      // 4. A new worker, as an operator starts it (the queue's own settings): the dead worker's lease was held by a
      //    heartbeat, so it lapses within half a minute of the kill, and the render is taken up at once, whole.
      const worker = await startWorker(config);
      const started = Date.now();
      try {
        const done = await waitFor(
          'the interrupted export to complete',
          async () => {
            await sleep(400);
            const [r] = await worker.db.query<{ status: string; attempts: number; page_count: number; artifact_key: string }>(
              `SELECT status, attempts, page_count, artifact_key FROM exports WHERE id = $1`,
              [job.id],
            );
            return r.status === 'complete' && r;
          },
          90_000,
        );
        expect(done.attempts).toBe(2);
        expect(Date.now() - started).toBeLessThan(90_000);
        const chunks: Buffer[] = [];
        for await (const c of await store.get(done.artifact_key)) chunks.push(c as Buffer);
        const pdf = await PDFDocument.load(Buffer.concat(chunks));
        expect(pdf.getPageCount()).toBe(done.page_count);
        const [retried] = await worker.db.query<{ retry_count: number }>(`SELECT retry_count FROM ${queueSchema}.job WHERE id = $1`, [queued.id]);
        expect(retried.retry_count).toBe(1);
      } finally {
        await worker.close();
        await store.close();
      }
    }, 180_000);
  });
}
