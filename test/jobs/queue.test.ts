import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue, defineJob, queueSchemaName, type JobContext, type Queue } from '../../src/jobs/queue.js';
import type { Queryable } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { newUser } from '../helpers/factories.js';
import { dropQueueSchema, waitFor } from './helpers.js';

/** Test-only jobs: the queue is generic over its job map, the service's own map stays in src/jobs/queue.ts. */
type TestJobs = {
  'test.tx': { n: number };
  'test.once': { n: number };
  'test.flaky': { n: number };
  'test.lease': { n: number };
  'test.slow': { n: number };
  'test.checked': { n: number };
};
const N = Type.Object({ n: Type.Integer() });
const POLL_MS = 100;

let t: TestApp;
let queue: Queue<TestJobs>;
/** Warnings and errors the queue logged. */
const logged: { msg: string; err?: { message: string } }[] = [];
const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });

beforeAll(async () => {
  t = await buildTestApp();
  queue = createQueue<TestJobs>({ db: t.db, config: t.config, log, schema: queueSchemaName(t.database.schema), pollIntervalMs: POLL_MS, maintenanceIntervalSeconds: 1 });
  await queue.start();
  queue.work();
});

afterAll(async () => {
  await queue.stop({ timeoutMs: 2000 });
  await dropQueueSchema(t.db, queue.schema);
  await t.close();
});

const state = async (name: keyof TestJobs, id: string) => (await queue.getJob(name, id))?.state;

/**
 * Sends one more job of this name and waits for it to complete. One loop per
 * name takes jobs oldest first, so by then the worker has had its chance to
 * run an earlier job again: what a fixed sleep would only hope for.
 */
async function workerCameRound<N extends keyof TestJobs>(name: N, payload: TestJobs[N]): Promise<string> {
  const id = (await queue.send(name, payload))!;
  await waitFor(`the ${name} job sent after it to complete`, async () => (await state(name, id)) === 'completed');
  return id;
}

