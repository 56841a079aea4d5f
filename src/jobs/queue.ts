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
 *
 * Why our own worker loop and not pg-boss's `work()` (checked against pg-boss 10.4.2, src/manager.js watch()):
 *  - it calls `this.complete(…)` and `this.fail(…)` without awaiting them, so the worker fetches its next job before
 *    the outcome is stored, a failure to store it becomes an unhandled rejection (which ends the process), and
 *    stop() cannot wait for it before the database is closed;
 *  - the handler gets no AbortSignal: on lease expiry `resolveWithinSeconds` only stops waiting while the handler
 *    carries on, and `offWork`/`stop` only stop fetching, so a handler is never told to stop;
 *  - there is no hook between fetching a job and running it, where we check the stored payload against its schema.
 * The loop below is pg-boss's own fetch/complete/fail API with those three things added; wake-on-send plays the part
 * of pg-boss's `notifyWorker`.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { FastifyBaseLogger } from 'fastify';
import PgBoss from 'pg-boss';
import pino from 'pino';
import type { Config } from '../config/config.js';
import type { Db, Queryable } from '../db/client.js';
import { createServices, type Services } from '../services/index.js';
import { createBossDb, transactionBossDb, type BossDb } from './boss-db.js';

/** Job name → payload, for every job the service runs; `queue.send` is checked against it. */
export interface JobPayloads {
  'mail.send': Static<typeof import('./send-mail.js').SendMailPayload>;
  'sms.send': Static<typeof import('./send-sms.js').SendSmsPayload>;
  'telegram.send': Static<typeof import('./send-telegram.js').SendTelegramPayload>;
  'book.erase-backup': Static<typeof import('./delete-book.js').BookIdPayload>;
  'book.purge': Static<typeof import('./delete-book.js').BookIdPayload>;
  'account.erase-backup': Static<typeof import('./account.js').UserIdPayload>;
  'account.purge': Static<typeof import('./account.js').UserIdPayload>;
  'account.export': Static<typeof import('./account-export.js').AccountExportIdPayload>;
  'account.export-expire': Static<typeof import('./account-export.js').AccountExportIdPayload>;
  'mail.digests': Static<typeof import('./account.js').DayPayload>;
  'mail.activity-reminders': Static<typeof import('./account.js').DayPayload>;
  'media.process': Static<typeof import('./media.js').MediaIdPayload>;
  'storage.delete-objects': Static<typeof import('./media.js').DeleteObjectsPayload>;
  'share-card.render': Static<typeof import('./media.js').ShareCardPayload>;
  'export.render': Static<typeof import('./exports.js').ExportIdPayload>;
  'export.expire': Static<typeof import('./exports.js').ExportIdPayload>;
  'notifications.new-submission': Static<typeof import('./notifications.js').SubmissionIdPayload>;
  'notifications.digest': Static<typeof import('./notifications.js').DayPayload>;
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
  /**
   * Never give up (retryLimit is not used). With backoff, retries back off
   * from retryDelay while the wait stays within maxDelaySeconds, then go on
   * every maxDelaySeconds for as long as it takes. pg-boss 10 has no cap on
   * its backoff, so each stretch is a job row of its own: the row whose
   * attempts are used up is called off and continued by a new one, in one
   * transaction (see continueJob).
   */
  retryForever?: { maxDelaySeconds: number };
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
  /** The same services the API runs on: handlers go through them, so every rule holds for jobs too. */
  services: Services;
}

export interface JobDefinition<N extends string = string, S extends TSchema = TSchema> {
  name: N;
  payload: S;
  options?: JobOptions<Static<S>>;
  handle(payload: Static<S>, ctx: JobContext): Promise<void>;
  /** What `memorybook jobs failed` may show of a payload: ids, never message bodies or secrets (default: nothing). */
  summarize?(payload: Static<S>): Record<string, unknown>;
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
  /** Runs pg-boss maintenance now (fails expired leases, archives finished and stale jobs, drops old archive rows); it also runs on a timer. */
  maintain(): Promise<void>;
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
  /** The process's services, for the handlers; by default built on first use from this queue's db and config. */
  services?: () => Services;
}

