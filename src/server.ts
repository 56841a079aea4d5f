import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { startMetricsListener, type MetricsListener } from './http/plugins/metrics.js';
import { runJobs, type JobRunner, type JobRunnerOptions } from './job-handlers.js';
import { createQueue } from './jobs/queue.js';
import { createServices, type Services } from './services/index.js';
import type { SmtpReceiver } from './mail/inbound-receiver.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  /** The services the routes and jobs use (the operator's admin socket runs commands through them). */
  services: Services;
  address: string;
  /** The METRICS_PORT listener's address, when there is one. */
  metricsAddress: string | null;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Run the job worker in this process (default true). */
  worker?: boolean;
  /**
   * The database, already opening: the CLI starts it before loading this
   * module, so PGlite compiles while the app's modules load. The server owns
   * it from here (closes it on failure and on close). Default: opened here.
   */
  db?: Promise<Db>;
  /** For the in-process worker's schedules (tests pass a fake clock). */
  jobs?: JobRunnerOptions;
  /** Run the SMTP receiver in this process when SMTP_INBOUND_PORT is set (default true; `serve --no-mail-inbound` beside `memorybook mail-inbound`). */
  mailInbound?: boolean;
}

/**
 * The schedules' first check waits this long after listen: on PGlite it holds
 * the one connection for a moment, which is better spent on the first
 * requests (the readiness probe among them).
 */
const FIRST_SCHEDULE_TICK_DELAY_MS = 5_000;

/**
 * The process entry for `memorybook serve`: database, migrations, app,
 * listen, and a graceful close that lets requests in flight finish.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  // How long each step took (ms), logged with the listening line: where a slow start went.
  const startup: Record<string, number> = { before_server_ms: Math.round(process.uptime() * 1000) };
  let lapAt = performance.now();
  const lap = (step: string) => {
    const now = performance.now();
    startup[step] = Math.round(now - lapAt);
    lapAt = now;
  };
  const db = await (options.db ?? createDb(config));
  lap('database_open_ms');
  let services: Services | undefined;
  // One set of services for the routes and the job handlers.
  const queue = createQueue({ db, config });
  let built: FastifyInstance | undefined;
  let app: FastifyInstance;
  let address: string;
  let metrics: MetricsListener | null = null;
  try {
    await migrate(db);
    lap('migrate_ms');
    services = createServices({ config, db, queue });
    // The queue starts while the app is built (on PostgreSQL its statements run beside the
    // build) and before listen, so routes can enqueue; it takes jobs only after listen.
    const [started, building] = await Promise.allSettled([
      queue.start().finally(() => (startup.queue_start_ms = Math.round(performance.now() - lapAt))),
      buildApp({ config, db, queue, services }).finally(() => (startup.app_build_ms = Math.round(performance.now() - lapAt))),
    ]);
    lapAt = performance.now();
    if (building.status === 'rejected') throw building.reason;
    app = built = building.value;
    if (started.status === 'rejected') throw started.reason;
    address = await app.listen({ host: config.http.host, port: config.http.port });
    lap('listen_ms');
    metrics = await startMetricsListener(config, { db, queue });
  } catch (err) {
    await built?.close().catch(() => {});
    await queue.stop();
    await services?.store.close().catch(() => {});
    await db.close();
    throw err;
  }
  // The worker (handlers and schedules) runs in-process unless the operator runs it apart
  // (`serve --no-worker` beside `memorybook worker`): then this process only sends jobs.
  const worker = options.worker ?? true;
  const jobs: JobRunner | undefined = worker
    ? runJobs({ db, config, queue, services, log: app.log }, { firstTickAfterMs: FIRST_SCHEDULE_TICK_DELAY_MS, ...options.jobs })
    : undefined;
  let receiver: SmtpReceiver | undefined;
  if (config.mailInbound.port !== null && options.mailInbound !== false) {
    try {
      const { startMailInbound } = await import('./mail-inbound.js');
      receiver = await startMailInbound({ config, services: services!, log: app.log });
    } catch (err) {
      await jobs?.stop();
      await metrics?.close();
      await app.close();
      await queue.stop();
      await services!.store.close();
      await db.close();
      throw err;
    }
  }
  startup.since_process_start_ms = Math.round(process.uptime() * 1000);
  // CPU spent by then, all threads: above the elapsed time, the start used more than one core.
  const cpu = process.cpuUsage();
  startup.cpu_ms = Math.round((cpu.user + cpu.system) / 1000);
  app.log.info({ address, metrics: metrics?.address, database: db.kind, public_url: config.http.publicUrl, worker, startup }, 'memorybook listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const { delayMs, timeoutMs } = config.shutdown;
      // /readyz answers 503 from now; a balancer that polls it gets SHUTDOWN_DELAY_SECONDS to stop routing here.
      app.drain.begin();
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const deadline = Date.now() + timeoutMs;
      // The schedules and the mail receiver stop while the requests finish; the queue stays up, since a request
      // in flight may still enqueue (in its own transaction).
      // Each step runs whatever the one before it did: a part that fails to stop is logged, the rest still closes.
      const settled = async (steps: Record<string, Promise<unknown> | undefined>) => {
        const names = Object.keys(steps);
        const outcomes = await Promise.allSettled(Object.values(steps));
        outcomes.forEach((o, i) => {
          if (o.status === 'rejected') app.log.error({ err: o.reason, step: names[i] }, 'shutdown step failed; closing the rest');
        });
      };
      await settled({ schedules: jobs?.stop(), mail_receiver: receiver?.close(), http: drainHttp(app, timeoutMs) });
      await settled({ queue: queue.stop({ timeoutMs: Math.max(1_000, deadline - Date.now()) }) }); // running jobs finish, or are released for a retry
      await settled({ metrics: metrics?.close() });
      await settled({ store: services!.store.close() });
      await settled({ database: db.close() }); // the pool ends once no request or job can use it
    })());
  return { app, db, services: services!, address, metricsAddress: metrics?.address ?? null, close };
}

/**
 * Stops listening (new connections are refused, so a balancer tries another
 * process) and closes idle keep-alive connections; requests in flight finish,
 * each answer closing its connection (http/drain.ts). Past the timeout the
 * connections still open are cut.
 */
async function drainHttp(app: FastifyInstance, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = app.close();
  const late = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (late) {
    app.log.warn({ timeout_ms: timeoutMs }, 'requests still in flight at the shutdown timeout; closing their connections');
    app.server.closeAllConnections();
    await closed;
  }
}
