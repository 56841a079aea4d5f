/**
 * A deletion cut off while the backup endpoint is still answering: the
 * server is killed with SIGKILL between the deletion's recovery point and
 * its answer. Nothing of the request's own transaction ever opened, so
 * nothing is half written; the recovery point (deletion requested, erasure
 * job queued) is committed, so after a restart the queue finishes the
 * deletion the owner asked for, and the endpoint is asked again.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createDb, createPostgresDb, type Db } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createServices } from '../../../src/services/index.js';
import { TEST_SECRET } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';
import { NoJobQueue } from '../../../src/jobs/no-job-queue.js';

let database: TestDatabase | undefined;
let dataDir: string;
let endpoint: http.Server;
let answering = false;
let arrived: (() => void) | undefined;
const calls: string[] = [];

async function openDb(): Promise<Db> {
  if (TEST_DATABASE_URL) return createPostgresDb(TEST_DATABASE_URL, { schema: database!.schema, pooler: TEST_DATABASE_POOLER });
  const db = await createDb(loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir }));
  await migrate(db);
  return db;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-delete-crash-'));
  if (TEST_DATABASE_URL) database = await createTestDatabase();
  endpoint = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      calls.push(body);
      arrived?.();
      // Until the test says so the endpoint never answers (the eraser gives up after 5 s).
      if (answering) res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  endpoint.closeAllConnections();
  await new Promise((r) => endpoint.close(r));
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`DELETE /books/{slug}/ killed while the backup endpoint answers (${TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  it('leaves the deletion requested and queued; after a restart the queue erases and deletes the book', { timeout: 120_000 }, async () => {
    const setupDb = await openDb();
    const services = createServices({ config: loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir }), db: setupDb, queue: new NoJobQueue('this test') });
    const user = await services.users.createUser({ email: 'delete-crash@example.test', password: 'long enough pw' });
    const { plaintext: token } = await services.tokens.issueToken(setupDb, user.id, 'crash');
    const book = await setupDb.transaction((tx) => services.books.createBook(tx, user, { title: 'Cut off' }));
    await setupDb.close();

    const { port } = endpoint.address() as { port: number };
    const options = {
      ...(TEST_DATABASE_URL ? { schema: database!.schema! } : { dataDir }),
      env: { BACKUP_ERASURE_URL: `http://127.0.0.1:${port}/erase`, BACKUP_ERASURE_RETRY_SECONDS: '1' },
    };
    let server: SpawnedServer = await spawnServer(options);
    const waiting = new Promise<void>((r) => (arrived = r));
    const deletion = fetch(`${server.url}/api/v1/books/${book.slug}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': crypto.randomUUID() },
    }).catch((err: unknown) => err);
    await waiting;
    await server.stop('SIGKILL');
    expect(await deletion).toBeInstanceOf(Error); // the client never got an answer

    // What the dead request left: the deletion requested and its erasure job queued, the book itself untouched.
    const db = await openDb();
    const [row] = await db.query<{ deleted_at: string | null; deletion_requested_at: string | null }>(
      `SELECT deleted_at, deletion_requested_at FROM books WHERE slug = $1`,
      [book.slug],
    );
    expect(row.deleted_at).toBeNull();
    expect(row.deletion_requested_at).not.toBeNull();
    await db.close();

    answering = true;
    server = await spawnServer(options);
    try {
      const gone = async () => (await fetch(`${server.url}/api/v1/books/${book.slug}/`, { headers: { authorization: `Bearer ${token}` } })).status === 404;
      await eventually(gone, Boolean, 60_000);
      expect(calls.length).toBeGreaterThanOrEqual(2); // asked again by the queue
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
