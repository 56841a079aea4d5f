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
  'test.forever': { n: number };
  'test.doomed': { n: number };
  'test.forever-reserve': { n: number };
};
const N = Type.Object({ n: Type.Integer() });

let t: TestApp;
let queue: Queue<TestJobs>;
const logged: { level: number; msg: string; job_id?: string; next_job_id?: string; err?: { message: string } }[] = [];
const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });

/** Attempts of test.forever, and when each began. */
const foreverRuns: number[] = [];
const FOREVER_SUCCEEDS_ON = 4;

const definitions: JobDefinition[] = [
  defineJob({ name: 'test.long-retry', payload: N, options: { retryLimit: 25, retryDelay: 30, retryBackoff: true }, handle: async () => {} }),
  defineJob({ name: 'test.unrun', payload: N, options: { retryLimit: 0 }, handle: async () => {} }),
  defineJob({
    name: 'test.forever',
    payload: N,
    options: { retryForever: { maxDelaySeconds: 1 }, retryDelay: 1, retryBackoff: true, policy: 'stately', singletonKey: (p) => String(p.n) },
    handle: async () => {
      foreverRuns.push(Date.now());
      if (foreverRuns.length < FOREVER_SUCCEEDS_ON) throw new Error(`endpoint refused (run ${foreverRuns.length})`);
    },
  }),
  defineJob({
    name: 'test.forever-reserve',
    payload: N,
    options: { retryForever: { maxDelaySeconds: 1 }, retryDelay: 1, retryBackoff: true, expireInSeconds: 60 },
    handle: async () => {},
  }),
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

  it('sizes book.erase-backup’s retention from the operator’s retry delay, and never sets it a retry limit that ends', async () => {
    const [book] = await t.db.query<{ id: string }>(`SELECT gen_random_uuid()::text AS id`);
    const id = (await t.queue.send('book.erase-backup', { bookId: book.id }, { retryDelaySeconds: 30, startAfterSeconds: 3600 }))!;
    const [job] = await t.db.query<Row>(`SELECT state, retry_limit, output, keep_until, start_after FROM ${t.queue.schema}.job WHERE id = $1`, [id]);
    // Backoff 30 s … 32 min (six retries stay within the hour, a seventh is kept in reserve); then hourly rows continue it.
    expect(job.retry_limit).toBe(7);
    expect((Date.parse(job.keep_until) - Date.parse(job.start_after)) / 1000).toBeGreaterThan(14 * DAY + 30 * (2 + 4 + 8 + 16 + 32 + 64));
  });
});

describe('giving up', () => {
  it('a retryForever job out of retries continues as a new job at the capped delay, and is never listed as failed', async () => {
    const firstId = (await queue.send('test.forever', { n: 1 }))!;
    const next = await waitFor('a continuation job', async () => (await row(firstId))?.output?.next_job_id as string | undefined);
    await waitFor('the continuation to succeed', async () => (await row(next))?.state === 'completed');

    // Called off with its last error, pointing at the row that carried on.
    expect(await row(firstId)).toMatchObject({ state: 'cancelled', output: { continued: true, next_job_id: next, message: 'endpoint refused (run 1)' } });
    expect(foreverRuns).toHaveLength(FOREVER_SUCCEEDS_ON);
    // Every wait stays near the one-second cap: no backoff past it.
    const gaps = foreverRuns.slice(1).map((at, i) => at - foreverRuns[i]);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(900);
      expect(gap).toBeLessThan(4000);
    }
    expect(logged.filter((l) => l.msg === 'job failed; will retry as a new job')).toEqual([
      expect.objectContaining({ level: 40, job_id: firstId, next_job_id: next }),
    ]);
    expect(logged.some((l) => l.level >= 50 && l.job_id !== undefined && [firstId, next].includes(l.job_id))).toBe(false);
    expect(await failed({ name: 'test.forever' })).toEqual([]);
  });

  it('a retryForever row whose worker died during its continuing attempt still has a retry in reserve', async () => {
    const id = (await queue.send('test.forever-reserve', { n: 1 }, { startAfterSeconds: 3600 }))!;
    const { retry_limit } = await row(id);
    // As if a worker took the continuing attempt (the one before pg-boss's limit) and died: its lease ran out an hour ago.
    await t.db.query(
      `UPDATE ${queue.schema}.job SET state = 'active', retry_count = $2, started_on = now() - interval '1 hour', start_after = now() - interval '1 hour' WHERE id = $1`,
      [id, retry_limit - 1],
    );
    await queue.maintain();
    expect(await row(id)).toMatchObject({ state: 'retry', output: { value: { message: 'job failed by timeout in active state' } } });
    await waitFor('the reserve attempt to run and succeed', async () => (await row(id))?.state === 'completed');
  });

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