describe('enqueueing', () => {
  it('a job sent inside a transaction exists only if that transaction commits', async () => {
    const seen: number[] = [];
    await queue.register(defineJob({ name: 'test.tx', payload: N, handle: async (p) => void seen.push(p.n) }));

    let rolledBackId: string | null = null;
    await expect(
      t.db.transaction(async (tx) => {
        rolledBackId = await queue.send('test.tx', { n: 1 }, { tx });
        // Visible to the transaction that made it…
        expect((await tx.query(`SELECT state FROM ${queue.schema}.job WHERE id = $1`, [rolledBackId]))).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(rolledBackId).toMatch(/^[0-9a-f-]{36}$/);
    // …and gone with it.
    expect(await queue.getJob('test.tx', rolledBackId!)).toBeNull();

    const committedId = await t.db.transaction((tx) => queue.send('test.tx', { n: 2 }, { tx }));
    await waitFor('the committed job to complete', async () => (await state('test.tx', committedId!)) === 'completed');
    await workerCameRound('test.tx', { n: 3 });
    expect(seen).toEqual([2, 3]);
  });

  it('takes only a transaction as tx: the bare database or a Queryable does not compile', () => {
    // Checked by the compiler (npm run typecheck), never run: a send's tx is the Tx of the change.
    const refused = (q: Queryable) => [
      // @ts-expect-error the Db is not a transaction's handle
      queue.send('test.tx', { n: 1 }, { tx: t.db }),
      // @ts-expect-error nor is a Queryable
      queue.send('test.tx', { n: 1 }, { tx: q }),
    ];
    expect(refused).toBeTypeOf('function');
  });

  it('refuses a payload that does not match the job schema, and an unknown job', async () => {
    await queue.register(defineJob({ name: 'test.checked', payload: N, handle: async () => {} }));
    await expect(queue.send('test.checked', { n: 1.5 })).rejects.toThrow(/test\.checked: payload sent does not match its schema \(\/n: /);
    await expect(queue.send('test.nope' as 'test.tx', { n: 1 })).rejects.toThrow('no job named test.nope is registered');
  });
});

describe('running', () => {
  it('runs a successful job exactly once and marks it completed', async () => {
    const runs: JobContext[] = [];
    await queue.register(defineJob({ name: 'test.once', payload: N, handle: async (_p, ctx) => void runs.push(ctx) }));
    const id = (await queue.send('test.once', { n: 7 }))!;
    const job = await waitFor('completion', async () => {
      const j = await queue.getJob('test.once', id);
      return j?.state === 'completed' && j;
    });
    const next = await workerCameRound('test.once', { n: 8 });
    expect(runs.map((r) => r.id)).toEqual([id, next]);
    expect(runs[0]).toMatchObject({ id, name: 'test.once', attempt: 1, retryLimit: 3 });
    expect(job).toMatchObject({ retryCount: 0, data: { n: 7 } });
  });

  it('retries a failing handler with growing delays, then marks it failed after retryLimit', async () => {
    const attempts: { attempt: number; at: number }[] = [];
    await queue.register(
      defineJob({
        name: 'test.flaky',
        payload: N,
        options: { retryLimit: 2, retryDelay: 1, retryBackoff: true },
        handle: async (p, ctx) => {
          if (p.n === 0) return; // workerCameRound's job
          attempts.push({ attempt: ctx.attempt, at: Date.now() });
          throw new Error(`boom ${ctx.attempt}`);
        },
      }),
    );
    const id = (await queue.send('test.flaky', { n: 1 }))!;
    const job = await waitFor('the job to fail for good', async () => {
      const j = await queue.getJob('test.flaky', id);
      return j?.state === 'failed' && j;
    });
    await workerCameRound('test.flaky', { n: 0 });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // pg-boss backoff: delay·2^n/2 plus up to as much jitter → 1–2 s, then 2–4 s.
    const first = attempts[1].at - attempts[0].at;
    const second = attempts[2].at - attempts[1].at;
    expect(first).toBeGreaterThanOrEqual(900);
    expect(second).toBeGreaterThanOrEqual(1900);
    expect(job).toMatchObject({ retryCount: 2, retryLimit: 2, output: { message: 'boom 3' } });
  });

  it('aborts a handler that outlives its lease and retries the job', async () => {
    const signals: AbortSignal[] = [];
    await queue.register(
      defineJob({
        name: 'test.lease',
        payload: N,
        options: { expireInSeconds: 1, retryLimit: 1, retryDelay: 0, retryBackoff: false },
        handle: async (_p, ctx) => {
          signals.push(ctx.signal);
          if (ctx.attempt === 1) await new Promise(() => {}); // hangs, ignoring its signal
        },
      }),
    );
    const id = (await queue.send('test.lease', { n: 1 }))!;
    await waitFor('the retried job to complete', async () => (await state('test.lease', id)) === 'completed');
    expect(signals).toHaveLength(2);
    expect(signals[0].aborted).toBe(true);
    expect(String(signals[0].reason)).toContain('longer than its lease of 1s');
    expect(signals[1].aborted).toBe(false);
  });

  it('answers API requests and queries while a handler is running', async () => {
    const u = await newUser(t);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    await queue.register(
      defineJob({
        name: 'test.slow',
        payload: N,
        handle: async (_p, ctx) => {
          started();
          await gate;
          // The handler's own queries work too.
          await ctx.db.query('SELECT 1');
        },
      }),
    );
    const id = (await queue.send('test.slow', { n: 1 }))!;
    await running;
    expect(await state('test.slow', id)).toBe('active');

    // The handler waits for `release`, which comes only after these: had the
    // worker held PGlite's one connection, they would never be answered.
    const me = await t.get('/api/v1/me/', { token: u.token });
    const [{ one }] = await t.db.query<{ one: number }>('SELECT 1 AS one');
    expect(me.status).toBe(200);
    expect(one).toBe(1);
    expect(await state('test.slow', id)).toBe('active');

    release();
    await waitFor('the slow job to complete', async () => (await state('test.slow', id)) === 'completed');
  });
});

describe('maintenance', () => {
  it('has run on this backend (lease expiry, archiving) without logging a problem', async () => {
    const [version] = await t.db.query<{ maintained_on: string | null }>(`SELECT maintained_on FROM ${queue.schema}.version`);
    expect(version.maintained_on).not.toBeNull();
    // The only complaints are the failing test job's own (which shows the log is captured).
    expect(logged.some((l) => l.msg === 'job failed for good' && l.err?.message === 'boom 3')).toBe(true);
    expect(logged.filter((l) => !/^job failed/.test(l.msg))).toEqual([]);
  });
});
