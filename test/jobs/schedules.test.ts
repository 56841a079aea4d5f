import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { schedules } from '../../src/jobs/job-catalog.js';
import { createScheduler, periodStart } from '../../src/jobs/scheduler.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { startWorker, type RunningWorker } from '../../src/worker.js';
import { buildTestApp, testConfig, type TestApp } from '../helpers/build-test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';
import { sleep, waitFor } from './helpers.js';

const DAILY = schedules.filter((s) => s.everySeconds === 24 * 3600).map((s) => s.job);
const log = pino({ level: 'silent' });

/** Every job of these names pg-boss holds (queued, done or archived), with its payload. */
async function jobRows(db: Db, queueSchema: string, names: readonly string[]) {
  return db.query<{ name: string; data: Record<string, string>; state: string }>(
    `SELECT name, data, state FROM ${queueSchema}.job WHERE name = ANY($1)
     UNION ALL SELECT name, data, state FROM ${queueSchema}.archive WHERE name = ANY($1)`,
    [names],
  );
}

/** How many jobs of each name were queued for each day: {'mail.digests': {'2031-05-06': 1, …}, …}. */
function perDay(rows: { name: string; data: Record<string, string> }[]) {
  const counts: Record<string, Record<string, number>> = {};
  for (const r of rows) (counts[r.name] ??= {})[r.data.day] = ((counts[r.name] ??= {})[r.data.day] ?? 0) + 1;
  return counts;
}

describe('schedules (one database, two schedulers, a fake clock)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });

  it('queue each period once, whichever scheduler ticks first, and only the current period', async () => {
    let now = new Date('2031-05-06T23:58:00Z');
    const make = () => createScheduler({ db: t.db, queue: t.queue, log, now: () => now });
    const [a, b] = [make(), make()];

    const first = (await Promise.all([a.tick(), b.tick(), a.tick()])).flat();
    expect(first.map((r) => r.schedule).sort()).toEqual(schedules.map((s) => s.name).sort());
    // The same period again: nothing.
    expect([...(await a.tick()), ...(await b.tick())]).toEqual([]);

    // Four minutes on: a new day and a new 10-minute period, the hour too.
    now = new Date('2031-05-07T00:02:00Z');
    const second = (await Promise.all([b.tick(), a.tick()])).flat();
    expect(second.map((r) => r.schedule).sort()).toEqual(schedules.map((s) => s.name).sort());
    expect(second.find((r) => r.schedule === 'mail.digests')?.period).toBe('2031-05-07T00:00:00.000Z');

    // Days later (no worker ran meanwhile): the current period only, not the ones missed.
    now = new Date('2031-05-10T12:34:00Z');
    await Promise.all([a.tick(), b.tick()]);
    const counts = perDay(await jobRows(t.db, t.queue.schema, DAILY));
    for (const job of DAILY) expect(counts[job]).toEqual({ '2031-05-06': 1, '2031-05-07': 1, '2031-05-10': 1 });
    const housekeeping = await jobRows(t.db, t.queue.schema, ['housekeeping.run']);
    expect(housekeeping.map((r) => r.data.period).sort()).toEqual(['2031-05-06T23:50:00.000Z', '2031-05-07T00:00:00.000Z', '2031-05-10T12:30:00.000Z']);
  });

  it('computes periods from the Unix epoch in UTC', () => {
    expect(periodStart(new Date('2031-05-06T23:59:59.999Z'), 24 * 3600).toISOString()).toBe('2031-05-06T00:00:00.000Z');
    expect(periodStart(new Date('2031-05-06T10:29:59Z'), 600).toISOString()).toBe('2031-05-06T10:20:00.000Z');
  });
});

/**
 * The real process entries on PostgreSQL: two `memorybook worker`s and two
 * `serve --no-worker`s (each with its own pool, as four processes would
 * have), all on one fake clock advanced across several days. They need
 * separate connections, which PGlite (one process, one connection) cannot
 * give: the test above covers the claim there.
 */
describe.skipIf(!TEST_DATABASE_URL)('two workers and two `serve --no-worker` processes', () => {
  let database: TestDatabase;
  const workers: RunningWorker[] = [];
  const servers: RunningServer[] = [];
  let now = new Date('2031-05-06T10:00:00Z');
  const clock = () => now;
  let queueSchema: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    queueSchema = `${database.schema}_pgboss`;
  });
  afterAll(async () => {
    for (const w of workers) await w.close({ timeoutMs: 5000 });
    for (const s of servers) await s.close();
    await database.drop();
  });

  const config = () =>
    testConfig({ DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: database.schema!, DATABASE_POOL_SIZE: '3', PORT: '0', HOST: '127.0.0.1' });
  const claims = async () => (await database.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM job_schedule_runs`))[0].n;

  it('run each daily job exactly once per day; the API-only processes queue none', async () => {
    // 1. Only API processes: a day and more goes by, and nothing is scheduled.
    for (let i = 0; i < 2; i++) servers.push(await startServer(config(), { worker: false, jobs: { now: clock, scheduleTickMs: 20 } }));
    for (const at of ['2031-05-06T10:00:00Z', '2031-05-07T00:01:00Z']) {
      now = new Date(at);
      await sleep(300);
    }
    expect(await claims()).toBe(0);
    expect(await jobRows(database.db, queueSchema, schedules.map((s) => s.job))).toEqual([]);

    // 2. Two workers join, ticking every 20 ms on the same clock.
    for (let i = 0; i < 2; i++) {
      workers.push(await startWorker(config(), { log, now: clock, scheduleTickMs: 20, pollIntervalMs: 100, maintenanceIntervalSeconds: 3600 }));
    }
    const days = ['2031-05-07', '2031-05-08', '2031-05-09', '2031-05-10'];
    for (const day of days) {
      // Several moments of the day, each a new 10-minute period; the workers tick many times in each.
      for (const time of ['00:00:30', '00:10:30', '09:30:00', '23:59:00']) {
        now = new Date(`${day}T${time}Z`);
        const period = periodStart(now, 600).toISOString();
        await waitFor(`housekeeping of ${period} to be queued`, async () =>
          (await jobRows(database.db, queueSchema, ['housekeeping.run'])).some((r) => r.data.period === period),
        );
        await sleep(60); // a few more ticks of both workers in the same period
      }
      await waitFor(`the daily jobs of ${day} to complete`, async () => {
        const rows = (await jobRows(database.db, queueSchema, DAILY)).filter((r) => r.data.day === day);
        return rows.length === DAILY.length && rows.every((r) => r.state === 'completed');
      });
    }

    const rows = await jobRows(database.db, queueSchema, DAILY);
    const once = Object.fromEntries(days.map((d) => [d, 1]));
    for (const job of DAILY) expect(perDay(rows)[job]).toEqual(once);
    expect(rows.every((r) => r.state === 'completed')).toBe(true);
    // Housekeeping: once per 10-minute period the workers saw (four a day).
    const housekeeping = await jobRows(database.db, queueSchema, ['housekeeping.run']);
    const periods = housekeeping.map((r) => r.data.period);
    expect(new Set(periods).size).toBe(periods.length);
    expect(periods).toHaveLength(days.length * 4);
  });
});
