/**
 * A message the receiver answered 250 is never lost nor stored twice: a real
 * `serve` process with its SMTP receiver is killed (SIGKILL) right after it
 * accepted a message, whether or not its worker had processed it by then. The
 * restarted server makes exactly one memory of it, and the same message sent
 * again (a sender that never saw the 250) is answered 250 and changes nothing.
 *
 * On PGlite the killed process held DATA_DIR: the restart reuses it, and the
 * test opens the database itself only while no server runs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createDb, createPostgresDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { queueSchemaName } from '../../src/jobs/queue.js';
import { createServices } from '../../src/services/index.js';
import { TEST_SECRET } from '../helpers/build-test-app.js';
import { freePort, spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase, TEST_DATABASE_POOLER } from '../helpers/test-db.js';
import { NoJobQueue } from '../../src/jobs/no-job-queue.js';

const SLOW_MS = 300_000;

describe(`a message accepted over SMTP by a server killed at once (${TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  let database: TestDatabase | undefined;
  let dataDir: string;
  let config: Config;
  let server: SpawnedServer | undefined;
  let seeded: { slug: string; apiKey: string };

  async function openDb(): Promise<Db> {
    if (TEST_DATABASE_URL) return createPostgresDb(TEST_DATABASE_URL, { schema: database!.schema, pooler: TEST_DATABASE_POOLER });
    const db = await createDb(config);
    await migrate(db);
    return db;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-mail-crash-'));
    if (TEST_DATABASE_URL) database = await createTestDatabase();
    config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir });
    const db = await openDb();
    try {
      const services = createServices({ config, db, queue: new NoJobQueue('this test') });
      const user = await services.users.createUser({ email: `owner-${randomUUID().slice(0, 6)}@example.test`, password: 'correct horse battery staple', firstName: 'O', lastName: 'Wner' });
      await services.quotas.grantSlots(user.id, 'premium', 1);
      const { plaintext } = await services.tokens.issueToken(db, user.id, 'test');
      const book = await db.transaction((tx) => services.books.createBook(tx, { id: user.id, email: user.email }, { title: 'The lake', plan: 'premium' }));
      seeded = { slug: book.slug, apiKey: plaintext };
    } finally {
      await db.close();
    }
  }, SLOW_MS);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, SLOW_MS);

  it('makes exactly one memory of it after the restart, and the same message again changes nothing', async () => {
    const smtpPort = await freePort();
    const start = async () => {
      const s = await spawnServer({ dataDir, ...(TEST_DATABASE_URL ? { schema: database!.schema! } : {}), env: { SMTP_INBOUND_PORT: String(smtpPort) } });
      // The receiver starts right after the HTTP listener.
      for (let deadline = Date.now() + 30_000; ; ) {
        if (await nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true }).verify().catch(() => false)) return s;
        if (Date.now() > deadline) throw new Error('the SMTP receiver did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    server = await start();
    // Mailed at the address its owner is shown.
    const channels = await fetch(`${server.url}/api/v1/books/${seeded.slug}/channels/`, { headers: { authorization: `Bearer ${seeded.apiKey}` } });
    const to = ((await channels.json()) as { items: { channel: string; address: string }[] }).items.find((r) => r.channel === 'email')!.address;
    expect(to).toBe(`${seeded.slug}@localhost`);
    const message = {
      from: 'Ann <ann@localhost>',
      to,
      subject: 'The dock',
      text: 'We jumped off the dock every morning.',
      messageId: `<${randomUUID()}@localhost>`,
    };
    const send = () => nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true }).sendMail(message);

    expect((await send()).response).toMatch(/^250 /);
    await server.stop('SIGKILL');

    // Accepted means kept: the message is recorded (and still spooled unless its memory was made before the kill).
    // A job the dead worker had begun runs again once its lease lapses (5 minutes): sped up here.
    const db = await openDb();
    try {
      const rows = await db.query<{ outcome: string; spool_key: string | null }>(`SELECT outcome, spool_key FROM inbound_emails`);
      expect(rows).toHaveLength(1);
      expect(['queued', 'submitted']).toContain(rows[0].outcome);
      await db.query(`UPDATE ${queueSchemaName(database?.schema)}.job SET expire_in = interval '1 second' WHERE name = 'email.process' AND state = 'active'`);
    } finally {
      await db.close();
    }

    server = await start();
    expect((await send()).response).toMatch(/^250 .*already received/);
    const list = async () =>
      (await (await fetch(`${server!.url}/api/v1/books/${seeded.slug}/submissions/`, { headers: { authorization: `Bearer ${seeded.apiKey}` } })).json()) as { items: { text_content: string; source: string }[] };
    for (let deadline = Date.now() + 150_000; (await list()).items.length === 0; ) {
      if (Date.now() > deadline) throw new Error('no memory after the restart');
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const { items } = await list();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ source: 'email', text_content: 'We jumped off the dock every morning.' });
    await server.stop('SIGTERM');
    server = undefined;
  }, SLOW_MS);
});