const DEFAULTS = { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 900 } as const;
const DEFAULT_MAINTENANCE_INTERVAL_SECONDS = 60;

/** How long a job may wait to start (no worker running) before pg-boss archives it unrun: pg-boss's own default. */
export const QUEUED_RETENTION_SECONDS = 14 * 24 * 3600;

/** Attempts in each continuation row of a retryForever job (about a day at an hourly cap). */
const CONTINUATION_ATTEMPTS = 24;

interface RetryPlan {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  expireInSeconds: number;
}

/**
 * Seconds pg-boss must keep a job waiting or retrying before archiving it.
 * Its keep_until is fixed at send (start_after + retention) and a retry does
 * not move it, so a retention shorter than the retry horizon archives a job
 * between two retries and nothing runs it again. The horizon adds up, per
 * retry, a lease that ran out, the maintenance pass that notices it, and the
 * longest wait pg-boss may choose (with backoff, retry n waits
 * retryDelay·2^min(16, n)/2 plus up to as much jitter again).
 */
export function retentionSeconds(plan: RetryPlan, maintenanceIntervalSeconds = DEFAULT_MAINTENANCE_INTERVAL_SECONDS): number {
  let horizon = 0;
  for (let n = 1; n <= plan.retryLimit; n++) {
    const wait = plan.retryBackoff ? Math.max(1, plan.retryDelay) * 2 ** Math.min(16, n) : plan.retryDelay;
    horizon += plan.expireInSeconds + maintenanceIntervalSeconds + wait;
  }
  return QUEUED_RETENTION_SECONDS + Math.ceil(horizon);
}

/** With retryForever and backoff: the retries whose longest wait (retryDelay·2^n) stays within the cap. */
function retriesWithin(maxDelaySeconds: number, retryDelay: number): number {
  return Math.max(0, Math.floor(Math.log2(maxDelaySeconds / Math.max(1, retryDelay))));
}

/** The Postgres schema of the job queue for this configuration. */
export function configuredQueueSchema(config: Config): string {
  return queueSchemaName(config.database.kind === 'postgres' ? config.database.schema : null);
}

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
  /** The payload's compiled check, made on first use: most jobs send nothing for a while after a start. */
  check(): TypeCheck<TSchema>;
}

interface Running {
  name: string;
  id: string;
  abort: AbortController;
}

/**
 * The queues of the given jobs, read in one query: on most starts they all
 * exist and nothing else runs. Missing ones (the first start, a new job) are
 * created in one transaction, which saves a commit per queue (each is a
 * partition with its indexes: creating all of them is most of a first
 * start). pg-boss's create_queue skips a queue that exists, so two processes
 * starting together create each one once.
 */
