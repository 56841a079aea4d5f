import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { createDb, type Db } from './db/client.js';
import { migrate } from './db/migrate.js';
import { createHousekeeping } from './housekeeping.js';

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
export async function startServer(config: Config): Promise<RunningServer> {
  const db = await createDb(config);
  await migrate(db);
  const app = await buildApp({ config, db });
  const housekeeping = createHousekeeping({ db, log: app.log });
  const address = await app.listen({ host: config.http.host, port: config.http.port });
  housekeeping.start();
  app.log.info({ address, database: db.kind, public_url: config.http.publicUrl }, 'memorybook listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      housekeeping.stop();
      await app.close(); // stops accepting, waits for requests in flight
      await db.close();
    })());
  return { app, db, address, close };
}
