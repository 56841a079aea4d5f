import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue, defineJob, queueSchemaName, type JobContext } from '../../src/jobs/queue.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { eventually } from '../helpers/eventually.js';
import { dropQueueSchema } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await dropQueueSchema(t.db, queueSchemaName(t.database.schema));
  await t.close();
});

/** A queue working one job whose handler signals when it starts, then runs `body`. */
async function queueWith(name: string, body: (ctx: JobContext) => Promise<void>, o: { retryLimit?: number; attempt?: number } = {}) {
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const job = defineJob({
    name,
    payload: Type.Object({}),
    options: { retryLimit: o.retryLimit ?? 3, retryDelay: 60 },
    handle: async (_p, ctx) => {
      started();
      await body(ctx);
    },
  });
  const queue = createQueue<Record<string, object>>({ db: t.db, config: t.config, schema: queueSchemaName(t.database.schema), jobs: [job], pollIntervalMs: 100 });
  await queue.start();
  const id = (await queue.send(name, {}))!;
  // A job on a later attempt: its earlier runs were counted (as pg-boss's fetch counts a run that started before).
  if (o.attempt && o.attempt > 1) {
    await t.db.query(`UPDATE ${queue.schema}.job SET retry_count = $2 - 2, started_on = now(), state = 'retry' WHERE id = $1 AND state = 'created'`, [id, o.attempt]);
  }
  queue.work();
  await running;
  const row = async () =>
    (await t.db.query<{ state: string; retry_count: number; output: any }>(`SELECT state, retry_count, output FROM ${queue.schema}.job WHERE id = $1`, [id]))[0];
  return { queue, row, id, job };
}

describe('stopping the queue', () => {
  it('lets a running job finish and records it completed', async () => {
    let finished = false;
    const { queue, row } = await queueWith('test.stop-finish', async () => {
      await new Promise((r) => setTimeout(r, 400));
      finished = true;
    });
    await queue.stop({ timeoutMs: 10_000 });
    expect(finished).toBe(true);
    expect(await row()).toMatchObject({ state: 'completed' });
  });

  it('gives a job still running at the timeout back to the queue, uncounted, so another worker runs it at once', async () => {
    let signal!: AbortSignal;
    const { queue, row } = await queueWith('test.stop-timeout', async (ctx) => {
      signal = ctx.signal;
      await new Promise(() => {});
    });
    const began = Date.now();
    await queue.stop({ timeoutMs: 300 });
    expect(Date.now() - began).toBeLessThan(5000);
    expect(signal.aborted).toBe(true);
    expect(await row()).toMatchObject({ state: 'retry', retry_count: 0, output: { message: 'the worker stopped while the job was running' } });
  });

  it('runs a job cut off on its last attempt again on another worker, where it completes', async () => {
    let attempt = 0;
    const { queue, row, job } = await queueWith(
      'test.stop-last',
      async (ctx) => {
        attempt = ctx.attempt;
        await new Promise(() => {});
      },
      { retryLimit: 1, attempt: 2 },
    );
    expect(attempt).toBe(2);
    await queue.stop({ timeoutMs: 300 });
    // One run counted (the next fetch counts the one it starts): the cut-off run is not among them.
    expect(await row()).toMatchObject({ state: 'retry', retry_count: 0, output: { message: 'the worker stopped while the job was running' } });
    // Another worker: the same (last) attempt, and it finishes.
    let again = 0;
    const other = createQueue<Record<string, object>>({
      db: t.db,
      config: t.config,
      schema: queue.schema,
      jobs: [{ ...job, handle: async (_p: object, ctx: JobContext) => void (again = ctx.attempt) }],
      pollIntervalMs: 100,
    });
    await other.start();
    other.work();
    try {
      await eventually(row, (r) => r.state === 'completed', 10_000);
      expect(again).toBe(2);
    } finally {
      await other.stop({ timeoutMs: 1_000 });
    }
  });
});
