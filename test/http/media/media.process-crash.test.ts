/**
 * A worker killed with SIGKILL while processing a photo and a video: both
 * stay `processing`, and once the dead worker's heartbeat has lapsed (about
 * 15 s, not media.process's 15-minute lease) the next worker processes them
 * within 90 seconds of starting. On both databases.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createDb } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createQueue, queueSchemaName } from '../../../src/jobs/queue.js';
import { uuidv7 } from '../../../src/lib/ids.js';
import { objectKeys } from '../../../src/services/media/media-types.js';
import { createServices } from '../../../src/services/index.js';
import { startWorker } from '../../../src/worker.js';
import { TEST_SECRET, testConfig } from '../../helpers/build-test-app.js';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-db.js';
import { sleep, waitFor } from '../../jobs/helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.join(ROOT, 'test/http/media/fixtures/hanging-media-worker.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** PGlite: a data folder only one process opens at a time. PostgreSQL: a schema of its own. */
async function crashConfig(): Promise<{ config: Config; env: Record<string, string>; queueSchema: string }> {
  if (!TEST_DATABASE_URL) {
    const config = testConfig({});
    cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
    return { config, env: { DATA_DIR: config.dataDir, DATABASE_URL: '' }, queueSchema: 'pgboss' };
  }
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema! };
  const config = testConfig(env);
  cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
  return { config, env: { ...env, DATA_DIR: config.dataDir }, queueSchema: queueSchemaName(database.schema) };
}

describe('a worker killed while processing media', () => {
  it('leaves the photo and the video to the next worker, which processes them within 90 s of starting', async () => {
    await ensureFixtures(['jpeg', 'mp4']);
    const { config, env, queueSchema } = await crashConfig();

    // 1. A pending memory with a photo and a video, each with its media.process job queued.
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
      `INSERT INTO submissions (id, book_id, contributor_user_id, text_content, status, source) VALUES ($1, $2, $3, 'A photo and a clip', 'pending', 'api')`,
      [submissionId, bookId, user.id],
    );
    const media: Record<'image' | 'video', string> = { image: uuidv7(), video: uuidv7() };
    for (const [kind, fixture, mime] of [['image', 'jpeg', 'image/jpeg'], ['video', 'mp4', 'video/mp4']] as const) {
      const id = media[kind];
      const key = objectKeys.original(bookId, id);
      const bytes = readFileSync(fixturePaths[fixture]);
      await services.store.put(key, Readable.from([bytes]), { contentType: mime });
      await db.query(
        `INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, size_bytes, sha256, storage_key, processing_status, scan_result)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', 'not_scanned')`,
        [id, submissionId, bookId, user.id, kind, mime, bytes.length, 'a'.repeat(64), key],
      );
      await producer.send('media.process', { mediaId: id });
    }
    await producer.stop();
    await services.store.close();
    await db.close();

    // 2. A worker process takes both and hangs mid-processing; kill -9 it there.
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
    await waitFor(
      `the child worker to start processing both files (stderr: ${stderr})`,
      async () => (stdout.match(/PROCESSING /g) ?? []).length === 2 || child.exitCode !== null,
      60_000,
    );
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // 3. What the dead worker left: both processing, their jobs active.
    const after = await createDb(config);
    const rows = await after.query<{ id: string; processing_status: string }>(`SELECT id, processing_status FROM media WHERE submission_id = $1`, [submissionId]);
    expect(rows.map((r) => r.processing_status)).toEqual(['processing', 'processing']);
    const jobs = await after.query<{ state: string }>(`SELECT state FROM ${queueSchema}.job WHERE name = 'media.process' AND data->>'mediaId' = ANY($1::text[])`, [
      Object.values(media),
    ]);
    expect(jobs.map((j) => j.state)).toEqual(['active', 'active']);
    await after.close();

    // 4. A new worker, as an operator starts it: the lapsed runs are taken up and finished well within 90 s.
    const worker = await startWorker(config);
    const started = Date.now();
    try {
      const done = await waitFor(
        'the interrupted media to be processed',
        async () => {
          await sleep(400);
          const r = await worker.db.query<{ kind: string; processing_status: string; width: number | null; duration_seconds: number | null; thumbnail_key: string | null }>(
            `SELECT kind, processing_status, width, duration_seconds, thumbnail_key FROM media WHERE submission_id = $1 ORDER BY kind`,
            [submissionId],
          );
          return r.every((m) => m.processing_status === 'complete') && r;
        },
        90_000,
      );
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(90_000);
      expect(done.find((m) => m.kind === 'image')).toMatchObject({ width: 640 });
      expect(done.find((m) => m.kind === 'video')).toMatchObject({ width: 320, thumbnail_key: expect.any(String) });
      expect(Number(done.find((m) => m.kind === 'video')!.duration_seconds)).toBeGreaterThan(1);
      console.log(`media processed ${(elapsed / 1000).toFixed(1)} s after the new worker started`);
    } finally {
      await worker.close();
    }
  }, 200_000);
});
