import { execFile } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eventually } from '../helpers/eventually.js';
import { spawnServer } from '../helpers/spawn-server.js';
import { TEST_SECRET } from '../helpers/build-test-app.js';
import { TEST_DATABASE_URL } from '../helpers/test-db.js';
import { createPgliteDb } from '../../src/db/client.js';
import { queueSchemaName } from '../../src/jobs/queue.js';
import { jobSpecs } from '../../src/jobs/job-catalog.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/memorybook.js');
const schema = TEST_DATABASE_URL ? `cli_${Math.random().toString(36).slice(2, 10)}` : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-cli-'));
const env = {
  ...process.env,
  NODE_ENV: 'test',
  SECRET_KEY: TEST_SECRET,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ...(schema ? { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
};

async function cli(...args: string[]) {
  return run(process.execPath, [BIN, ...args], { env });
}

/** The names of the job queues in the database the CLI uses (while no process holds it). */
async function jobQueues(): Promise<string[]> {
  const sql = `SELECT name FROM ${queueSchemaName(schema)}.queue`;
  if (!schema) {
    const db = await createPgliteDb(path.join(dataDir, 'pglite'));
    try {
      return (await db.query<{ name: string }>(sql)).map((r) => r.name);
    } finally {
      await db.close();
    }
  }
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  try {
    return (await c.query<{ name: string }>(sql)).rows.map((r) => r.name);
  } finally {
    await c.end();
  }
}

if (schema) {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
}
afterAll(async () => {
  if (!schema) return;
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA ${schema} CASCADE`);
  await c.end();
});

describe('memorybook CLI', () => {
  // Fourteen commands, each opening the embedded database afresh: about 50 s on a loaded 2-core machine.
  it('migrate, user create, token issue, slots grant: each prints one JSON object; the token answers /auth/me/ on a served instance', { timeout: 150_000 }, async () => {
    const migrated = JSON.parse((await cli('migrate')).stdout);
    expect(migrated.applied).toContain('0001_spine');
    // migrate also installs the job queues, so a first serve finds them ready.
    expect((await jobQueues()).sort()).toEqual(jobSpecs.map((j) => j.name).sort());
    expect(JSON.parse((await cli('migrate')).stdout)).toEqual({ applied: [] });

    const user = JSON.parse((await cli('user', 'create', '--email', 'Op@Example.test', '--password', 'long enough pw', '--first-name', 'Op', '--staff')).stdout);
    expect(user).toMatchObject({ email: 'op@example.test', first_name: 'Op', is_staff: true });
    const token = JSON.parse((await cli('token', 'issue', '--email', 'op@example.test', '--name', 'deploy')).stdout);
    expect(token.plaintext).toMatch(/^svc_live_/);
    const slots = JSON.parse((await cli('slots', 'grant', '--email', 'op@example.test', '--plan', 'plus', '--count', '2')).stdout);
    expect(slots).toMatchObject({ plan: 'plus', purchased: 2, available: 2 });

    const server = await spawnServer({ schema, dataDir });
    try {
      const me = await fetch(`${server.url}/api/v1/auth/me/`, { headers: { authorization: `Bearer ${token.plaintext}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ auth_method: 'api_key', user: { email: 'op@example.test' }, token: { name: 'deploy' } });
      const book = await fetch(`${server.url}/api/v1/books/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.plaintext}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ title: 'Ops book', plan: 'plus' }),
      });
      expect(book.status).toBe(201);
    } finally {
      expect(await server.stop()).toBe(0);
    }

    const grace = JSON.parse((await cli('book', 'grace', '--slug', 'ops-book', '--until', '2099-01-01T00:00:00Z')).stdout);
    expect(grace).toMatchObject({ slug: 'ops-book', billing_status: 'grace_period' });
    const plan = JSON.parse((await cli('book', 'set-plan', '--slug', 'ops-book', '--plan', 'premium')).stdout);
    expect(plan).toEqual({ slug: 'ops-book', plan: 'premium' });
    await cli('user', 'create', '--email', 'helper@example.test', '--password', 'long enough pw');
    // The CLI goes through the same rules as the API: no new members while billing is in its grace period.
    const paused = await cli('member', 'add', '--book', 'ops-book', '--email', 'helper@example.test', '--role', 'contributor').catch((e) => e);
    expect(paused.code).toBe(1);
    expect(paused.stderr).toContain('grace period');
    await cli('book', 'grace', '--slug', 'ops-book', '--off');
    const member = JSON.parse((await cli('member', 'add', '--book', 'ops-book', '--email', 'helper@example.test', '--role', 'contributor')).stdout);
    expect(member).toMatchObject({ book: 'ops-book', role: 'contributor' });
    const again = await cli('member', 'add', '--book', 'ops-book', '--email', 'helper@example.test', '--role', 'admin').catch((e) => e);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already a member');
  });

  it('answers a usage error with exit code 2 and a message', async () => {
    await expect(cli('token', 'issue', '--email', 'x@example.test')).rejects.toMatchObject({ code: 2 });
    await expect(cli('frobnicate')).rejects.toMatchObject({ code: 2 });
    await expect(cli('user', 'create', '--email', 'dupe@example.test', '--password', 'long enough pw', '--bogus')).rejects.toMatchObject({ code: 2 });
  });

  it('stops on a bad configuration with one line naming the variable', async () => {
    const res = await run(process.execPath, [BIN, 'migrate'], { env: { ...env, PORT: 'nope' } }).catch((e) => e);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual(['configuration error: PORT: expected a whole number from 0 to 65535, got "nope"']);
  });

  it('will not serve the email webhook without INBOUND_EMAIL_AUTHSERV_ID, nor an open METRICS_PORT beyond loopback', async () => {
    const mail = await run(process.execPath, [BIN, 'serve'], { env: { ...env, INBOUND_EMAIL_SECRET: 'inbound-email-secret-0123456789' } }).catch((e) => e);
    expect(mail.code).toBe(2);
    expect(mail.stderr).toContain('configuration error: INBOUND_EMAIL_AUTHSERV_ID: required with INBOUND_EMAIL_SECRET');
    const metrics = await run(process.execPath, [BIN, 'serve'], { env: { ...env, METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' } }).catch((e) => e);
    expect(metrics.code).toBe(2);
    expect(metrics.stderr).toContain('configuration error: METRICS_HOST: "0.0.0.0" is not a loopback address; set METRICS_TOKEN');
  });

  it('serve finishes a request in flight on SIGTERM, then exits 0', async () => {
    // PGlite is one process at a time: make the user and key before the server opens the data folder.
    await cli('user', 'create', '--email', 'slow@example.test', '--password', 'long enough pw');
    const token = JSON.parse((await cli('token', 'issue', '--email', 'slow@example.test', '--name', 'slow')).stdout).plaintext;
    const server = await spawnServer({ schema, dataDir, env: { LOG_LEVEL: 'info' } });
    let log = '';
    server.child.stdout!.on('data', (d) => (log += d));
    // A request whose body arrives slowly is in flight when the signal lands:
    // "100 Continue" says the server has taken its headers, and the rest of
    // the body goes only once the server has logged that it is shutting down.
    const { port } = new URL(server.url);
    const body = JSON.stringify({ first_name: 'Graceful' });
    let headersTaken!: () => void;
    const inFlight = new Promise<void>((r) => (headersTaken = r));
    let req!: http.ClientRequest;
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'PATCH',
          path: '/api/v1/me/',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'idempotency-key': crypto.randomUUID(), expect: '100-continue' },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.on('continue', headersTaken);
      req.write(body.slice(0, 5));
    });
    await inFlight;
    const exited = server.stop('SIGTERM');
    await eventually(async () => log.includes('shutting down; finishing requests in flight'));
    req.end(body.slice(5));
    const res = await response;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).first_name).toBe('Graceful');
    expect(await exited).toBe(0);
  });
});
