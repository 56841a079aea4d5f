/**
 * Durable background jobs on pg-boss, in the service's own database (PGlite or PostgreSQL): the adapter
 * behind the JobSender port. It knows jobs only by their catalog entry (job-catalog.ts: name, payload
 * schema, options); handlers are handed in by the process that runs them (src/job-handlers.ts), so
 * nothing here knows a service.
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
import { AppError } from '../errors.js';
import { dependencyUnavailable, jobDuration, jobsCompleted, jobsFailed, type QueueSource } from '../metrics/metrics.js';
import { activeTraceparent, contextFromJobTrace, failSpan, inSpan, SpanKind, splitJobTrace, startSpan, TRACE_KEY, withActiveSpan } from '../lib/tracing.js';
import { bossTables, createBossDb, transactionBossDb, type BossDb } from './boss-db.js';
import { jobSpecs, stoppedByWorker, WorkerStoppedError, type JobPayloads, type JobSendOptions, type JobSender, type JobSpec } from './job-catalog.js';

export type { JobOptions, JobPayloads, JobSpec, QueuePolicy } from './job-catalog.js';

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
  /** To send follow-up jobs outside a service (tests). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any job map: a handler may be a test's own job
  queue: Queue<any>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- handlers of every payload type are kept in one map
export type JobHandler<P = any> = (payload: P, ctx: JobContext) => Promise<void>;

/** Job name → handler: what a worker runs (src/job-handlers.ts builds the service's own). */
export type JobHandlers<M extends object = JobPayloads> = { [N in keyof M]: JobHandler<M[N]> };

/** A job with its handler in one (tests, and jobs a test adds to a worker). */
export interface JobDefinition<N extends string = string, S extends TSchema = TSchema> extends JobSpec<N, S> {
  handle(payload: Static<S>, ctx: JobContext): Promise<void>;
}

export function defineJob<N extends string, S extends TSchema>(definition: JobDefinition<N, S>): JobDefinition<N, S> {
  return definition;
}

export type SendOptions = JobSendOptions;

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

export interface Queue<M extends object = JobPayloads> extends JobSender<M> {
  /** The Postgres schema pg-boss keeps its tables in. */
  readonly schema: string;
  /** Adds a job (with its handler, or only to send it); allowed before or after start. */
  register(definition: JobSpec | JobDefinition): Promise<void>;
  /** Installs or upgrades pg-boss's schema, creates the queues and starts maintenance (expiry of dead leases, archiving). */
  start(): Promise<void>;
  /**
   * Starts polling for jobs and running their handlers in this process: those
   * given here and those registered with one. A job without a handler is
   * only sent from here.
   */
  work(handlers?: Partial<JobHandlers<M>>): void;
  getJob(name: string, id: string): Promise<JobRecord | null>;
  /** Runs pg-boss maintenance now (fails expired leases, archives finished and stale jobs, drops old archive rows); it also runs on a timer. */
  maintain(): Promise<void>;
  /** Jobs waiting per queue and the oldest ready one's wait (for the metrics scrape): read from the fetch index. */
  depths: QueueSource['depths'];
  /** Stops polling, waits up to timeoutMs for running handlers (then fails them so they are retried), stops maintenance. Leaves the Db open. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

export interface QueueDeps {
  db: Db;
  config: Config;
  log?: FastifyBaseLogger;
  /** The jobs this queue sends (and, with a handler, runs); default: every job of the catalog. */
  jobs?: readonly (JobSpec | JobDefinition)[];
  /** Defaults to queueSchemaName(the configured DATABASE_SCHEMA). */
  schema?: string;
  /** How often an idle worker asks for work (default 2000). */
  pollIntervalMs?: number;
  /** How often expired leases are failed over and old jobs archived (default 60). */
  maintenanceIntervalSeconds?: number;
}

const DEFAULTS = { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 900 } as const;
const DEFAULT_MAINTENANCE_INTERVAL_SECONDS = 60;
/** How often a worker looks for heartbeat jobs whose lease lapsed, at most. */
const DEFAULT_RECOVERY_SECONDS = 10;

