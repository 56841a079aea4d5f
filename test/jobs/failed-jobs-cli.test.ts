import { rmSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createQueue, defineJob } from '../../src/jobs/queue.js';
import { TEST_SECRET, testConfig } from '../helpers/build-test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';
import { dropQueueSchema, waitFor } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The environment the CLI reads: a data folder on disk (PGlite), or a schema of its own (PostgreSQL). */
async function cliEnvironment(): Promise<Record<string, string>> {
  if (!TEST_DATABASE_URL) return { DATABASE_URL: '' };
  const database: TestDatabase = await createTestDatabase();
  cleanups.push(async () => {
    await dropQueueSchema(database.db, `${database.schema}_pgboss`);
    await database.drop();
  });
  return { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema! };
}

/** Runs the CLI in this process, collecting what it prints. */
async function cli(...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout.push(String(chunk));
    return true;
  });
  const err = vi.spyOn(console, 'error').mockImplementation((line) => void stderr.push(String(line)));
  try {
    const code = await main(args);
    return { code, lines: stdout.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)), stderr: stderr.join('\n') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('memorybook jobs failed', () => {
  it('prints each job given up for good as one JSON object, filtered by name', async () => {
    const env = { NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, LOG_LEVEL: 'silent', ...(await cliEnvironment()) };
    const config = testConfig(env);
    cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
    Object.assign(process.env, env, { DATA_DIR: config.dataDir });

    // A job fails for good in a worker; the worker then lets go of the database (PGlite: one process at a time).
    const db = await createDb(config);
    await migrate(db);
    const doomed = defineJob({
      name: 'test.cli-doomed',
      payload: Type.Object({}),
      options: { retryLimit: 0 },
      handle: async () => {
        throw new Error('refused');
      },
    });
    const queue = createQueue<{ 'test.cli-doomed': object }>({ db, config, jobs: [doomed], pollIntervalMs: 100 });
    await queue.start();
    queue.work();
    const id = (await queue.send('test.cli-doomed', {}))!;
    await waitFor('the job to fail', async () => (await queue.getJob('test.cli-doomed', id))?.state === 'failed');
    await queue.stop();
    await db.close();

    const listed = await cli('jobs', 'failed', '--name', 'test.cli-doomed');
    expect(listed.code).toBe(0);
    expect(listed.lines).toEqual([{ id, name: 'test.cli-doomed', failed_at: expect.stringMatching(/Z$/), attempts: 1, error: 'refused', payload: null, archived: false }]);
    expect((await cli('jobs', 'failed', '--name', 'mail.send')).lines).toEqual([]);

    const bad = await cli('jobs', 'failed', '--limit', 'ten');
    expect(bad).toMatchObject({ code: 2, lines: [], stderr: 'memorybook: --limit must be a whole number from 1 to 1000' });
  });
});
