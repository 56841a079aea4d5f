import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFailedJobs } from '../../src/jobs/failed-jobs.js';
import { createQueue, defineJob, QUEUED_RETENTION_SECONDS, queueSchemaName, type JobDefinition, type Queue } from '../../src/jobs/queue.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { dropQueueSchema, sleep, waitFor } from './helpers.js';

type TestJobs = {
  'test.long-retry': { n: number };
  'test.unrun': { n: number };
  'test.doomed': { n: number };
  'test.owed': { n: number };
};
const N = Type.Object({ n: Type.Integer() });

let t: TestApp;
let queue: Queue<TestJobs>;
const logged: { level: number; msg: string; job_id?: string; err?: { message: string } }[] = [];
const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });

const definitions: JobDefinition[] = [
  defineJob({ name: 'test.long-retry', payload: N, options: { retryLimit: 25, retryDelay: 30, retryBackoff: true }, handle: async () => {} }),
  defineJob({ name: 'test.unrun', payload: N, options: { retryLimit: 0 }, handle: async () => {} }),
  // Never taken: its jobs stay queued (a start far ahead) or are moved by the test.
  defineJob({ name: 'test.owed', payload: N, options: { retryLimit: 2, singletonKey: (p) => String(p.n) }, handle: async () => {} }),
  defineJob({
    name: 'test.doomed',
    payload: N,
    options: { retryLimit: 0 },
    summarize: (p) => ({ n: p.n }),
    handle: async () => {
      throw new Error('no way');
    },
  }),
];

beforeAll(async () => {
  t = await buildTestApp();
  // Maintenance runs only when a test calls maintain().
  queue = createQueue<TestJobs>({ db: t.db, config: t.config, log, schema: queueSchemaName(t.database.schema), jobs: definitions, pollIntervalMs: 100, maintenanceIntervalSeconds: 3600 });
  await queue.start();
  queue.work();
});

afterAll(async () => {
  await queue.stop({ timeoutMs: 2000 });
  await dropQueueSchema(t.db, queue.schema);
  await t.close();
});

type Row = { state: string; retry_limit: number; output: any; keep_until: string; start_after: string };
const where = async (id: string): Promise<'job' | 'archive' | 'gone'> => {
  if ((await t.db.query(`SELECT 1 FROM ${queue.schema}.job WHERE id = $1`, [id])).length) return 'job';
  if ((await t.db.query(`SELECT 1 FROM ${queue.schema}.archive WHERE id = $1`, [id])).length) return 'archive';
  return 'gone';
};
const row = async (id: string) => (await t.db.query<Row>(`SELECT state, retry_limit, output, keep_until, start_after FROM ${queue.schema}.job WHERE id = $1`, [id]))[0];
const failed = (options: { name?: string; limit?: number } = {}) => listFailedJobs(t.db, t.config, { ...options, schema: queue.schema, jobs: definitions });
const DAY = 24 * 3600;

describe('retention', () => {
  it('keeps a job whose retries outlive pg-boss’s 14 days until its last retry, while an unrun job still goes after 14 days', async () => {
    const longId = (await queue.send('test.long-retry', { n: 1 }, { startAfterSeconds: 3600 }))!;
    const unrunId = (await queue.send('test.unrun', { n: 1 }, { startAfterSeconds: 3600 }))!;

    // pg-boss waits up to 30·2^min(16, n) s before retry n: the waits alone add up to months.
    const waits = Array.from({ length: 25 }, (_, i) => 30 * 2 ** Math.min(16, i + 1)).reduce((a, b) => a + b);
    const long = await row(longId);
    const keptSeconds = (Date.parse(long.keep_until) - Date.parse(long.start_after)) / 1000;
    expect(keptSeconds).toBeGreaterThan(waits);
    expect(keptSeconds).toBeGreaterThan(QUEUED_RETENTION_SECONDS);

    // Twenty days on: the long job waits for its 12th retry; the other was never picked up.
    const age = `interval '20 days'`;
    await t.db.query(
      `UPDATE ${queue.schema}.job SET state = 'retry', retry_count = 11, created_on = created_on - ${age}, started_on = now() - interval '1 hour',
         start_after = now() + interval '10 days', keep_until = keep_until - ${age} WHERE id = $1`,
      [longId],
    );
    // Its start stays ahead: with it in the past, this test's own worker could take the job between the update and maintain().
    await t.db.query(`UPDATE ${queue.schema}.job SET created_on = created_on - ${age}, keep_until = keep_until - ${age} WHERE id = $1`, [unrunId]);
    await queue.maintain();

    expect(await where(unrunId)).toBe('archive');
    expect(await where(longId)).toBe('job');
    expect(await row(longId)).toMatchObject({ state: 'retry' });
  });

  it('gives book.erase-backup a bounded plan backing off from the operator’s retry delay, and a retention that covers it', async () => {
    const [book] = await t.db.query<{ id: string }>(`SELECT gen_random_uuid()::text AS id`);
    const id = (await t.queue.send('book.erase-backup', { bookId: book.id }, { retryDelaySeconds: 30, startAfterSeconds: 3600 }))!;
    const [job] = await t.db.query<Row>(`SELECT state, retry_limit, output, keep_until, start_after FROM ${t.queue.schema}.job WHERE id = $1`, [id]);
    // Backoff 30 s … 32 min, about an hour in all; then the hourly deletions.sweep queues it again while it is owed.
    expect(job.retry_limit).toBe(6);
    expect((Date.parse(job.keep_until) - Date.parse(job.start_after)) / 1000).toBeGreaterThan(14 * DAY + 30 * (2 + 4 + 8 + 16 + 32 + 64));
  });
});

