import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue, defineJob, queueSchemaName, type JobContext } from '../../src/jobs/queue.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
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
async function queueWith(name: string, body: (ctx: JobContext) => Promise<void>) {
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const job = defineJob({
    name,
    payload: Type.Object({}),
    handle: async (_p, ctx) => {
      started();
      await body(ctx);
    },
  });
  const queue = createQueue<Record<string, object>>({ db: t.db, config: t.config, schema: queueSchemaName(t.database.schema), jobs: [job], pollIntervalMs: 100 });
  await queue.start();
  queue.work();
  const id = (await queue.send(name, {}))!;
  await running;
  const row = async () =>
    (await t.db.query<{ state: string; retry_count: number; output: any }>(`SELECT state, retry_count, output FROM ${queue.schema}.job WHERE id = $1`, [id]))[0];
  return { queue, row };
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

  it('fails a job still running at the timeout so another worker retries it at once', async () => {
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
});
