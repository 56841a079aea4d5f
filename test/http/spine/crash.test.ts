/**
 * Idempotency across a crash: a real server process is killed with SIGKILL
 * while many writes with distinct keys are in flight, restarted on the same
 * database, and every key is retried at once. No key may make two rows, no
 * acknowledged write may be missing, and every retry must settle at once
 * (no key left "in use" by the dead process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createDb, createPostgresDb, type Db } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createServices } from '../../../src/services/index.js';
import { TEST_SECRET } from '../../helpers/build-test-app.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';
import { NoJobQueue } from '../../../src/jobs/no-job-queue.js';

const WRITES = 160;
const SERVER_ENV = { SUBMISSION_RATE_LIMIT: '1000000', DATABASE_POOL_SIZE: '8' };

interface Write {
  key: string;
  kind: 'book' | 'submission';
  url: string;
  body: string;
  /** What the first attempt was answered, if it was before the kill. */
  acked?: { status: number; id: string };
}

let database: TestDatabase | undefined;
let dataDir: string;

/** The database the spawned servers use, opened by the test itself (PGlite only while no server runs). */
async function openDb(): Promise<Db> {
  if (TEST_DATABASE_URL) return createPostgresDb(TEST_DATABASE_URL, { schema: database!.schema, pooler: TEST_DATABASE_POOLER });
  const config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir });
  const db = await createDb(config);
  await migrate(db);
  return db;
}

const serverOptions = () => (TEST_DATABASE_URL ? { schema: database!.schema!, env: SERVER_ENV } : { dataDir, env: SERVER_ENV });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-crash-'));
  if (TEST_DATABASE_URL) database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function send(baseUrl: string, token: string, w: Write): Promise<{ status: number; id: string; replayed: boolean }> {
  const res = await fetch(`${baseUrl}${w.url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': w.key },
    body: w.body,
  });
  const json = (await res.json()) as { slug?: string; id?: string };
  return { status: res.status, id: String(json.id ?? json.slug), replayed: res.headers.get('idempotent-replayed') === 'true' };
}

describe(`a server killed with SIGKILL mid-write (${TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, () => {
  it('loses no acknowledged write, doubles none, and frees every key at once', async () => {
    // The caller, set up before any server opens the database.
    const setupDb = await openDb();
    const services = createServices({ config: loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir }), db: setupDb, queue: new NoJobQueue('this test') });
    const user = await services.users.createUser({ email: 'crash@example.test', password: 'long enough pw' });
    const { plaintext: token } = await services.tokens.issueToken(setupDb, user.id, 'crash');
    await services.quotas.grantSlots(user.id, 'plus', 1);
    await setupDb.close();

    let server: SpawnedServer = await spawnServer(serverOptions());
    const book = await send(server.url, token, { key: crypto.randomUUID(), kind: 'book', url: '/api/v1/books/', body: JSON.stringify({ title: 'Crash book', plan: 'plus' }) });
    expect(book.status).toBe(201);
    const writes: Write[] = Array.from({ length: WRITES }, (_, i) => {
      const key = crypto.randomUUID();
      return i % 2
        ? { key, kind: 'book', url: '/api/v1/books/', body: JSON.stringify({ title: `Crash ${key}` }) }
        : { key, kind: 'submission', url: `/api/v1/books/${book.id}/submissions/`, body: JSON.stringify({ text_content: `Crash ${key}` }) };
    });

    // Everything at once; the kill comes once a quarter has been answered.
    let answered = 0;
    const killAt = WRITES / 4;
    let killed: Promise<number | null> | undefined;
    await Promise.allSettled(
      writes.map(async (w) => {
        const r = await send(server.url, token, w);
        if (killed) return; // answered after the kill was decided: not counted as acknowledged
        w.acked = r;
        if (++answered >= killAt) killed ??= server.stop('SIGKILL');
      }),
    );
    await killed;
    const acked = writes.filter((w) => w.acked);
    expect(acked.length).toBeGreaterThanOrEqual(killAt);
    expect(acked.length).toBeLessThan(WRITES);
    for (const w of acked) expect(w.acked!.status).toBe(201);

    // Restart on the same database and retry every key straight away.
    server = await spawnServer(serverOptions());
    const started = Date.now();
    const retries = await Promise.all(writes.map((w) => send(server.url, token, w)));
    const settledMs = Date.now() - started;
    expect(retries.map((r) => r.status)).toEqual(writes.map(() => 201));
    expect(settledMs).toBeLessThan(15_000);
    writes.forEach((w, i) => {
      // An acknowledged write is replayed: same row, marked as a replay.
      if (w.acked) expect(retries[i]).toEqual({ status: 201, id: w.acked.id, replayed: true });
    });
    expect(await server.stop()).toBe(0);

    // Exactly one row per key, whether its first attempt committed or not.
    const db = await openDb();
    try {
      const books = await db.query<{ title: string; n: number }>(`SELECT title, count(*)::int AS n FROM books WHERE title LIKE 'Crash %-%' GROUP BY title`);
      const memories = await db.query<{ text_content: string; n: number }>(
        `SELECT text_content, count(*)::int AS n FROM submissions WHERE text_content LIKE 'Crash %' GROUP BY text_content`,
      );
      const rows = new Map<string, number>([...books.map((b) => [b.title, b.n] as const), ...memories.map((m) => [m.text_content, m.n] as const)]);
      for (const w of writes) expect(rows.get(`Crash ${w.key}`), w.key).toBe(1);
      const replayedUnacked = retries.filter((r, i) => r.replayed && !writes[i].acked).length;
      console.log(
        `crash test (${db.kind}): ${WRITES} writes, ${acked.length} acknowledged before the kill, ` +
          `${replayedUnacked} more had committed unacknowledged (replayed), ${WRITES - acked.length - replayedUnacked} ran on retry; ` +
          `all ${WRITES} retries settled in ${settledMs} ms; duplicates: 0`,
      );
    } finally {
      await db.close();
    }
  });
});
