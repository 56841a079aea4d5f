import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresDb, type Db } from '../../src/db/client.js';
import { createQueue, defineJob, type JobDefinition, type QueuePolicy } from '../../src/jobs/queue.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { dropQueueSchema } from './helpers.js';
import { TEST_DATABASE_POOLER } from '../helpers/test-db.js';

const N = Type.Object({ n: Type.Integer() });
const job = (name: string, policy?: QueuePolicy): JobDefinition => defineJob({ name, payload: N, options: policy ? { policy } : {}, handle: async () => {} });
const log = pino({ level: 'silent' });

let t: TestApp;
let schema: string;
beforeAll(async () => {
  t = await buildTestApp();
  // A queue schema of this test's own, beside the app's.
  schema = `${t.database.schema ?? 'pglite'}_qstart`;
});
afterAll(async () => {
  await dropQueueSchema(t.db, schema);
  await t.close();
});

/** The statements a queue start sends, through a Db that records them. */
function recording(db: Db) {
  const statements: string[] = [];
  const record = <F extends (...args: any[]) => any>(fn: F) => ((...args: Parameters<F>) => (statements.push(String(args[0])), fn(...args))) as F;
  const watched: Db = { ...db, query: record(db.query), exec: record(db.exec) };
  return { db: watched, statements };
}

const queuesIn = async () =>
  Object.fromEntries((await t.db.query<{ name: string; policy: string }>(`SELECT name, policy FROM ${schema}.queue ORDER BY name`)).map((q) => [q.name, q.policy]));

it('creates the missing queues once when two processes start together, and later starts create none', async () => {
  const jobs = [job('test.a'), job('test.b', 'stately'), job('test.c', 'singleton')];
  // Another process: its own pool on PostgreSQL; PGlite is one connection, which runs the two in turn.
  const otherDb = t.database.url ? createPostgresDb(t.database.url, { schema: t.database.schema, poolSize: 3, pooler: TEST_DATABASE_POOLER }) : t.db;
  const first = createQueue({ db: t.db, config: t.config, log, schema, jobs });
  const second = createQueue({ db: otherDb, config: t.config, log, schema, jobs });
  try {
    await Promise.all([first.start(), second.start()]);
    expect(await queuesIn()).toEqual({ 'test.a': 'standard', 'test.b': 'stately', 'test.c': 'singleton' });
  } finally {
    await first.stop();
    await second.stop();
    if (otherDb !== t.db) await otherDb.close();
  }

  // Everything in place: the start reads the queues once and creates nothing.
  const quiet = recording(t.db);
  const again = createQueue({ db: quiet.db, config: t.config, log, schema, jobs });
  await again.start();
  await again.stop();
  expect(quiet.statements.filter((s) => /create_queue|updateQueue|UPDATE .*\.queue/i.test(s))).toEqual([]);
  expect(quiet.statements.filter((s) => /FROM .*\.queue\b/i.test(s))).toHaveLength(1);

  // A new job gets its queue; a job whose policy changed gets it updated.
  const changed = createQueue({ db: t.db, config: t.config, log, schema, jobs: [job('test.a', 'short'), jobs[1], jobs[2], job('test.d')] });
  await changed.start();
  await changed.stop();
  expect(await queuesIn()).toEqual({ 'test.a': 'short', 'test.b': 'stately', 'test.c': 'singleton', 'test.d': 'standard' });
});

it('sends to a queue it created in the same start, and checks payloads when they are sent', async () => {
  const queue = createQueue<{ 'test.e': { n: number } }>({ db: t.db, config: t.config, log, schema, jobs: [job('test.e')] });
  await queue.start();
  try {
    const id = await queue.send('test.e', { n: 1 });
    expect((await queue.getJob('test.e', id!))?.state).toBe('created');
    await expect(queue.send('test.e', { n: 1.5 })).rejects.toThrow(/test\.e: payload sent does not match its schema/);
  } finally {
    await queue.stop();
  }
});
