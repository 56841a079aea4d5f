/**
 * `memorybook subscription create`: through the subscription service, one
 * JSON object on stdout; the rules (membership, an address on the channel)
 * hold as they do everywhere.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createServices } from '../../src/services/index.js';
import { TEST_SECRET } from '../helpers/build-test-app.js';
import { TEST_DATABASE_URL } from '../helpers/test-db.js';
import { NoJobQueue } from '../../src/jobs/no-job-queue.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/memorybook.js');
const schema = TEST_DATABASE_URL ? `cli_sub_${Math.random().toString(36).slice(2, 10)}` : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-cli-sub-'));
const env = {
  ...process.env,
  NODE_ENV: 'test',
  SECRET_KEY: TEST_SECRET,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ...(schema ? { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
};
const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], { env });

/** In-process work on the same database, while no CLI process has it open (PGlite is one process at a time). */
async function withServices<T>(fn: (s: ReturnType<typeof createServices>, db: Awaited<ReturnType<typeof createDb>>) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const db = await createDb(config);
  try {
    await migrate(db);
    return await fn(createServices({ config, db, queue: new NoJobQueue('this test') }), db);
  } finally {
    await db.close();
  }
}

let slug: string;
beforeAll(async () => {
  if (schema) {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
  }
  slug = await withServices(async (s, db) => {
    const owner = await s.users.createUser({ email: 'owner@example.test', password: 'long enough pw' });
    for (const email of ['fan@example.test', 'stranger@example.test']) await s.users.createUser({ email, password: 'long enough pw' });
    const book = await db.transaction((tx) => s.books.createBook(tx, owner, { title: 'CLI Subscriptions' }));
    await db.transaction((tx) => s.members.addMember(tx, owner, book.slug, { email: 'fan@example.test' }, 'contributor'));
    await db.query(`UPDATE users SET phone_number = '+442079460111' WHERE email = 'fan@example.test'`);
    return book.slug;
  });
  // Each CLI run starts a process and opens the database: slow on a busy machine.
}, 180_000);
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (!schema) return;
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA ${schema} CASCADE`);
  await c.end();
});

describe('memorybook subscription create', { timeout: 240_000 }, () => {
  it('subscribes a member (email by default) and prints the subscription as one JSON object', async () => {
    const { stdout } = await cli('subscription', 'create', '--book', slug, '--email', 'Fan@Example.test', '--kind', 'new_submission');
    const lines = stdout.trim().split('\n');
    expect(lines.length).toBe(1);
    const sub = JSON.parse(lines[0]);
    expect(sub).toMatchObject({ channel: 'email', kind: 'new_submission', is_active: true, book_slug: slug, email: 'fan@example.test', created: true });
    expect(sub.id).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await withServices((_s, db) => db.query<any>(`SELECT user_id, channel, kind, is_active FROM notification_subscriptions WHERE id = $1`, [sub.id]));
    expect(row).toMatchObject({ user_id: sub.user_id, channel: 'email', kind: 'new_submission', is_active: true });

    // The same again: the active subscription as it is, never a second one.
    const again = JSON.parse((await cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'new_submission')).stdout);
    expect(again).toMatchObject({ id: sub.id, created: false });
  });

  it('--channel sms and a digest', async () => {
    const sub = JSON.parse((await cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'digest', '--channel', 'sms')).stdout);
    expect(sub).toMatchObject({ channel: 'sms', kind: 'digest', is_active: true, created: true });
  });

  it('--channel push, for a member with a registered device (refused without one)', async () => {
    const noDevice = await cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'new_submission', '--channel', 'push').catch((e) => e);
    expect(noDevice.code).toBe(1);
    expect(noDevice.stderr).toContain('no device registered for push');
    await withServices(async (s, db) => {
      const [fan] = await db.query<{ id: string; email: string }>(`SELECT id, email FROM users WHERE email = 'fan@example.test'`);
      await db.transaction((tx) => s.devices.register(tx, fan, { platform: 'ios', token: 'ab'.repeat(32) }));
    });
    const sub = JSON.parse((await cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'new_submission', '--channel', 'push')).stdout);
    expect(sub).toMatchObject({ channel: 'push', kind: 'new_submission', is_active: true, created: true });
  });

  it('refuses what the rules refuse, with exit code 1 and a message', async () => {
    const notMember = await cli('subscription', 'create', '--book', slug, '--email', 'stranger@example.test', '--kind', 'digest').catch((e) => e);
    expect(notMember.code).toBe(1);
    expect(notMember.stderr).toContain('not a member');
    const noChat = await cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'digest', '--channel', 'telegram').catch((e) => e);
    expect(noChat.code).toBe(1);
    expect(noChat.stderr).toContain('Telegram');
    const noBook = await cli('subscription', 'create', '--book', 'no-such-book', '--email', 'fan@example.test', '--kind', 'digest').catch((e) => e);
    expect(noBook.code).toBe(1);
  });

  it('answers a usage error with exit code 2', async () => {
    await expect(cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test')).rejects.toMatchObject({ code: 2 });
    await expect(cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'weekly')).rejects.toMatchObject({ code: 2 });
    await expect(cli('subscription', 'create', '--book', slug, '--email', 'fan@example.test', '--kind', 'digest', '--channel', 'pigeon')).rejects.toMatchObject({ code: 2 });
  });
});