/** How long a job may wait to start (no worker running) before pg-boss archives it unrun: pg-boss's own default. */
export const QUEUED_RETENTION_SECONDS = 14 * 24 * 3600;

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
  definition: JobSpec;
  handle?: JobHandler;
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
async function ensureJobQueues(db: Db, boss: PgBoss, schema: string, definitions: readonly JobSpec[]) {
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q.policy]));
  const policyOf = (d: JobSpec) => d.options?.policy ?? 'standard';
  const missing = definitions.filter((d) => !existing.has(d.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (missing.length) {
    await db.transaction(async (tx) => {
      // A pg-boss bound to this transaction (nothing started: it only sends each queue's statements through tx).
      const inTx = new PgBoss({ db: transactionBossDb(tx) as PgBoss.Db, schema, migrate: false, supervise: false, schedule: false });
      for (const d of missing) await inTx.createQueue(d.name, { name: d.name, policy: policyOf(d) });
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
export async function installJobQueues(deps: { db: Db; config: Config; jobs?: readonly JobSpec[]; schema?: string }): Promise<void> {
  const schema = deps.schema ?? configuredQueueSchema(deps.config);
  const boss = new PgBoss({
    db: createBossDb(deps.db) as PgBoss.Db,
    schema,
    migrate: true,
    supervise: false,
    schedule: false,
  });
  boss.on('error', () => {}); // nothing runs in the background here; start() itself throws
  await boss.start();
  try {
    await ensureJobQueues(deps.db, boss, schema, deps.jobs ?? jobSpecs);
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
  const tables = bossTables(schema);
  const boss = new PgBoss({
    db: bossDb as PgBoss.Db,
    schema,
    migrate: true,
    supervise: true,
    schedule: false, // recurring work is claimed per period by our own scheduler (see scheduler.ts for why)
    maintenanceIntervalSeconds,
  });
  // Maintenance errors (a dropped connection) are emitted; unhandled they would crash the process.
  boss.on('error', (err) => log.warn({ err }, 'job queue maintenance failed; will retry'));

  const registered = new Map<string, Registered>();
  const running = new Set<Running>();
  const loops: Promise<void>[] = [];
  const wakers = new Map<string, Set<() => void>>();
  let state: 'new' | 'starting' | 'started' | 'stopping' | 'stopped' = 'new';
  let working = false;
  let recovery: NodeJS.Timeout | undefined;
  let recovering: Promise<void> | undefined;

  function add(definition: JobSpec | JobDefinition): Registered {
    if (registered.has(definition.name)) throw new Error(`job ${definition.name} is registered twice`);
    let compiled: TypeCheck<TSchema> | undefined;
    const handle = 'handle' in definition ? definition.handle : undefined;
    const entry: Registered = { definition, handle, check: () => (compiled ??= TypeCompiler.Compile(definition.payload)) };
    registered.set(definition.name, entry);
    return entry;
  }
  for (const job of deps.jobs ?? jobSpecs) add(job);

  const ensureQueues = (definitions: JobSpec[]) => ensureJobQueues(db, boss, schema, definitions);

  function checked(entry: Registered, payload: unknown, when: string) {
    const check = entry.check();
    if (check.Check(payload)) return payload;
    const problems = [...check.Errors(payload)].slice(0, 3).map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`job ${entry.definition.name}: payload ${when} does not match its schema (${problems.join('; ')})`);
  }

  /** Sends with the job's retry plan and a retention that covers it. */
  async function enqueue(entry: Registered, payload: unknown, plan: RetryPlan, options: { db?: BossDb; singletonKey?: string; startAfterSeconds?: number; priority?: number }) {
    return boss.send(entry.definition.name, payload as object, {
      ...plan,
      retentionSeconds: retentionSeconds(plan, maintenanceIntervalSeconds),
      singletonKey: options.singletonKey,
      startAfter: options.startAfterSeconds,
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
      db: options.db as PgBoss.Db | undefined,
    });
  }

  function planOf(definition: JobSpec, retryDelaySeconds: number | undefined): RetryPlan {
    const o = definition.options ?? {};
    return {
      retryLimit: o.retryLimit ?? DEFAULTS.retryLimit,
      retryDelay: retryDelaySeconds ?? o.retryDelay ?? DEFAULTS.retryDelay,
      retryBackoff: o.retryBackoff ?? DEFAULTS.retryBackoff,
      expireInSeconds: o.expireInSeconds ?? DEFAULTS.expireInSeconds,
    };
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
    if (!entry.handle) return;
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

  /**
   * The stored payload without its carried trace context, and the run's span:
   * with tracing on, a child of the span that sent the job.
   */
  function startRunSpan(name: string, job: PgBoss.JobWithMetadata, attempt: number) {
    const { payload: stored, trace: carried } = splitJobTrace(job.data);
    const parent = contextFromJobTrace(carried);
    const span = startSpan(`process ${name}`, {
      kind: SpanKind.CONSUMER,
      parent,
      attributes: {
        'messaging.system': 'pg-boss',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': name,
        'messaging.message.id': job.id,
        'memorybook.job.attempt': attempt,
      },
    });
    return { stored, parent, span };
  }

  async function run(entry: Registered, job: PgBoss.JobWithMetadata) {
    const { definition } = entry;
    const handle = entry.handle!;
    const abort = new AbortController();
    const self: Running = { name: definition.name, id: job.id, abort };
    running.add(self);
    const expireMs = Number(job.expireInSeconds) * 1000;
    const lease = setTimeout(() => abort.abort(new Error(`job ran longer than its lease of ${job.expireInSeconds}s`)), expireMs);
    const attempt = job.retryCount + 1;
    const jobLog = log.child({ job: definition.name, job_id: job.id, attempt });
    const heartbeat = definition.options?.heartbeatSeconds;
    let leaseLost = false;
    let beat: NodeJS.Timeout | undefined;
    if (heartbeat) {
      // The lease runs three beats past the last one. Another worker took the job over (this process stalled past
      // its lease): stop the handler, and leave the job's outcome to that worker.
      const renew = async () => {
        try {
          const held = await tables.renewLease(db, { name: definition.name, id: job.id, retryCount: job.retryCount }, heartbeat * 3);
          if (!held && !abort.signal.aborted) {
            leaseLost = true;
            abort.abort(new Error('the job was taken over by another worker after its lease lapsed'));
          }
        } catch (err) {
          jobLog.warn({ err }, 'could not renew the job lease; will try again');
        }
      };
      await renew();
      beat = setInterval(() => void renew(), heartbeat * 1000);
    }
    let ok = false;
    let failure: unknown;
    const timer = jobDuration.startTimer({ queue: definition.name });
    const { stored, parent, span } = startRunSpan(definition.name, job, attempt);
    try {
      const payload = checked(entry, stored, 'as stored');
      const ctx: JobContext = {
        id: job.id,
        name: definition.name,
        attempt,
        retryLimit: job.retryLimit,
        signal: abort.signal,
        db,
        config,
        log: jobLog,
        queue,
      };
      const handled = span ? withActiveSpan(span, () => handle(payload, ctx), parent) : handle(payload, ctx);
      // An abandoned handler may still reject later; that must not become an unhandled rejection.
      handled.catch(() => {});
      await Promise.race([handled, aborted(abort.signal)]);
      ok = true;
    } catch (err) {
      failure = err;
    } finally {
      clearTimeout(lease);
      clearInterval(beat);
      running.delete(self);
      timer({ outcome: ok ? 'completed' : 'failed' });
    }
    if (span) {
      if (ok) span.end();
      else {
        failSpan(span, failure);
        span.end();
      }
    }
    if (leaseLost) {
      jobLog.warn('job lease lost to another worker; its outcome is theirs to record');
      return;
    }
    if (!ok && stoppedByWorker(abort.signal)) {
      // Cut off by this worker's shutdown, not by its work: the run does not count against the retry limit
      // (the next fetch counts it again), and it may start again at once.
      try {
        const released = await tables.releaseUncounted(db, { name: definition.name, id: job.id, retryCount: job.retryCount }, errorOutput(abort.signal.reason));
        if (released) {
          jobLog.warn('job interrupted by the worker stopping; released uncounted for another worker');
          return;
        }
      } catch (err) {
        // A stately queue already holding a retry of this key refuses a second one: pg-boss's fail below deals with it.
        jobLog.warn({ err }, 'could not release the interrupted job uncounted; failing it for a retry');
      }
    }
    try {
      const final = attempt > job.retryLimit;
      if (ok) {
        await boss.complete(definition.name, job.id);
        jobsCompleted.inc({ queue: definition.name });
        jobLog.debug('job completed');
      } else {
        await boss.fail(definition.name, job.id, errorOutput(failure));
        jobsFailed.inc({ queue: definition.name, final: String(final) });
        const dependency = failure instanceof AppError ? failure.dependency : undefined;
        if (dependency) dependencyUnavailable.inc({ dependency, where: 'job' });
        // Given up: the operator sees it here and in `memorybook jobs failed`. A dependency that is down is named.
        jobLog[final ? 'error' : 'warn'](
          { err: failure, retry_limit: job.retryLimit, ...(dependency ? { dependency } : {}) },
          final ? 'job failed for good' : dependency ? `job failed: ${dependency} unavailable; will retry` : 'job failed; will retry',
        );
      }
    } catch (err) {
      // The job stays active until its lease expires; maintenance then retries it.
      jobLog.error({ err }, 'could not record the job outcome; it will run again after its lease');
    }
  }

  /**
   * Runs of heartbeat jobs whose lease lapsed (their process died, or stalled
   * for three beats) go back to the queue to run now, rather than after the
   * retry backoff: pg-boss's own fail keeps the retry count and, for a
   * stately job with a retry already waiting, fails the dead run instead.
   */
  async function recoverLapsed(names: string[]) {
    const lapsed = await tables.lapsedRuns(db, names);
    for (const j of lapsed) {
      await boss.fail(j.name, j.id, { message: 'the worker running this job stopped renewing its lease (the process died or stalled)' });
      await tables.retryNow(db, j);
      log.warn({ job: j.name, job_id: j.id }, 'job taken over from a worker that stopped renewing its lease');
      wake(j.name);
    }
  }

  function startRecovery() {
    const beating = () => [...registered.values()].filter((r) => r.handle && r.definition.options?.heartbeatSeconds);
    const every = Math.min(DEFAULT_RECOVERY_SECONDS, ...beating().map((r) => r.definition.options!.heartbeatSeconds!)) * 1000;
    const tick = () => {
      const names = beating().map((r) => r.definition.name);
      if (state !== 'started' || recovering || !names.length) return;
      recovering = recoverLapsed(names)
        .catch((err) => log.warn({ err }, 'could not look for jobs of dead workers; will retry'))
        .finally(() => (recovering = undefined));
    };
    tick(); // at start: the jobs of a worker that died before this one started
    recovery = setInterval(tick, every);
    recovery.unref();
  }

  const queue: Queue<M> = {
    schema,
    async depths() {
      const rows = await tables.depths(db);
      return rows.map((r) => ({ queue: r.queue, waiting: r.waiting, oldestAgeSeconds: r.age }));
    },
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
    work(handlers = {}) {
      if (state !== 'started') throw new Error('start the job queue before working');
      if (working) throw new Error('the job queue is working already');
      for (const [name, handle] of Object.entries(handlers) as [string, JobHandler | undefined][]) {
        const entry = registered.get(name);
        if (!entry) throw new Error(`no job named ${name} is registered`);
        if (entry.handle && handle) throw new Error(`job ${name} has a handler already`);
        entry.handle ??= handle;
      }
      working = true;
      for (const entry of registered.values()) startLoops(entry);
      startRecovery();
    },
    async send(name, payload, options = {}) {
      const entry = registered.get(name);
      if (!entry) throw new Error(`no job named ${name} is registered`);
      // While stopping, handlers that are finishing may still enqueue follow-up jobs.
      if (state !== 'started' && state !== 'stopping') throw new Error(`the job queue is not running (${state}); cannot send ${name}`);
      checked(entry, payload, 'sent');
      const singletonKey = options.singletonKey ?? entry.definition.options?.singletonKey?.(payload);
      const sendIn = async (tx: Queryable | undefined) => {
        // The check and the send are one step only inside a transaction; sweeps run once per period, so outside one
        // the worst a race does is queue an idempotent job twice.
        if (options.unlessPending) {
          if (singletonKey === undefined) throw new Error(`job ${name}: unlessPending needs a singleton key`);
          if (await tables.hasUnfinished(tx ?? db, name, singletonKey)) return null;
        }
        // Tracing on: the sending span's traceparent rides in the stored payload (removed again before the run's check).
        const carried = activeTraceparent();
        return enqueue(entry, carried ? { ...(payload as object), [TRACE_KEY]: carried } : payload, planOf(entry.definition, options.retryDelaySeconds), {
          singletonKey,
          startAfterSeconds: options.startAfterSeconds,
          priority: options.priority,
          db: tx ? transactionBossDb(tx) : undefined,
        });
      };
      const id = await inSpan(
        `send ${name}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: { 'messaging.system': 'pg-boss', 'messaging.operation.type': 'send', 'messaging.operation.name': 'send', 'messaging.destination.name': name },
        },
        async (span) => {
          const sent = await sendIn(options.tx);
          if (sent) span?.setAttribute('messaging.message.id', sent);
          return sent;
        },
      );
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
      clearInterval(recovery);
      await recovering;
      for (const set of wakers.values()) for (const w of [...set]) w();
      if (running.size) {
        log.info({ running: running.size }, 'waiting for running jobs to finish');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(loops), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
        clearTimeout(timer);
        // Still running: give them back now (run() releases them uncounted) so another worker runs them without waiting for the lease.
        for (const r of running) r.abort.abort(new WorkerStoppedError());
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
