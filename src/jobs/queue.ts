/**
 * Durable background jobs on pg-boss, in the service's own database (PGlite or PostgreSQL).
 *
 * To add a job:
 *  1. Write src/jobs/<job>.ts: `export const fooJob = defineJob({ name: 'area.verb', payload: Type.Object(…), options, handle })`;
 *     the handler calls a service, is idempotent (it may run again after a crash) and stays thin.
 *  2. Add `'area.verb': Static<typeof FooPayload>` to JobPayloads below, and the job to the list in registry.ts.
 *  3. Enqueue in the transaction that makes the state change: `await queue.send('area.verb', payload, { tx })`
 *     (routes and services get the queue as `deps.queue`).
 *  A payload change that old queued jobs would not pass is a new name (`area.verb.v2`); keep the old handler until it drains.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { FastifyBaseLogger } from 'fastify';
import PgBoss from 'pg-boss';
import pino from 'pino';
import type { Config } from '../config/config.js';
import type { Db, Queryable } from '../db/client.js';
import { createBossDb, transactionBossDb } from './boss-db.js';

/** Job name → payload, for every job the service runs; `queue.send` is checked against it. */
export interface JobPayloads {
  'mail.send': Static<typeof import('./send-mail.js').SendMailPayload>;
  'book.erase-backup': Static<typeof import('./delete-book.js').BookIdPayload>;
  'book.purge': Static<typeof import('./delete-book.js').BookIdPayload>;
}

/** pg-boss queue policies: `stately` keeps at most one queued and one running job per singleton key. */
export type QueuePolicy = 'standard' | 'short' | 'singleton' | 'stately';

export interface JobOptions<P> {
  /** Retries after the first attempt (default 3). */
  retryLimit?: number;
  /** Seconds before the first retry (default 10). */
  retryDelay?: number;
  /** Double the delay on every retry, with jitter (default true). */
  retryBackoff?: boolean;
  /** The lease: a run longer than this is aborted and retried, also when its worker died (default 900). */
  expireInSeconds?: number;
  /** With a `singleton`/`stately`/`short` policy, jobs with the same key are deduplicated. */
  singletonKey?(payload: P): string;
  policy?: QueuePolicy;
  /** Handlers of this job running at once in one process (default 1). */
  concurrency?: number;
}

export interface JobContext {
  id: string;
  name: string;
  /** 1 on the first run, 2 on the first retry… */
  attempt: number;
  retryLimit: number;
  /** Aborted when the lease runs out or the worker stops; long handlers should pass it on. */
  signal: AbortSignal;
  db: Db;
  config: Config;
  log: FastifyBaseLogger;
  queue: Queue;
}

export interface JobDefinition<N extends string = string, S extends TSchema = TSchema> {
  name: N;
  payload: S;
  options?: JobOptions<Static<S>>;
  handle(payload: Static<S>, ctx: JobContext): Promise<void>;
}

export function defineJob<N extends string, S extends TSchema>(definition: JobDefinition<N, S>): JobDefinition<N, S> {
  return definition;
}

export interface SendOptions {
  /**
   * Enqueue inside this transaction: the job exists only if it commits. Always
   * pass it inside db.transaction: on PGlite a send outside would wait for
   * that very transaction to end.
   */
  tx?: Queryable;
  /** Run no earlier than this many seconds from now. */
  startAfterSeconds?: number;
  /** Overrides the job's own singletonKey(payload). */
  singletonKey?: string;
  /** Overrides the job's retryDelay (an operator setting, e.g. how often to retry an outside endpoint). */
  retryDelaySeconds?: number;
}

/** A job as stored, for status checks and tests. Timestamps are ISO strings. */
export interface JobRecord {
  id: string;
  name: string;
  data: unknown;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  retryCount: number;
  retryLimit: number;
  startAfter: string;
  startedOn: string | null;
  completedOn: string | null;
  output: unknown;
}

export interface Queue<M extends object = JobPayloads> {
  /** The Postgres schema pg-boss keeps its tables in. */
  readonly schema: string;
  /** Adds a job definition; allowed before or after start. */
  register(definition: JobDefinition): Promise<void>;
  /** Installs or upgrades pg-boss's schema, creates the queues and starts maintenance (expiry of dead leases, archiving). */
  start(): Promise<void>;
  /** Starts polling for jobs and running their handlers in this process. */
  work(): void;
  send<N extends keyof M & string>(name: N, payload: M[N], options?: SendOptions): Promise<string | null>;
  getJob(name: string, id: string): Promise<JobRecord | null>;
  /** Stops polling, waits up to timeoutMs for running handlers (then fails them so they are retried), stops maintenance. Leaves the Db open. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

export interface QueueDeps {
  db: Db;
  config: Config;
  log?: FastifyBaseLogger;
  jobs?: readonly JobDefinition[];
  /** Defaults to queueSchemaName(the configured DATABASE_SCHEMA). */
  schema?: string;
  /** How often an idle worker asks for work (default 2000). */
  pollIntervalMs?: number;
  /** How often expired leases are failed over and old jobs archived (default 60). */
  maintenanceIntervalSeconds?: number;
}

