/**
 * A job whose lease is held by a heartbeat, killed with SIGKILL mid-run: the
 * next worker takes it up within seconds of starting (not after its
 * two-minute lease), and a retry of the same stately job (as a retried
 * deletion sends while the dead run still holds its key) runs too, rather
 * than waiting behind the dead run.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { createDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { jobCatalog } from '../../src/jobs/job-catalog.js';
import { createQueue, queueSchemaName } from '../../src/jobs/queue.js';
import { startWorker } from '../../src/worker.js';
import { TEST_SECRET, testConfig } from '../helpers/build-test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';
import { CRASH_LOG_DDL } from './fixtures/crash-job.js';
import { HEARTBEAT_JOB, HEARTBEAT_LEASE_SECONDS, heartbeatJob } from './fixtures/heartbeat-job.js';
import { dropQueueSchema, waitFor } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'test/jobs/fixtures/heartbeat-worker.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

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

describe('a heartbeat job whose worker was killed', () => {
  it('is taken up by the next worker within seconds, and a retry with the same key runs after it', async () => {
    const { config, env } = await crashConfig();
    const db = await createDb(config);
    await migrate(db);
    await db.exec(CRASH_LOG_DDL);
    const producer = createQueue<{ [HEARTBEAT_JOB]: { key: string; label: string } }>({ db, config, jobs: [heartbeatJob('finish')] });
    await producer.start();
    const first = (await producer.send(HEARTBEAT_JOB, { key: 'book-1', label: 'first' }))!;
    await producer.stop();
    await db.close();

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
    await waitFor(`the child worker to start the job (stderr: ${stderr})`, async () => stdout.includes(`STARTED ${first}`) || child.exitCode !== null, 60_000);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // A new worker with pg-boss's own maintenance at its default (a minute): only the heartbeat can free the job soon.
    const worker = await startWorker(config, { jobs: [heartbeatJob('finish')], pollIntervalMs: 100 });
    const started = Date.now();
    try {
      const retried = (await worker.queue.send(HEARTBEAT_JOB as never, { key: 'book-1', label: 'retried' } as never))!;
      expect(retried).toBeTruthy();
      const limit = (HEARTBEAT_LEASE_SECONDS / 4) * 1000;
      await waitFor(
        'both runs to complete',
        async () => {
          const [a, b] = await Promise.all([worker.queue.getJob(HEARTBEAT_JOB, first), worker.queue.getJob(HEARTBEAT_JOB, retried)]);
          return a?.state === 'completed' && b?.state === 'completed';
        },
        limit,
      );
      expect(Date.now() - started).toBeLessThan(limit);
      const log = await worker.db.query<{ job_id: string; attempt: number; event: string; pid: number }>(
        'SELECT job_id, attempt, event, pid FROM crash_log ORDER BY job_id = $1 DESC, attempt, event DESC',
        [first],
      );
      expect(log).toEqual([
        { job_id: first, attempt: 1, event: 'started', pid: child.pid },
        { job_id: first, attempt: 2, event: 'started', pid: process.pid },
        { job_id: first, attempt: 2, event: 'finished', pid: process.pid },
        { job_id: retried, attempt: 1, event: 'started', pid: process.pid },
        { job_id: retried, attempt: 1, event: 'finished', pid: process.pid },
      ]);
    } finally {
      await worker.close();
    }
  }, 150_000);
});

describe('the jobs whose lease is held by a heartbeat', () => {
  it.each([
    'export.render',
    'account.export',
    'book.erase-backup',
    'account.erase-backup',
    'book.purge',
    'account.purge',
    'media.process',
    'inbound.fetch-media',
    'email.process',
    'share-card.render',
    'storage.delete-objects',
    'housekeeping.run',
    'deletions.sweep',
    'mail.digests',
    'mail.activity-reminders',
    'notifications.digest',
  ] as const)(
    '%s: a dead run is free again well within its lease',
    (name) => {
      const o = jobCatalog[name].options as { heartbeatSeconds?: number; expireInSeconds?: number };
      expect(o.heartbeatSeconds).toBeGreaterThan(0);
      // Three missed beats free the run, and a worker looks every beat (at most every 10 s).
      expect(o.heartbeatSeconds! * 4).toBeLessThanOrEqual(Math.min(60, o.expireInSeconds!));
    },
  );

  it('every job with a lease over five minutes (a run that may pass a minute) holds it by a heartbeat', () => {
    const long = Object.values(jobCatalog).filter((j) => ((j.options as { expireInSeconds?: number }).expireInSeconds ?? 900) > 300);
    for (const j of long) expect((j.options as { heartbeatSeconds?: number }).heartbeatSeconds, j.name).toBeGreaterThan(0);
  });
});