async function ensureJobQueues(db: Db, boss: PgBoss, definitions: JobDefinition[]) {
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q.policy]));
  const policyOf = (d: JobDefinition) => d.options?.policy ?? 'standard';
  const missing = definitions.filter((d) => !existing.has(d.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (missing.length) {
    // pg-boss reaches the database through our Db, so its statements join this transaction.
    await db.transaction(async () => {
      for (const d of missing) await boss.createQueue(d.name, { name: d.name, policy: policyOf(d) });
    });
  }
  for (const d of definitions) {
    const policy = existing.get(d.name);
    if (policy !== undefined && policy !== policyOf(d)) await boss.updateQueue(d.name, { name: d.name, policy: policyOf(d) });
  }
}

/**
 * Installs the job queue's own tables and the queue of every job, as part of
 * `memorybook migrate` (and of any command that migrates): a first `serve`
 * after it finds them ready. Nothing runs: no worker, no maintenance.
 */
export async function installJobQueues(deps: { db: Db; config: Config; jobs: readonly JobDefinition[]; schema?: string }): Promise<void> {
  const boss = new PgBoss({
    db: createBossDb(deps.db) as PgBoss.Db,
    schema: deps.schema ?? configuredQueueSchema(deps.config),
    migrate: true,
    supervise: false,
    schedule: false,
  });
  boss.on('error', () => {}); // nothing runs in the background here; start() itself throws
  await boss.start();
  try {
    await ensureJobQueues(deps.db, boss, [...deps.jobs]);
  } finally {
    await boss.stop({ graceful: false, close: false });
  }
}

export function createQueue<M extends object = JobPayloads>(deps: QueueDeps): Queue<M> {
  const { db, config } = deps;
  const log = deps.log ?? pino({ level: config.logLevel, base: { component: 'jobs' } });
  const schema = deps.schema ?? configuredQueueSchema(config);
  const pollIntervalMs = deps.pollIntervalMs ?? 2000;
  const maintenanceIntervalSeconds = deps.maintenanceIntervalSeconds ?? DEFAULT_MAINTENANCE_INTERVAL_SECONDS;
  const bossDb = createBossDb(db);
  const boss = new PgBoss({
    db: bossDb as PgBoss.Db,
    schema,
    migrate: true,
    supervise: true,
    schedule: false, // no cron jobs; housekeeping has its own timer
    maintenanceIntervalSeconds,
  });
  // Maintenance errors (a dropped connection) are emitted; unhandled they would crash the process.
  boss.on('error', (err) => log.warn({ err }, 'job queue maintenance failed; will retry'));

  let services: Services | undefined;
  const servicesOf = () => (services ??= deps.services?.() ?? createServices({ db, config, queue: queue as unknown as Queue }));

  const registered = new Map<string, Registered>();
  const running = new Set<Running>();
  const loops: Promise<void>[] = [];
  const wakers = new Map<string, Set<() => void>>();
  let state: 'new' | 'starting' | 'started' | 'stopping' | 'stopped' = 'new';
  let working = false;

  function add(definition: JobDefinition): Registered {
    if (registered.has(definition.name)) throw new Error(`job ${definition.name} is registered twice`);
    let compiled: TypeCheck<TSchema> | undefined;
    const entry = { definition, check: () => (compiled ??= TypeCompiler.Compile(definition.payload)) };
    registered.set(definition.name, entry);
    return entry;
  }
  for (const job of deps.jobs ?? []) add(job);

  const ensureQueues = (definitions: JobDefinition[]) => ensureJobQueues(db, boss, definitions);

  function checked(entry: Registered, payload: unknown, when: string) {
    const check = entry.check();
    if (check.Check(payload)) return payload;
    const problems = [...check.Errors(payload)].slice(0, 3).map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`job ${entry.definition.name}: payload ${when} does not match its schema (${problems.join('; ')})`);
  }

  /** Sends with the job's retry plan and a retention that covers it. */
  async function enqueue(entry: Registered, payload: unknown, plan: RetryPlan, options: { db?: BossDb; singletonKey?: string; startAfterSeconds?: number }) {
    return boss.send(entry.definition.name, payload as object, {
      ...plan,
      retentionSeconds: retentionSeconds(plan, maintenanceIntervalSeconds),
      singletonKey: options.singletonKey,
      startAfter: options.startAfterSeconds,
      db: options.db as PgBoss.Db | undefined,
    });
  }

  function firstPlan(definition: JobDefinition, retryDelaySeconds: number | undefined): RetryPlan {
    const o = definition.options ?? {};
    const retryDelay = retryDelaySeconds ?? o.retryDelay ?? DEFAULTS.retryDelay;
    const retryBackoff = o.retryBackoff ?? DEFAULTS.retryBackoff;
    const expireInSeconds = o.expireInSeconds ?? DEFAULTS.expireInSeconds;
    if (!o.retryForever) return { retryLimit: o.retryLimit ?? DEFAULTS.retryLimit, retryDelay, retryBackoff, expireInSeconds };
    // One retry more than the attempts used, kept in reserve (see continueJob).
    const attempts = retryBackoff ? retriesWithin(Math.max(o.retryForever.maxDelaySeconds, retryDelay), retryDelay) + 1 : CONTINUATION_ATTEMPTS;
    return { retryLimit: attempts, retryDelay, retryBackoff, expireInSeconds };
  }

  /**
   * A retryForever row whose attempts are used up: a new row carries on at a
   * steady pace (the cap, or the plain retryDelay without backoff), and this
   * one records the error pointing at it and is cancelled, all or nothing.
   * It happens one attempt before pg-boss's retryLimit, so a worker that dies
   * during that attempt leaves a retry in reserve (run by pg-boss once the
   * lease expires) instead of a row pg-boss fails for good. With the
   * singleton key already queued (stately) the send returns null: that job
   * carries on.
   */
  async function continueJob(entry: Registered, job: PgBoss.JobWithMetadata, failure: unknown): Promise<string | null> {
    const every = job.retryBackoff ? Math.max(entry.definition.options!.retryForever!.maxDelaySeconds, job.retryDelay) : job.retryDelay;
    const plan = { retryLimit: CONTINUATION_ATTEMPTS, retryDelay: every, retryBackoff: false, expireInSeconds: Number(job.expireInSeconds) };
    return db.transaction(async (tx) => {
      const txDb = transactionBossDb(tx) as PgBoss.Db;
      const nextId = await enqueue(entry, job.data, plan, { db: txDb, singletonKey: job.singletonKey ?? undefined, startAfterSeconds: every });
      // fail() stores the output (the row moves to retry, or to failed on the reserve attempt); cancel() calls the retry off.
      await boss.fail(entry.definition.name, job.id, { ...errorOutput(failure), continued: true, next_job_id: nextId }, { db: txDb });
      await boss.cancel(entry.definition.name, job.id, { db: txDb });
      return nextId;
    });
  }

  function wake(name: string) {
    for (const w of wakers.get(name) ?? []) w();
  }

  function idle(name: string, ms = pollIntervalMs) {
    return new Promise<void>((resolve) => {
      const set = wakers.get(name) ?? new Set();
      wakers.set(name, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
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
    // The first look comes at a random moment of the first poll interval, after its first quarter
    // (or at once on a send): every loop fetching together right after a start would hold PGlite's
    // one connection ahead of the first requests, the readiness probe among them.
    await idle(name, (0.25 + 0.75 * Math.random()) * pollIntervalMs);
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
    let payloadOk = false;
    let failure: unknown;
    try {
      const payload = checked(entry, job.data, 'as stored');
      payloadOk = true;
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
        services: servicesOf(),
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
      const final = attempt > job.retryLimit;
      if (ok) {
        await boss.complete(definition.name, job.id);
        jobLog.debug('job completed');
      } else if (definition.options?.retryForever && attempt >= job.retryLimit && payloadOk) {
        // (A payload that fails its schema never will pass: it uses up its retries below and is given up.)
        const nextId = await continueJob(entry, job, failure);
        jobLog.warn({ err: failure, next_job_id: nextId }, 'job failed; will retry as a new job');
      } else {
        await boss.fail(definition.name, job.id, errorOutput(failure));
        // Given up: the operator sees it here and in `memorybook jobs failed`.
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
        await ensureQueues([definition]);
        if (working) startLoops(entry);
      }
    },
    async start() {
      if (state !== 'new') throw new Error(`the job queue cannot start: it is ${state}`);
      state = 'starting';
      try {
        await boss.start();
        await ensureQueues([...registered.values()].map((r) => r.definition));
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
      const id = await enqueue(entry, payload, firstPlan(entry.definition, options.retryDelaySeconds), {
        singletonKey: options.singletonKey ?? entry.definition.options?.singletonKey?.(payload),
        startAfterSeconds: options.startAfterSeconds,
        db: options.tx ? transactionBossDb(options.tx) : undefined,
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
    async maintain() {
      await boss.maintain();
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
