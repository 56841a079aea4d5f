/**
 * The operator's CLI beside a running `memorybook serve`: on the embedded
 * database (which one process holds) the commands are run by the server
 * through DATA_DIR/admin.sock; on PostgreSQL they open the database
 * themselves. Either way `memorybook slots grant` works while the server
 * runs, and the slot is usable over the API at once: a paid plan without a
 * browser.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TEST_SECRET } from '../helpers/build-test-app.js';
import { spawnServer } from '../helpers/spawn-server.js';
import { TEST_DATABASE_URL } from '../helpers/test-db.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/memorybook.js');

describe('operator commands beside a running server', () => {
  it('slots grant, user create, token issue work while serve runs; the slot buys a paid book over the API', async () => {
    const schema = TEST_DATABASE_URL ? `cli_admin_${Math.random().toString(36).slice(2, 10)}` : undefined;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-admin-'));
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      SECRET_KEY: TEST_SECRET,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...(schema ? { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
    };
    const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], { env });
    const socket = path.join(dataDir, 'admin.sock');

    if (schema) {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
      await c.connect();
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.end();
      onTestFinished(async () => {
        const d = new pg.Client({ connectionString: TEST_DATABASE_URL! });
        await d.connect();
        await d.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA ${schema} CASCADE`);
        await d.end();
      });
    }
    // Migrated first (as a deploy does), so the server starts within spawnServer's 30 s on a loaded machine.
    await cli('migrate');
    const server = await spawnServer({ schema, dataDir });
    try {
      if (!schema) {
        // Only the account running the server may connect.
        expect(existsSync(socket)).toBe(true);
        expect(statSync(socket).mode & 0o777).toBe(0o600);
      } else {
        expect(existsSync(socket)).toBe(false);
      }
      const user = JSON.parse((await cli('user', 'create', '--email', 'buyer@example.test', '--password', 'long enough pw')).stdout);
      expect(user).toMatchObject({ email: 'buyer@example.test' });
      const token = JSON.parse((await cli('token', 'issue', '--email', 'buyer@example.test', '--name', 'trying')).stdout);
      const api = (p: string, init: RequestInit = {}) =>
        fetch(`${server.url}${p}`, {
          ...init,
          headers: { authorization: `Bearer ${token.plaintext}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...init.headers },
        });
      // No slot yet: 402 with the checkout hint.
      const firstKey = crypto.randomUUID();
      const before = await api('/api/v1/books/', { method: 'POST', body: JSON.stringify({ title: 'Paid', plan: 'plus' }), headers: { 'idempotency-key': firstKey } });
      expect(before.status).toBe(402);

      const slots = JSON.parse((await cli('slots', 'grant', '--email', 'buyer@example.test', '--plan', 'plus')).stdout);
      expect(slots).toMatchObject({ email: 'buyer@example.test', plan: 'plus', available: 1 });
      // The 402 is kept for its key (docs/errors.md): the same key replays it; a new key after the grant makes the paid book.
      const replay = await api('/api/v1/books/', { method: 'POST', body: JSON.stringify({ title: 'Paid', plan: 'plus' }), headers: { 'idempotency-key': firstKey } });
      expect(replay.status).toBe(402);
      const book = await api('/api/v1/books/', { method: 'POST', body: JSON.stringify({ title: 'Paid', plan: 'plus' }) });
      expect(book.status).toBe(201);
      expect(await book.json()).toMatchObject({ plan: 'plus' });

      // Errors come back as the command would print them, with its exit code.
      const nobody = await cli('slots', 'grant', '--email', 'nobody@example.test', '--plan', 'plus').catch((e) => e);
      expect(nobody.code).toBe(2);
      expect(nobody.stderr).toContain('no user with email nobody@example.test');
      const badPlan = await cli('slots', 'grant', '--email', 'buyer@example.test', '--plan', 'nope').catch((e) => e);
      expect(badPlan.code).toBe(1);
      if (!schema) {
        // A command the socket does not run still meets the folder's lock.
        const migrate = await cli('migrate').catch((e) => e);
        expect(migrate.code).toBe(1);
        expect(migrate.stderr).toMatch(/in use by process \d+/);
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // The server gone, its socket is too, and commands open the database themselves.
    expect(existsSync(socket)).toBe(false);
    const more = JSON.parse((await cli('slots', 'grant', '--email', 'buyer@example.test', '--plan', 'plus')).stdout);
    expect(more).toMatchObject({ plan: 'plus', available: 1 });
  }, 180_000);
});
