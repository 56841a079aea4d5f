/**
 * Recurring work: each schedule of the catalog queues its job once per
 * period, across any number of worker processes.
 *
 * Why not pg-boss's own schedules (pg-boss 10, src/timekeeper.js): its cron
 * check reads the process clock (`Date.now()` plus the measured database
 * skew) on its own 30-second timer, sends only when the cron's last time is
 * within the past minute (a minute with no worker up is a period lost, never
 * caught up), and relies on a 60-second singleton window to deduplicate: none
 * of it can be driven by a clock a test controls, so "exactly once per day
 * across four processes" could not be shown. Here each worker ticks, computes
 * the current period of every schedule from an injectable clock, and claims
 * (schedule, period) with INSERT … ON CONFLICT DO NOTHING in the transaction
 * that sends the job: exactly one process queues each period, and a process
 * that dies before commit leaves the period to the next tick of any worker.
 * Only the current period is queued (a worker down for a day does not queue
 * the days it missed: each job works from the state at the time it runs).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { schedules as catalogSchedules, type JobPayloads, type JobSender, type Schedule } from './job-catalog.js';

/** Claims kept this long, then pruned (a claim only matters for its own period). */
const CLAIM_KEEP_SECONDS = 7 * 24 * 3600;
const DEFAULT_TICK_MS = 60_000;

export interface SchedulerDeps {
  db: Db;
  queue: JobSender<JobPayloads>;
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  schedules?: readonly Schedule[];
  /** The clock periods are computed from (tests pass a fake one); by default the database's, which every process shares. */
  now?: () => Date;
  /** How often the periods are checked (default 60 s). */
  tickMs?: number;
}

export interface ScheduledRun {
  schedule: string;
  /** The period's start (ISO 8601). */
  period: string;
}

/** The start of the period of `everySeconds` that `at` falls in, from the Unix epoch (UTC). */
export function periodStart(at: Date, everySeconds: number): Date {
  const ms = everySeconds * 1000;
  return new Date(Math.floor(at.getTime() / ms) * ms);
}

export function createScheduler(deps: SchedulerDeps) {
  const { db, queue, log } = deps;
  const schedules = deps.schedules ?? catalogSchedules;
  // The database's clock by default: a worker whose own clock runs ahead must not open a day early
  // (a digest of day D would then miss the memories of D's last seconds).
  const now = deps.now ? async () => deps.now!() : async () => (await db.query<{ now: string }>(`SELECT now() AS now`))[0].now;
  let timer: NodeJS.Timeout | undefined;
  let first: NodeJS.Timeout | undefined;
  let ticking: Promise<unknown> = Promise.resolve();
  let stopped = false;

  /** Queues every schedule's current period that no process has queued yet; returns what this call queued. */
  async function tick(): Promise<ScheduledRun[]> {
    const at = new Date(await now());
    const due = schedules.map((s) => ({ s, start: periodStart(at, s.everySeconds) }));
    // One read on most ticks: the periods not claimed yet (usually none).
    const open = new Set(
      (
        await db.query<{ schedule: string }>(
          `SELECT u.schedule FROM unnest($1::text[], $2::timestamptz[]) AS u(schedule, period_start)
           WHERE NOT EXISTS (SELECT 1 FROM job_schedule_runs r WHERE r.schedule = u.schedule AND r.period_start = u.period_start)`,
          [due.map((d) => d.s.name), due.map((d) => d.start.toISOString())],
        )
      ).map((r) => r.schedule),
    );
    const queued: ScheduledRun[] = [];
    for (const { s, start } of due) {
      if (!open.has(s.name)) continue;
      const period = start.toISOString();
      const claimed = await db.transaction(async (tx) => {
        const rows = await tx.query(
          `INSERT INTO job_schedule_runs (schedule, period_start) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING schedule`,
          [s.name, period],
        );
        if (!rows.length) return false; // another process got there first
        await queue.send(s.job, s.payload(start) as never, { tx });
        await tx.query(`DELETE FROM job_schedule_runs WHERE schedule = $1 AND period_start < $2::timestamptz - make_interval(secs => $3)`, [
          s.name,
          period,
          Math.max(CLAIM_KEEP_SECONDS, 2 * s.everySeconds),
        ]);
        return true;
      });
      if (claimed) queued.push({ schedule: s.name, period });
    }
    if (queued.length) log.info({ scheduled: queued }, 'scheduled jobs queued');
    return queued;
  }

  function guardedTick() {
    // Ticks never overlap in one process; a failed one is retried at the next.
    ticking = ticking.then(() => (stopped ? undefined : tick().catch((err) => log.warn({ err }, 'scheduling failed; will retry'))));
    return ticking;
  }

  return {
    tick,
    /** Ticks now (or after firstTickAfterMs) and then every tickMs. */
    start(options: { firstTickAfterMs?: number } = {}) {
      stopped = false;
      if (options.firstTickAfterMs) {
        first = setTimeout(guardedTick, options.firstTickAfterMs);
        first.unref();
      } else void guardedTick();
      timer = setInterval(guardedTick, deps.tickMs ?? DEFAULT_TICK_MS);
      timer.unref();
    },
    /** Stops ticking and waits for a tick in progress. */
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await ticking;
    },
  };
}
export type Scheduler = ReturnType<typeof createScheduler>;
