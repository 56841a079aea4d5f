import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Config } from './config/config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { createQueue, type JobDefinition, type Queue, type QueueDeps } from './jobs/queue.js';
import { jobs } from './jobs/registry.js';

export interface WorkerOptions extends Pick<QueueDeps, 'pollIntervalMs' | 'maintenanceIntervalSeconds'> {
  /** Jobs beyond the registry (tests). */
  jobs?: readonly JobDefinition[];
  log?: FastifyBaseLogger;
}

export interface RunningWorker {
  db: Db;
  queue: Queue;
  log: FastifyBaseLogger;
  /** Stops taking jobs, lets running ones finish (up to timeoutMs), closes the database. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * The process entry for `memorybook worker`: database, migrations, the job
 * queue and every registered handler, without the HTTP API. `memorybook
 * serve` runs the same queue in-process (see server.ts).
 */
export async function startWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  const log = options.log ?? pino({ level: config.logLevel, base: { component: 'worker' } });
  const db = await createDb(config);
  let queue: Queue;
  try {
    await migrate(db);
    queue = createQueue({
      db,
      config,
      log,
      jobs: [...jobs, ...(options.jobs ?? [])],
      pollIntervalMs: options.pollIntervalMs,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds,
    });
    await queue.start();
    queue.work();
  } catch (err) {
    await db.close();
    throw err;
  }
  log.info({ database: db.kind, schema: queue.schema }, 'memorybook worker running');

  let closing: Promise<void> | undefined;
  const close = (o: { timeoutMs?: number } = {}) =>
    (closing ??= (async () => {
      await queue.stop(o);
      await db.close();
    })());
  return { db, queue, log, close };
}
