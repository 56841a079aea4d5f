/**
 * A worker killed (SIGKILL) while it downloads a file sent over WhatsApp:
 * after a restart the fetch job runs again once its lease lapses, and the
 * memory ends with exactly one copy of the file (one media row, one stored
 * original); the partial object of the killed run is left only to the sweep.
 *
 * On PGlite the killed process held DATA_DIR: the restart reuses it, and the
 * test opens the database itself only while no server runs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, type Dirent } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { createDb, createPostgresDb, type Db } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createServices } from '../../../src/services/index.js';
import { TEST_SECRET } from '../../helpers/build-test-app.js';
import { bigFile } from '../../helpers/media-fixtures.js';
import { startProviderServer, type TestProviderServer } from '../../helpers/provider-server.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';
import { answer, until } from '../media/media-processes.js';
import { hubSignature, newPhone, WHATSAPP, whatsappEnv, whatsappPayload } from './webhook-helpers.js';
import { NoJobQueue } from '../../../src/jobs/no-job-queue.js';

const MB = 1_048_576;
const FILE_BYTES = 4 * MB;
/** Two server starts, a lease of 60 s to lapse and pg-boss's maintenance pass to notice it: slow by design. */
const SLOW_MS = 330_000;

describe(`a WhatsApp download cut off by SIGKILL (${TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  let database: TestDatabase | undefined;
  let provider: TestProviderServer;
  let dataDir: string;
  let file: string;
  let config: Config;
  let server: SpawnedServer | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-channel-crash-'));
    if (TEST_DATABASE_URL) database = await createTestDatabase();
    provider = await startProviderServer({ credentials: { whatsapp: { accessToken: WHATSAPP.accessToken } } });
    config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir });
    file = await bigFile('mp4', FILE_BYTES);
  }, SLOW_MS);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await provider?.close();
    await database?.drop();
    if (file) await rm(path.dirname(file), { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }, SLOW_MS);

  async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const db = TEST_DATABASE_URL ? await createPostgresDb(TEST_DATABASE_URL, { schema: database!.schema, pooler: TEST_DATABASE_POOLER }) : await createDb(config);
    if (!TEST_DATABASE_URL) await migrate(db);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }
  const start = () => spawnServer({ dataDir, ...(TEST_DATABASE_URL ? { schema: database!.schema! } : {}), env: whatsappEnv(provider.url) });
  /** Stored originals (the local store's files), and what lies in its staging folder. */
  async function stored() {
    const root = path.join(dataDir, 'objects');
    const all = (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) as Dirent[];
    const files = all.filter((d) => d.isFile()).map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'));
    return { originals: files.filter((k) => !k.startsWith('.') && k.endsWith('/original')).sort(), staging: files.filter((k) => k.startsWith('.staging/')) };
  }

  it('ends with exactly one copy of the file on the memory', async () => {
    const token = await withDb(async (db) => {
      const services = createServices({ config, db, queue: new NoJobQueue('this test') });
      const user = await services.users.createUser({ email: 'channel-crash@example.test', password: 'long enough pw' });
      await services.quotas.grantSlots(user.id, 'premium', 1);
      return (await services.tokens.issueToken(db, user.id, 'crash')).plaintext;
    });
    const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    server = await start();
    const book = await answer(await fetch(`${server.url}/api/v1/books/`, { method: 'POST', headers: { ...json, 'idempotency-key': randomUUID() }, body: JSON.stringify({ title: 'Crash', plan: 'premium' }) }));
    expect(book.status).toBe(201);
    const slug = book.json.slug as string;
    const phone = newPhone();
    const inv = await answer(
      await fetch(`${server.url}/api/v1/books/${slug}/invitations/`, { method: 'POST', headers: { ...json, 'idempotency-key': randomUUID() }, body: JSON.stringify({ identifier_type: 'phone', identifier: phone }) }),
    );
    expect(inv.status).toBe(201);

    // The provider sends the first MB, then holds the rest: the worker is mid-download when it dies.
    const mediaId = '4711';
    provider.files.set(mediaId, { body: readFileSync(file), contentType: 'video/mp4', stallAfter: 1 * MB });
    const body = JSON.stringify(whatsappPayload(phone, { type: 'video', video: { id: mediaId, mime_type: 'video/mp4', caption: 'The last dance' } }));
    const posted = await fetch(`${server.url}/webhooks/whatsapp/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, body });
    expect(posted.status).toBe(200);
    await provider.waitFor(1, (r) => r.path === `/whatsapp-media/${mediaId}`, 60_000);
    await until(stored, (s) => s.staging.length > 0, 60_000, 'the download streaming into the store');
    expect(await server.stop('SIGKILL')).toBe(null);
    expect((await stored()).originals).toEqual([]);

    // From now on the provider serves the whole file.
    provider.release();
    server = await start();
    const list = `${server.url}/api/v1/books/${slug}/submissions/`;
    const after = await until(
      async () => (await answer(await fetch(list, { headers: json }))).json,
      (b) => b.items?.[0]?.media?.length >= 1,
      SLOW_MS - 60_000,
      'the file attached after the restart',
    );
    expect(after.items).toHaveLength(1);
    expect(after.items[0]).toMatchObject({ text_content: 'The last dance', source: 'whatsapp' });
    expect(after.items[0].media).toHaveLength(1);
    expect(after.items[0].media[0]).toMatchObject({ kind: 'video', size_bytes: FILE_BYTES });
    // Give a second run (if any) time to show itself before the server stops.
    await new Promise((r) => setTimeout(r, 2000));
    expect((await answer(await fetch(list, { headers: json }))).json.items[0].media).toHaveLength(1);
    expect(await server.stop()).toBe(0);
    server = undefined;

    await withDb(async (db) => {
      expect(await db.query<any>(`SELECT status, reply_to FROM inbound_media`)).toEqual([{ status: 'attached', reply_to: null }]);
      expect((await db.query<any>(`SELECT count(*)::int AS n FROM media`))[0].n).toBe(1);
      // The killed run's partial object is the sweep's: removed, and one original stays.
      const services = createServices({ config, db, queue: new NoJobQueue('this test') });
      try {
        await services.media.sweepPendingObjects(0);
      } finally {
        await services.store.close();
      }
      expect(await db.query(`SELECT key FROM pending_objects`)).toEqual([]);
    });
    const left = await stored();
    expect(left.originals).toHaveLength(1);
    expect(left.staging).toEqual([]);
    // Two downloads in all: the one cut off, and the one that completed.
    expect(provider.received.filter((r) => r.path === `/whatsapp-media/${mediaId}`)).toHaveLength(2);
  }, SLOW_MS);
});
