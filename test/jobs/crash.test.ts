import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { createDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createQueue, queueSchemaName } from '../../src/jobs/queue.js';
import { startWorker } from '../../src/worker.js';
import { TEST_SECRET, testConfig } from '../helpers/build-test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';
import { CRASH_JOB, CRASH_LOG_DDL, crashJob } from './fixtures/crash-job.js';
import { dropQueueSchema, waitFor } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'test/jobs/fixtures/crash-worker.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/**
 * PGlite: a data directory on disk, which only one process may open at a
 * time, so the test closes it before the child opens it and reopens it only
 * after the child is dead. PostgreSQL: a schema of its own, passed to the
 * child as DATABASE_SCHEMA.
 */
async function crashConfig(): Promise<{ config: Config; env: Record<string, string> }> {
  if (!TEST_DATABASE_URL) {
    const config = testConfig();
    cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
    return { config, env: { DATA_DIR: config.dataDir, DATABASE_URL: '' } };
  }
  const database: TestDatabase = await createTestDatabase();
  const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema! };
  const config = testConfig(env);
  cleanups.push(async () => {
    await dropQueueSchema(database.db, queueSchemaName(database.schema));
    await database.drop();
  });
  return { config, env };
}

describe('a worker killed in the middle of a job', () => {
  it('leaves the job to be picked up again by the next worker, which finishes it', async () => {
    const { config, env } = await crashConfig();

    // 1. Enqueue from this process, then let go of the database.
    const db = await createDb(config);
    await migrate(db);
    await db.exec(CRASH_LOG_DDL);
    const producer = createQueue<{ [CRASH_JOB]: { label: string } }>({ db, config, jobs: [crashJob('finish')] });
    await producer.start();
    const id = (await producer.send(CRASH_JOB, { label: 'survives a crash' }))!;
    await producer.stop();
    await db.close();

    // 2. A worker process takes the job, records "started" and hangs; kill -9 it there.
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: TEST_SECRET, ...env },
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
    await waitFor(`the child worker to start the job (stderr: ${stderr})`, async () => stdout.includes(`STARTED ${id}`) || child.exitCode !== null, 60_000);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // 3. A new worker opens the same database; once the dead worker's lease
    //    runs out, maintenance puts the job back and the new worker finishes it.
    const worker = await startWorker(config, { jobs: [crashJob('finish')], pollIntervalMs: 100, maintenanceIntervalSeconds: 1 });
    try {
      const job = await waitFor('the interrupted job to complete', async () => {
        const j = await worker.queue.getJob(CRASH_JOB, id);
        return j?.state === 'completed' && j;
      });
      expect(job.retryCount).toBe(1);
      const log = await worker.db.query<{ attempt: number; event: string; pid: number }>(
        'SELECT attempt, event, pid FROM crash_log WHERE job_id = $1 ORDER BY attempt, event DESC',
        [id],
      );
      expect(log).toEqual([
        { attempt: 1, event: 'started', pid: child.pid },
        { attempt: 2, event: 'started', pid: process.pid },
        { attempt: 2, event: 'finished', pid: process.pid },
      ]);
    } finally {
      await worker.close();
    }
  }, 120_000);
});
