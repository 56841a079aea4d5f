import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Config } from './config/config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { startMetricsListener, type MetricsListener } from './http/plugins/metrics.js';
import { runJobs, type JobRunner, type JobRunnerOptions } from './job-handlers.js';
import { jobSpecs } from './jobs/job-catalog.js';
import { createQueue, type JobDefinition, type Queue, type QueueDeps } from './jobs/queue.js';
import { createServices, type Services } from './services/index.js';

export interface WorkerOptions extends Pick<QueueDeps, 'pollIntervalMs' | 'maintenanceIntervalSeconds'>, JobRunnerOptions {
  /** Jobs beyond the catalog, with their handlers (tests). */
  jobs?: readonly JobDefinition[];
  log?: FastifyBaseLogger;
}

export interface RunningWorker {
  db: Db;
  queue: Queue;
  services: Services;
  jobs: JobRunner;
  log: FastifyBaseLogger;
  /** The METRICS_PORT listener's address (this process's job metrics), when there is one. */
  metricsAddress: string | null;
  /** Stops the schedules and taking jobs, lets running ones finish (up to timeoutMs), closes the database. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * The process entry for `memorybook worker`: database, migrations, the job
 * queue with every handler, and the schedules, without the HTTP API.
 * `memorybook serve` runs the same in-process (see server.ts).
 */
export async function startWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  const log = options.log ?? pino({ level: config.logLevel, base: { component: 'worker' } });
  const db = await createDb(config);
  let queue: Queue | undefined;
  let services: Services | undefined;
  let jobs: JobRunner | undefined;
  let metrics: MetricsListener | null = null;
  try {
    await migrate(db);
    queue = createQueue({
      db,
      config,
      log,
      jobs: [...jobSpecs, ...(options.jobs ?? [])],
      pollIntervalMs: options.pollIntervalMs,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds,
    });
    services = createServices({ config, db, queue });
    await queue.start();
    jobs = runJobs({ db, config, queue, services, log }, options);
    metrics = await startMetricsListener(config, { db, queue });
  } catch (err) {
    await jobs?.stop().catch(() => {});
    await queue?.stop().catch(() => {});
    await services?.store.close().catch(() => {});
    await db.close();
    throw err;
  }
  log.info({ database: db.kind, schema: queue.schema, metrics: metrics?.address }, 'memorybook worker running');

  const runner = jobs;
  let closing: Promise<void> | undefined;
  const close = (o: { timeoutMs?: number } = {}) =>
    (closing ??= (async () => {
      await runner.stop();
      await queue.stop(o);
      await metrics?.close();
      await services.store.close();
      await db.close();
    })());
  return { db, queue, services, jobs: runner, log, metricsAddress: metrics?.address ?? null, close };
}
