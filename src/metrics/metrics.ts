/**
 * The process's Prometheus metrics (prom-client): one registry per process,
 * as Prometheus scrapes a process. Counters and histograms are moved where the
 * work happens (requests, jobs, webhook deliveries, inbound messages); the
 * gauges of the database pool and the job queue are read when scraped, from
 * the sources the process registers (see watch*). Nothing here is served:
 * the HTTP face is src/http/plugins/metrics.ts.
 */
import { createRequire } from 'node:module';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

type Labels = Record<string, string>;
/** What the work records into: a counter or histogram that does nothing until metrics are started. */
export interface CounterOf { inc(labels: Labels): void }
export interface HistogramOf {
  observe(labels: Labels, seconds: number): void;
  /** Starts timing; the returned function stops it with the remaining labels. */
  startTimer(labels?: Labels): (labels?: Labels) => void;
}

// prom-client (with its digest and tree libraries) is read only when a metrics endpoint or listener is
// configured: a process without one records nothing, so it never loads it.
const require = createRequire(import.meta.url);
type Client = typeof import('prom-client');
let registry: Registry | undefined;
const builders: ((client: Client, registers: Registry[]) => void)[] = [];

function counter(options: { name: string; help: string; labelNames: readonly string[] }): CounterOf {
  let real: Counter | undefined;
  builders.push((client, registers) => (real = new client.Counter({ ...options, registers })));
  return { inc: (labels) => real?.inc(labels) };
}
function histogram(options: { name: string; help: string; labelNames: readonly string[]; buckets: number[] }): HistogramOf {
  let real: Histogram | undefined;
  builders.push((client, registers) => (real = new client.Histogram({ ...options, registers })));
  const idle = () => {};
  return {
    observe: (labels, seconds) => real?.observe(labels, seconds),
    startTimer: (labels) => real?.startTimer(labels) ?? idle,
  };
}
function gauge(options: { name: string; help: string; labelNames?: readonly string[]; collect(this: Gauge): void | Promise<void> }) {
  builders.push((client, registers) => new client.Gauge({ ...options, registers }));
}

/** Seconds; from a fast keyed read to a slow upload. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds; jobs run from milliseconds (a mail) to many minutes (a printed book). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export const httpRequests = counter({
  name: 'memorybook_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
});
export const httpDuration = histogram({
  name: 'memorybook_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by route template, method and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: HTTP_BUCKETS,
});

export const jobsCompleted = counter({
  name: 'memorybook_jobs_completed_total',
  help: 'Jobs whose handler finished, by queue.',
  labelNames: ['queue'] as const,
});
export const jobsFailed = counter({
  name: 'memorybook_jobs_failed_total',
  help: 'Job runs that failed, by queue; final="true" when no retry is left.',
  labelNames: ['queue', 'final'] as const,
});
export const jobDuration = histogram({
  name: 'memorybook_job_duration_seconds',
  help: 'Time a job handler ran, by queue and outcome (completed, failed).',
  labelNames: ['queue', 'outcome'] as const,
  buckets: JOB_BUCKETS,
});
export const exportRenderDuration = histogram({
  name: 'memorybook_export_render_duration_seconds',
  help: 'Time a book export took to render, by outcome (completed, failed).',
  labelNames: ['outcome'] as const,
  buckets: JOB_BUCKETS,
});
export const mediaProcessDuration = histogram({
  name: 'memorybook_media_process_duration_seconds',
  help: 'Time an uploaded file took to process (probe, scan, transcode, thumbnails), by outcome (completed, failed).',
  labelNames: ['outcome'] as const,
  buckets: JOB_BUCKETS,
});

export const webhookAttempts = counter({
  name: 'memorybook_webhook_delivery_attempts_total',
  help: 'Outbound webhook delivery attempts, by outcome (delivered, retry, failed, gone, skipped).',
  labelNames: ['outcome'] as const,
});
/** Work cut short because a dependency was down, cut off or throttling: 503 answers (where="http") and job runs (where="job"). */
export const dependencyUnavailable = counter({
  name: 'memorybook_dependency_unavailable_total',
  help: 'Requests answered 503 (where="http") and job runs failed (where="job") because a dependency was down, by dependency (database, object_store, mail).',
  labelNames: ['dependency', 'where'] as const,
});
export const inboundMessages = counter({
  name: 'memorybook_inbound_messages_total',
  help: 'Messages received on the messaging channels, by provider and what came of them.',
  labelNames: ['provider', 'outcome'] as const,
});

