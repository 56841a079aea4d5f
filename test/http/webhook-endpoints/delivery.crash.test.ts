/**
 * A worker killed with SIGKILL while a receiver holds its delivery: the
 * delivery stays pending under the dead worker's lease, and once that lapses
 * the next worker sends it again with the same webhook-id (at least once,
 * nothing lost). On both databases.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createDb } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createServices } from '../../../src/services/index.js';
import { startWorker } from '../../../src/worker.js';
import { uuidv7 } from '../../../src/lib/ids.js';
import { TEST_SECRET, testConfig } from '../../helpers/build-test-app.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-db.js';
import { waitFor } from '../../jobs/helpers.js';
import { LOOPBACK_ALLOWED, startReceiver } from './receiver.js';
import { NoJobQueue } from '../../../src/jobs/no-job-queue.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.join(ROOT, 'test/http/webhook-endpoints/fixtures/worker.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function crashConfig(): Promise<{ config: Config; env: Record<string, string> }> {
  if (!TEST_DATABASE_URL) {
    const config = testConfig(LOOPBACK_ALLOWED);
    cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
    return { config, env: { DATA_DIR: config.dataDir, DATABASE_URL: '', ...LOOPBACK_ALLOWED } };
  }
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema!, ...LOOPBACK_ALLOWED };
  const config = testConfig(env);
  cleanups.push(async () => rmSync(config.dataDir, { recursive: true, force: true }));
  return { config, env: { ...env, DATA_DIR: config.dataDir } };
}

describe('a worker killed mid-delivery', () => {
  it('leaves the delivery to the next worker, which sends it with the same webhook-id', async () => {
    const { config, env } = await crashConfig();
    // The first request hangs (the worker is killed while it waits); later ones are answered.
    const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200));
    cleanups.push(() => receiver.close());

    // 1. An endpoint and a change that makes an event, written by this process.
    const db = await createDb(config);
    await migrate(db);
    const services = createServices({ db, config, queue: new NoJobQueue('this test') });
    const user = await services.users.createUser({ email: `crash-${uuidv7().slice(-8)}@example.test`, password: 'long enough pw' });
    await services.quotas.grantSlots(user.id, 'plus', 1);
    const book = await db.transaction((tx) => services.books.createBook(tx, user, { title: 'Crash course', plan: 'plus' }));
    const endpoint = await db.transaction((tx) => services.webhookEndpoints.createEndpoint(tx, user, { url: receiver.url }));
    const sub = await db.transaction((tx) => services.submissions.createSubmission(tx, user, book.slug, { text_content: 'kept safe' }));
    await services.store.close();
    await db.close();

    // 2. A worker process takes the delivery; the receiver holds it; kill -9 the worker there.
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: TEST_SECRET, PUBLIC_URL: config.http.publicUrl, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    await waitFor(`the child worker to send the delivery (stderr: ${stderr})`, async () => receiver.received.length >= 1 || child.exitCode !== null, 90_000);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const first = receiver.received[0];
    expect(JSON.parse(first.body)).toMatchObject({ type: 'submission.created', data: { object: { id: sub.id } } });

    // 3. What the dead worker left: the delivery pending, claimed once, its lease held; lapsed here rather than waited for.
    const after = await createDb(config);
    const [row] = await after.query<{ status: string; attempts: number; lease_until: string | null }>(
      `SELECT status, attempts, lease_until FROM webhook_deliveries WHERE endpoint_id = $1`,
      [endpoint.id],
    );
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.lease_until).not.toBeNull();
    await after.query(`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE endpoint_id = $1`, [endpoint.id]);
    await after.close();

    // 4. A new worker sends it again: same webhook-id, same body, delivered.
    const worker = await startWorker(config, { pollIntervalMs: 200 });
    try {
      await receiver.waitFor(2, 60_000);
      const second = receiver.received[1];
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.body).toBe(first.body);
      const done = await waitFor(
        'the delivery to be recorded as delivered',
        async () => {
          const [r] = await worker.db.query<{ status: string; attempts: number }>(`SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);
          return r.status === 'delivered' && r;
        },
        30_000,
      );
      expect(done.attempts).toBe(2);
    } finally {
      await worker.close();
    }
  }, 180_000);
});
