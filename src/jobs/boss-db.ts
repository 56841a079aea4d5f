import type { Db, Queryable } from '../db/client.js';

/** What pg-boss calls to reach the database (its `db` option). */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * pg-boss 10 sends its schema, migration and maintenance scripts as one
 * string of several statements between `BEGIN;` and `COMMIT;` (plans.locked()
 * in its plans.js), and everything else as a single statement.
 */
const WRAPPED_SCRIPT = /^\s*BEGIN\s*;([\s\S]*?)\bCOMMIT\s*;?\s*$/i;

/**
 * pg-boss over our Db instead of its own pg Pool, so the queue runs on PGlite
 * (one in-process connection) as well as PostgreSQL and shares our type
 * parsers. A wrapped script loses its BEGIN and COMMIT and runs whole over
 * the simple protocol (the server splits it) inside our own transaction: one
 * connection, rolled back on error, so nothing is left half-done and no
 * connection goes back to the pool inside an aborted transaction.
 *
 * Calls in flight are counted so that stopping the queue can wait for them
 * before the database is closed.
 */
export function createBossDb(db: Db): BossDb & { drain(): Promise<void> } {
  let inFlight = 0;
  let idle: (() => void)[] = [];

  async function run(text: string, values?: unknown[]) {
    if (values && values.length) return { rows: await db.query(text, values) };
    const script = WRAPPED_SCRIPT.exec(text);
    if (script) {
      await db.transaction((tx) => tx.exec(script[1]));
      return { rows: [] };
    }
    if (/^\s*BEGIN\b/i.test(text)) throw new Error('pg-boss sent a transaction script that does not end in COMMIT; refusing to run part of it');
    return { rows: await db.query(text) };
  }

  return {
    async executeSql(text, values) {
      inFlight++;
      try {
        return await run(text, values);
      } finally {
        if (--inFlight === 0) {
          for (const resolve of idle) resolve();
          idle = [];
        }
      }
    },
    drain() {
      return inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}

/** pg-boss on a caller's transaction: a job sent through it commits or rolls back with that transaction. */
export function transactionBossDb(tx: Queryable): BossDb {
  return {
    async executeSql(text, values) {
      return { rows: await tx.query(text, values) };
    },
  };
}

/**
 * The pg-boss version whose tables the statements below were written
 * against. test/jobs/boss-db.test.ts fails when node_modules holds another
 * one, or when the installed tables lack a column these statements use
 * (BOSS_COLUMNS): read pg-boss's changelog and its plans.js, then move both.
 */
export const PG_BOSS_VERSION = '10.4.2';

/** The tables and columns of pg-boss's schema the statements below read or write. */
export const BOSS_COLUMNS = {
  job: ['id', 'name', 'data', 'output', 'state', 'retry_count', 'started_on', 'expire_in', 'start_after', 'singleton_key', 'completed_on'],
  archive: ['id', 'name', 'data', 'output', 'state', 'retry_count', 'completed_on'],
  queue: ['name'],
} as const;

/**
 * The job states in the order of pg-boss's `job_state` enum: the statements
 * below compare them (`state < 'active'` is created or retry; `state <
 * 'completed'` is not finished yet), so the test checks the order too.
 */
export const BOSS_JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;

/** A job given up for good, as its row reads (see listFailedJobs). */
export interface FailedJobRow {
  id: string;
  name: string;
  data: unknown;
  output: unknown;
  retry_count: number;
  completed_on: string;
  archived: boolean;
}

/**
 * Every statement of ours on pg-boss's private tables, in one place: what
 * its API does not offer (a lease renewed by a heartbeat, a run released
 * uncounted on shutdown, the queue depths for the metrics, the failed jobs
 * for the operator). Everything else goes through pg-boss itself.
 */
export function bossTables(schema: string) {
  return {
    /** Extends an active run's lease to `seconds` past now; false when the run is no longer this worker's (taken over, or finished). */
    async renewLease(q: Queryable, job: { name: string; id: string; retryCount: number }, seconds: number): Promise<boolean> {
      const held = await q.query(
        `UPDATE ${schema}.job SET expire_in = (now() - started_on) + make_interval(secs => $3)
         WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $4 RETURNING 1`,
        [job.name, job.id, seconds, job.retryCount],
      );
      return held.length > 0;
    },

    /** Puts an active run back to run again now, its attempt not counted; false when the run is no longer this worker's. */
    async releaseUncounted(q: Queryable, job: { name: string; id: string; retryCount: number }, output: unknown): Promise<boolean> {
      const released = await q.query(
        `UPDATE ${schema}.job SET state = 'retry', start_after = now(), output = $3::jsonb,
           started_on = CASE WHEN retry_count = 0 THEN NULL ELSE started_on END, retry_count = GREATEST(retry_count - 1, 0)
         WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $4 RETURNING 1`,
        [job.name, job.id, JSON.stringify(output), job.retryCount],
      );
      return released.length > 0;
    },

    /** Active runs of these jobs whose lease has lapsed. */
    lapsedRuns(q: Queryable, names: string[]): Promise<{ id: string; name: string }[]> {
      return q.query<{ id: string; name: string }>(
        `SELECT id, name FROM ${schema}.job WHERE name = ANY($1::text[]) AND state = 'active' AND started_on + expire_in < now()`,
        [names],
      );
    },

    /** A retry waiting for its backoff starts now instead. */
    async retryNow(q: Queryable, job: { name: string; id: string }): Promise<void> {
      await q.query(`UPDATE ${schema}.job SET start_after = now() WHERE name = $1 AND id = $2 AND state = 'retry'`, [job.name, job.id]);
    },

    /** Whether a job of this name and singleton key is waiting or running. */
    async hasUnfinished(q: Queryable, name: string, singletonKey: string): Promise<boolean> {
      const pending = await q.query(`SELECT 1 FROM ${schema}.job WHERE name = $1 AND singleton_key = $2 AND state < 'completed' LIMIT 1`, [name, singletonKey]);
      return pending.length > 0;
    },

    /** Per queue: jobs waiting (created or retry), and the age of the oldest due one. */
    depths(q: Queryable): Promise<{ queue: string; waiting: number; age: number | null }[]> {
      return q.query<{ queue: string; waiting: number; age: number | null }>(
        `SELECT q.name AS queue, COALESCE(j.waiting, 0)::int AS waiting, j.age
         FROM ${schema}.queue q LEFT JOIN (
           SELECT name, count(*) AS waiting, extract(epoch FROM now() - min(start_after) FILTER (WHERE start_after <= now()))::float8 AS age
           FROM ${schema}.job WHERE state < 'active' GROUP BY name) j ON j.name = q.name`,
      );
    },

    /** Whether pg-boss's tables exist in this database (the queue was installed). */
    async installed(q: Queryable): Promise<boolean> {
      const [row] = await q.query<{ table: string | null }>(`SELECT to_regclass($1)::text AS table`, [`${schema}.archive`]);
      return Boolean(row?.table);
    },

    /** Jobs given up for good, from the job and archive tables, newest first. */
    failedJobs(q: Queryable, options: { name: string | null; limit: number }): Promise<FailedJobRow[]> {
      const givenUp = (table: 'job' | 'archive', archived: boolean) => `
        SELECT id::text, name, data, output, retry_count, completed_on, ${archived} AS archived
        FROM ${schema}.${table}
        WHERE state = 'failed' AND ($1::text IS NULL OR name = $1)`;
      return q.query<FailedJobRow>(`${givenUp('job', false)} UNION ALL ${givenUp('archive', true)} ORDER BY completed_on DESC, id LIMIT $2`, [
        options.name,
        options.limit,
      ]);
    },
  };
}