/** Times `run` into a histogram with an outcome label (completed or failed), passing its result or error on. */
export async function timed<T>(histogram: HistogramOf, run: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer();
  try {
    const result = await run();
    end({ outcome: 'completed' });
    return result;
  } catch (err) {
    end({ outcome: 'failed' });
    throw err;
  }
}

/** What the pool gauges read at scrape: a pg Pool's counts. */
export interface PoolSource {
  stats(): { max: number; total: number; idle: number; waiting: number };
}
/** What the queue gauges read at scrape: depth and oldest ready job's age per queue. */
export interface QueueSource {
  depths(): Promise<{ queue: string; waiting: number; oldestAgeSeconds: number | null }[]>;
}

/** What is watched, by the object it belongs to (a Db, a queue), with how many watchers: an app and its metrics listener watch the same. */
const pools = new Map<object, { source: PoolSource; watchers: number }>();
const queues = new Map<object, { source: QueueSource; watchers: number }>();

function watch<S>(watched: Map<object, { source: S; watchers: number }>, owner: object, source: S): () => void {
  const entry = watched.get(owner) ?? { source, watchers: 0 };
  entry.watchers++;
  watched.set(owner, entry);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--entry.watchers === 0) watched.delete(owner);
  };
}

/** The database pool this process serves from (`owner`: the Db); the returned function stops watching it (on close). */
export function watchPool(owner: object, source: PoolSource): () => void {
  return watch(pools, owner, source);
}
export function watchQueue(owner: object, source: QueueSource): () => void {
  return watch(queues, owner, source);
}

const poolSum = () => {
  const sum = { max: 0, total: 0, idle: 0, waiting: 0 };
  for (const { source } of pools.values()) for (const [k, v] of Object.entries(source.stats())) sum[k as keyof typeof sum] += v;
  return sum;
};

gauge({
  name: 'memorybook_db_pool_connections',
  help: 'Database connections of this process, by state (in_use, idle). PGlite has one connection.',
  labelNames: ['state'] as const,
  collect() {
    this.reset();
    if (!pools.size) return;
    const s = poolSum();
    this.set({ state: 'in_use' }, s.total - s.idle);
    this.set({ state: 'idle' }, s.idle);
  },
});
gauge({
  name: 'memorybook_db_pool_max_connections',
  help: 'The largest number of database connections this process opens (DATABASE_POOL_SIZE; 1 on PGlite).',
  collect() {
    this.reset();
    if (pools.size) this.set(poolSum().max);
  },
});
gauge({
  name: 'memorybook_db_pool_waiting',
  help: 'Statements and transactions waiting for a free database connection.',
  collect() {
    this.reset();
    if (pools.size) this.set(poolSum().waiting);
  },
});

// The queue gauges share one read per scrape: the first to collect asks, the others reuse it.
let depthRead: { at: number; rows: Promise<Awaited<ReturnType<QueueSource['depths']>>> } | undefined;
function readDepths() {
  const now = performance.now();
  if (!depthRead || now - depthRead.at > 500) {
    const rows = Promise.all([...queues.values()].map(({ source }) => source.depths().catch(() => []))).then((all) => all.flat());
    depthRead = { at: now, rows };
  }
  return depthRead.rows;
}
gauge({
  name: 'memorybook_job_queue_depth',
  help: 'Jobs waiting to run (created or waiting for a retry), by queue.',
  labelNames: ['queue'] as const,
  async collect() {
    const rows = await readDepths();
    this.reset();
    for (const r of rows) this.set({ queue: r.queue }, r.waiting);
  },
});
gauge({
  name: 'memorybook_job_queue_oldest_age_seconds',
  help: 'How long the oldest job ready to run has waited since it became due, by queue (0 when none waits).',
  labelNames: ['queue'] as const,
  async collect() {
    const rows = await readDepths();
    this.reset();
    for (const r of rows) this.set({ queue: r.queue }, r.oldestAgeSeconds ?? 0);
  },
});

/**
 * Loads prom-client and starts recording (with the process's own metrics: CPU, memory, event loop lag, GC):
 * once, when a metrics endpoint or listener is first set up. Work done before records nothing.
 */
export function startMetrics(): Registry {
  if (registry) return registry;
  const client = require('prom-client') as Client;
  const started = new client.Registry();
  for (const build of builders) build(client, [started]);
  client.collectDefaultMetrics({ register: started, prefix: 'memorybook_' });
  registry = started;
  return started;
}

/** The scrape's body and its content type. */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  const started = startMetrics();
  return { body: await started.metrics(), contentType: started.contentType };
}
