import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createDb } from '../../../src/db/client.js';
import { startServer } from '../../../src/server.js';
import { TEST_SECRET } from '../../helpers/build-test-app.js';
import { adminQuery, TEST_DATABASE_URL } from '../../helpers/test-db.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-start-'));
const schema = TEST_DATABASE_URL ? `s_${randomBytes(6).toString('hex')}` : null;
let busy: net.Server;

beforeAll(async () => {
  if (schema) await adminQuery(`CREATE SCHEMA ${schema}`);
  busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  busy.close();
  if (schema) await adminQuery(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA ${schema} CASCADE`);
  rmSync(dataDir, { recursive: true, force: true });
});

const config = (port: number) =>
  loadConfig({
    NODE_ENV: 'test',
    SECRET_KEY: TEST_SECRET,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'silent',
    ...(schema ? { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : {}),
  });

it('a start that fails (the port is taken) closes what it opened, and the next start on the same data serves', async () => {
  const taken = (busy.address() as net.AddressInfo).port;
  await expect(startServer(config(taken))).rejects.toThrow(/EADDRINUSE/);

  // The database it was handed, already opening (what `memorybook serve` does), is the server's to close.
  // On PGlite a database left open would still hold DATA_DIR's lock, and this start would fail.
  const cfg = config(0);
  const server = await startServer(cfg, { db: createDb(cfg) });
  try {
    const ready = await fetch(`${server.address}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: schema ? 'postgres' : 'pglite' });
  } finally {
    await server.close();
  }
});