describe('sending what is still owed', () => {
  it('with unlessPending, sends nothing while a job of that key waits, retries or runs; sends again once it is over', async () => {
    const later = { startAfterSeconds: 3600 };
    const first = (await queue.send('test.owed', { n: 1 }, later))!;
    expect(await queue.send('test.owed', { n: 1 }, { ...later, unlessPending: true })).toBeNull();
    // Another key is not held back.
    expect(await queue.send('test.owed', { n: 2 }, { ...later, unlessPending: true })).toMatch(/^[0-9a-f-]{36}$/);
    for (const state of ['retry', 'active']) {
      await t.db.query(`UPDATE ${queue.schema}.job SET state = $2 WHERE id = $1`, [first, state]);
      expect(await queue.send('test.owed', { n: 1 }, { ...later, unlessPending: true })).toBeNull();
    }
    await t.db.query(`UPDATE ${queue.schema}.job SET state = 'failed', completed_on = now() WHERE id = $1`, [first]);
    // Inside a transaction too, where the sweep's check and send commit together.
    const again = await t.db.transaction((tx) => queue.send('test.owed', { n: 1 }, { ...later, unlessPending: true, tx }));
    expect(again).toMatch(/^[0-9a-f-]{36}$/);
    expect(again).not.toBe(first);
  });
});

describe('giving up', () => {
  it('a job that fails for good is logged at error level and listed, also once archived', async () => {
    const id = (await queue.send('test.doomed', { n: 7 }))!;
    await waitFor('the job to fail', async () => (await row(id))?.state === 'failed');
    await sleep(100);

    expect(logged).toContainEqual(expect.objectContaining({ level: 50, msg: 'job failed for good', job_id: id, err: expect.objectContaining({ message: 'no way' }) }));
    const [listed] = await failed({ name: 'test.doomed' });
    expect(listed).toEqual({ id, name: 'test.doomed', failed_at: expect.stringMatching(/Z$/), attempts: 1, error: 'no way', payload: { n: 7 }, archived: false });

    // pg-boss archives failed jobs 12 hours on; the operator still sees it.
    await t.db.query(`UPDATE ${queue.schema}.job SET completed_on = now() - interval '13 hours' WHERE id = $1`, [id]);
    await queue.maintain();
    expect(await where(id)).toBe('archive');
    expect(await failed({ name: 'test.doomed' })).toEqual([{ ...listed, failed_at: expect.stringMatching(/Z$/), archived: true }]);

    // Filtered by name, bounded by limit, newest first.
    const secondId = (await queue.send('test.doomed', { n: 8 }))!;
    await waitFor('the second job to fail', async () => (await row(secondId))?.state === 'failed');
    expect((await failed({ name: 'test.doomed' })).map((j) => j.id)).toEqual([secondId, id]);
    expect((await failed({ name: 'test.doomed', limit: 1 })).map((j) => j.id)).toEqual([secondId]);
    expect(await failed({ name: 'test.unrun' })).toEqual([]);
    await expect(failed({ limit: 0 })).rejects.toThrow(RangeError);
  });

  it('lists nothing, without failing, where the queue was never installed', async () => {
    expect(await listFailedJobs(t.db, t.config, { schema: 'no_such_queue_schema' })).toEqual([]);
  });
});