const DEFAULTS = { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 900 } as const;

/**
 * pg-boss's tables live beside ours: in `pgboss`, or with DATABASE_SCHEMA set
 * (one schema per tenant or per test) in `<schema>_pgboss`, so two schemas
 * never share jobs.
 */
export function queueSchemaName(databaseSchema: string | null | undefined): string {
  if (!databaseSchema) return 'pgboss';
  const name = `${databaseSchema}_pgboss`;
  if (name.length > 50) throw new Error(`DATABASE_SCHEMA "${databaseSchema}" is too long for the job queue schema (at most 43 characters)`);
  return name;
}

interface Registered {
  definition: JobDefinition;
  check: TypeCheck<TSchema>;
}

interface Running {
  name: string;
  id: string;
  abort: AbortController;
}

export function createQueue<M extends object = JobPayloads>(deps: QueueDeps): Queue<M> {
  const { db, config } = deps;
  const log = deps.log ?? pino({ level: config.logLevel, base: { component: 'jobs' } });
  const schema = deps.schema ?? queueSchemaName(config.database.kind === 'postgres' ? config.database.schema : null);
  const pollIntervalMs = deps.pollIntervalMs ?? 2000;
  const bossDb = createBossDb(db);
  const boss = new PgBoss({
    db: bossDb as PgBoss.Db,
    schema,
    migrate: true,
    supervise: true,
    schedule: false, // no cron jobs; housekeeping has its own timer
    maintenanceIntervalSeconds: deps.maintenanceIntervalSeconds ?? 60,
  });
  // Maintenance errors (a dropped connection) are emitted; unhandled they would crash the process.
  boss.on('error', (err) => log.warn({ err }, 'job queue maintenance failed; will retry'));

  const registered = new Map<string, Registered>();
  const running = new Set<Running>();
  const loops: Promise<void>[] = [];
  const wakers = new Map<string, Set<() => void>>();
  let state: 'new' | 'starting' | 'started' | 'stopping' | 'stopped' = 'new';
  let working = false;

  function add(definition: JobDefinition): Registered {
    if (registered.has(definition.name)) throw new Error(`job ${definition.name} is registered twice`);
    const entry = { definition, check: TypeCompiler.Compile(definition.payload) };
    registered.set(definition.name, entry);
    return entry;
  }
  for (const job of deps.jobs ?? []) add(job);

  async function ensureQueue(definition: JobDefinition) {
    const policy = definition.options?.policy ?? 'standard';
    const existing = await boss.getQueue(definition.name);
    if (!existing) await boss.createQueue(definition.name, { name: definition.name, policy });
    else if (existing.policy !== policy) await boss.updateQueue(definition.name, { name: definition.name, policy });
  }

  function checked(entry: Registered, payload: unknown, when: string) {
    if (entry.check.Check(payload)) return payload;
    const problems = [...entry.check.Errors(payload)].slice(0, 3).map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`job ${entry.definition.name}: payload ${when} does not match its schema (${problems.join('; ')})`);
  }

  function wake(name: string) {
    for (const w of wakers.get(name) ?? []) w();
  }

  function idle(name: string) {
    return new Promise<void>((resolve) => {
      const set = wakers.get(name) ?? new Set();
      wakers.set(name, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        resolve();
      };
      const timer = setTimeout(done, pollIntervalMs);
      set.add(done);
    });
  }

  function startLoops(entry: Registered) {
    for (let i = 0; i < (entry.definition.options?.concurrency ?? 1); i++) loops.push(loop(entry));
  }

  // Fetching is one autocommitted UPDATE … SKIP LOCKED; nothing holds a
  // transaction while a handler runs, so on PGlite's single connection API
  // queries keep flowing.
  async function loop(entry: Registered) {
    const { name } = entry.definition;
    while (state === 'started') {
      let job: PgBoss.JobWithMetadata | undefined;
      try {
        [job] = await boss.fetch(name, { includeMetadata: true });
      } catch (err) {
        log.warn({ err, job: name }, 'fetching jobs failed; will retry');
      }
      if (job) await run(entry, job);
      else if (state === 'started') await idle(name);
    }
  }

  async function run(entry: Registered, job: PgBoss.JobWithMetadata) {
    const { definition } = entry;
    const abort = new AbortController();
    const self: Running = { name: definition.name, id: job.id, abort };
    running.add(self);
    const expireMs = Number(job.expireInSeconds) * 1000;
    const lease = setTimeout(() => abort.abort(new Error(`job ran longer than its lease of ${job.expireInSeconds}s`)), expireMs);
    const attempt = job.retryCount + 1;
    const jobLog = log.child({ job: definition.name, job_id: job.id, attempt });
    let ok = false;
    let failure: unknown;
    try {
      const payload = checked(entry, job.data, 'as stored');
      const ctx: JobContext = {
        id: job.id,
        name: definition.name,
        attempt,
        retryLimit: job.retryLimit,
        signal: abort.signal,
        db,
        config,
        log: jobLog,
        queue: queue as unknown as Queue,
      };
      const handled = definition.handle(payload, ctx);
      // An abandoned handler may still reject later; that must not become an unhandled rejection.
      handled.catch(() => {});
      await Promise.race([handled, aborted(abort.signal)]);
      ok = true;
    } catch (err) {
      failure = err;
    } finally {
      clearTimeout(lease);
      running.delete(self);
    }
    try {
      if (ok) {
        await boss.complete(definition.name, job.id);
        jobLog.debug('job completed');
      } else {
        await boss.fail(definition.name, job.id, errorOutput(failure));
        const final = attempt > job.retryLimit;
        jobLog[final ? 'error' : 'warn']({ err: failure, retry_limit: job.retryLimit }, final ? 'job failed for good' : 'job failed; will retry');
      }
    } catch (err) {
      // The job stays active until its lease expires; maintenance then retries it.
      jobLog.error({ err }, 'could not record the job outcome; it will run again after its lease');
    }
  }

  const queue: Queue<M> = {
    schema,
    async register(definition) {
      const entry = add(definition);
      if (state === 'started') {
        await ensureQueue(definition);
        if (working) startLoops(entry);
      }
    },
    async start() {
      if (state !== 'new') throw new Error(`the job queue cannot start: it is ${state}`);
      state = 'starting';
      try {
        await boss.start();
        for (const { definition } of registered.values()) await ensureQueue(definition);
      } catch (err) {
        state = 'stopped';
        await boss.stop({ graceful: false, close: false }).catch(() => {});
        throw err;
      }
      state = 'started';
    },
    work() {
      if (state !== 'started') throw new Error('start the job queue before working');
      if (working) return;
      working = true;
      for (const entry of registered.values()) startLoops(entry);
    },
    async send(name, payload, options = {}) {
      const entry = registered.get(name);
      if (!entry) throw new Error(`no job named ${name} is registered`);
      // While stopping, handlers that are finishing may still enqueue follow-up jobs.
      if (state !== 'started' && state !== 'stopping') throw new Error(`the job queue is not running (${state}); cannot send ${name}`);
      checked(entry, payload, 'sent');
      const o = entry.definition.options ?? {};
      const id = await boss.send(name, payload as object, {
        retryLimit: o.retryLimit ?? DEFAULTS.retryLimit,
        retryDelay: options.retryDelaySeconds ?? o.retryDelay ?? DEFAULTS.retryDelay,
        retryBackoff: o.retryBackoff ?? DEFAULTS.retryBackoff,
        expireInSeconds: o.expireInSeconds ?? DEFAULTS.expireInSeconds,
        singletonKey: options.singletonKey ?? o.singletonKey?.(payload),
        startAfter: options.startAfterSeconds,
        db: options.tx ? (transactionBossDb(options.tx) as PgBoss.Db) : undefined,
      });
      // A local worker looks now instead of at its next poll (inside a
      // transaction it may not see the job yet; the poll catches it then).
      if (!options.startAfterSeconds) wake(name);
      return id;
    },
    async getJob(name, id) {
      const job = await boss.getJobById(name, id, { includeArchive: true });
      return job ? (job as unknown as JobRecord) : null;
    },
    async stop({ timeoutMs = 30_000 } = {}) {
      if (state === 'stopped' || state === 'stopping') return;
      const wasStarted = state === 'started';
      state = 'stopping';
      for (const set of wakers.values()) for (const w of [...set]) w();
      if (running.size) {
        log.info({ running: running.size }, 'waiting for running jobs to finish');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(loops), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
        clearTimeout(timer);
        // Still running: fail them now so another worker retries them without waiting for the lease.
        for (const r of running) r.abort.abort(new Error('the worker stopped while the job was running'));
      }
      await Promise.all(loops);
      if (wasStarted) await boss.stop({ graceful: false, close: false });
      await bossDb.drain();
      state = 'stopped';
    },
  };
  return queue;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function errorOutput(err: unknown): object {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { message: String(err) };
}
