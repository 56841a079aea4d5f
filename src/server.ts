import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { createHousekeeping } from './housekeeping.js';
import { createQueue } from './jobs/queue.js';
import { jobs } from './jobs/registry.js';
import { createServices, type Services } from './services/index.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  address: string;
  close(): Promise<void>;
}

/**
 * The process entry for `memorybook serve`: database, migrations, app,
 * listen, and a graceful close that lets requests in flight finish.
 */
export async function startServer(config: Config, options: { worker?: boolean } = {}): Promise<RunningServer> {
  const db = await createDb(config);
  await migrate(db);
  // Started before the app so routes can enqueue; it takes jobs only after listen.
  // One set of services for the routes and the job handlers.
  let services: Services | undefined;
  const queue = createQueue({ db, config, jobs, services: () => services! });
  services = createServices({ config, db, queue });
  let app: FastifyInstance;
  let address: string;
  try {
    await queue.start();
    app = await buildApp({ config, db, queue, services });
    address = await app.listen({ host: config.http.host, port: config.http.port });
  } catch (err) {
    await queue.stop();
    await db.close();
    throw err;
  }
  const housekeeping = createHousekeeping({ services, log: app.log, requestTimeoutMs: config.http.timeouts.requestMs });
  housekeeping.start();
  // The worker runs in-process unless the operator runs it apart (`serve --no-worker` beside `memorybook worker`).
  const worker = options.worker ?? true;
  if (worker) queue.work();
  app.log.info({ address, database: db.kind, public_url: config.http.publicUrl, worker }, 'memorybook listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      housekeeping.stop();
      await app.close(); // stops accepting, waits for requests in flight
      await queue.stop(); // lets running jobs finish (30 s at most)
      await services!.store.close();
      await db.close();
    })());
  return { app, db, address, close };
}
