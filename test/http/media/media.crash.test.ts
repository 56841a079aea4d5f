/**
 * An upload cut off by a crash: a real server process is killed (SIGKILL)
 * while a video streams into the store. After a restart nothing of the
 * upload shows (no media row, the submission unchanged) while its object is
 * still recorded in pending_objects; the sweep removes what was stored and
 * the entry. A retry with the same Idempotency-Key and the whole file then
 * runs once (201) and is replayed after (same id): one media row, one object.
 *
 * On PGlite the killed process held DATA_DIR: the restart reuses it, and the
 * test opens the database itself only while no server runs.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync, type Dirent } from 'node:fs';
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
import { startS3Server, type TestS3Server } from '../../helpers/s3-server.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';
import { mediaPath, STORES, type StoreKind } from './media-setup.js';
import { answer, startPartialUpload, storeEnv, until, uploadFile } from './media-processes.js';
import { NoJobQueue } from '../../../src/jobs/no-job-queue.js';

const MB = 1_048_576;
/** The file, and how much of it is sent before the kill: past the S3 store's first 5 MiB part, so S3 has a multipart upload open too. */
const FILE_BYTES = 12 * MB;
const SENT_BEFORE_KILL = 7 * MB;
/** Three server starts (PGlite: each opens the data directory) and two database openings; slow on a busy machine. */
const SLOW_MS = 300_000;

describe.each(STORES)(`an upload cut off by SIGKILL on the %s store (${TEST_DATABASE_URL ? 'postgres' : 'pglite'})`, (store: StoreKind) => {
  let database: TestDatabase | undefined;
  let s3: TestS3Server | undefined;
  let s3Client: S3Client | undefined;
  let dataDir: string;
  let file: string;
  let config: Config;
  let server: SpawnedServer | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-media-crash-'));
    if (TEST_DATABASE_URL) database = await createTestDatabase();
    if (store === 's3') {
      s3 = await startS3Server();
      s3Client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    }
    config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir, ...(s3?.env ?? {}) });
    file = await bigFile('mp4', FILE_BYTES);
  }, SLOW_MS);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
    s3Client?.destroy();
    await s3?.close();
    if (file) await rm(path.dirname(file), { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }, SLOW_MS);

  /** The servers' database, opened by the test (on PGlite only while no server runs). */
  async function openDb(): Promise<Db> {
    if (TEST_DATABASE_URL) return createPostgresDb(TEST_DATABASE_URL, { schema: database!.schema, pooler: TEST_DATABASE_POOLER });
    const db = await createDb(config);
    await migrate(db);
    return db;
  }
  async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const db = await openDb();
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }
  const start = () =>
    spawnServer({ dataDir, ...(TEST_DATABASE_URL ? { schema: database!.schema! } : {}), env: { ...storeEnv(config.storage), SUBMISSION_RATE_LIMIT: '1000' } });

  /** Every object in the store; for the local store also what lies in its staging folder. */
  async function stored(): Promise<{ objects: string[]; staging: string[] }> {
    if (s3Client) {
      const out = await s3Client.send(new ListObjectsV2Command({ Bucket: s3!.bucket }));
      return { objects: (out.Contents ?? []).map((c) => c.Key!).sort(), staging: await openMultipartUploads() };
    }
    const root = path.join(dataDir, 'objects');
    const all = (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) as Dirent[];
    const files = all.filter((d) => d.isFile()).map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'));
    return { objects: files.filter((k) => !k.startsWith('.')).sort(), staging: files.filter((k) => k.startsWith('.staging/')).sort() };
  }
  /** S3 multipart uploads begun and neither completed nor aborted (the test server lists them). */
  async function openMultipartUploads(): Promise<string[]> {
    const res = await fetch(`${s3!.endpoint}/${s3!.bucket}?uploads`);
    return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]).sort();
  }

  it('shows nothing of it after a restart, the sweep removes its bytes, and a retry with the same key runs once', async () => {
    // The caller, set up before any server opens the database.
    const token = await withDb(async (db) => {
      const services = createServices({ config, db, queue: new NoJobQueue('this test') });
      const user = await services.users.createUser({ email: `crash-${store}@example.test`, password: 'long enough pw' });
      await services.quotas.grantSlots(user.id, 'premium', 1);
      return (await services.tokens.issueToken(db, user.id, 'crash')).plaintext;
    });
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };

    server = await start();
    const book = await answer(
      await fetch(`${server.url}/api/v1/books/`, { method: 'POST', headers: { ...json, 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify({ title: 'Crash', plan: 'premium' }) }),
    );
    expect(book.status).toBe(201);
    const slug = book.json.slug as string;
    const created = await answer(
      await fetch(`${server.url}/api/v1/books/${slug}/submissions/`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ text_content: 'Before the crash' }),
      }),
    );
    expect(created.status).toBe(201);
    const subPath = `/api/v1/books/${slug}/submissions/${created.json.id}/`;
    const before = await answer(await fetch(`${server.url}${subPath}`, { headers: auth }));
    expect(before.json.media).toEqual([]);
    const uploadPath = mediaPath(slug, created.json.id);

    // Headers and the first 7 MB of 12; then the process dies while the object is being written.
    const key = crypto.randomUUID();
    const partial = await startPartialUpload(server.url, uploadPath, token, file, { key, sendBytes: SENT_BEFORE_KILL, filename: 'clip.mp4', contentType: 'video/mp4' });
    expect(partial.sent).toBe(SENT_BEFORE_KILL);
    if (TEST_DATABASE_URL) {
      await withDb((db) => until(() => db.query(`SELECT key FROM pending_objects`), (rows) => rows.length === 1, 60_000, 'the pending_objects row'));
    }
    // The row is committed before the first byte goes to the store: bytes in the store mean the row is in.
    await until(stored, (s) => s.staging.length > 0, 60_000, 'the upload streaming into the store');
    expect(partial.received()).toBe(''); // not answered: still reading the body
    expect(await server.stop('SIGKILL')).toBe(null);
    partial.close();
    const leftover = await stored();
    expect(leftover.objects).toEqual([]);

    // Restarted on the same database and DATA_DIR: nothing of the upload is visible.
    server = await start();
    const after = await answer(await fetch(`${server.url}${subPath}`, { headers: auth }));
    expect(after.status).toBe(200);
    expect(after.json.media).toEqual([]);
    expect(after.json.etag).toBe(before.json.etag);
    expect(after.json.updated_at).toBe(before.json.updated_at);
    expect(after.json.status).toBe(before.json.status);

    // Its object is still recorded; the sweep (through the services, on the same database and store) removes it and the entry.
    if (!TEST_DATABASE_URL) expect(await server.stop()).toBe(0);
    const pendingKey = await withDb(async (db) => {
      const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media`);
      expect(n).toBe(0);
      const pending = await db.query<{ key: string }>(`SELECT key FROM pending_objects`);
      expect(pending).toHaveLength(1);
      const [{ id: bookId }] = await db.query<{ id: string }>(`SELECT id FROM books WHERE slug = $1`, [slug]);
      expect(pending[0].key).toMatch(new RegExp(`^media/${bookId}/[0-9a-f-]{36}/original$`));
      const [{ storage_used_bytes }] = await db.query<{ storage_used_bytes: string }>(`SELECT storage_used_bytes FROM books WHERE id = $1`, [bookId]);
      expect(Number(storage_used_bytes)).toBe(0);

      const services = createServices({ config, db, queue: new NoJobQueue('this test') });
      try {
        expect(await services.media.sweepPendingObjects(0)).toBe(1);
      } finally {
        await services.store.close();
      }
      expect(await db.query(`SELECT key FROM pending_objects`)).toEqual([]);
      return pending[0].key;
    });
    const swept = await stored();
    expect(swept.objects).toEqual([]);
    if (store === 'local') {
      // No file under DATA_DIR/objects for it: the partial bytes in the staging folder are gone too.
      expect(swept.staging).toEqual([]);
    } else if (swept.staging.length) {
      // S3 never shows a partial object; the parts of the cut-off multipart upload are the bucket's
      // lifecycle rule's to abort (README, Media), unless the sweep aborts them itself.
      console.log(`media.crash (s3): ${swept.staging.length} multipart upload(s) still open after the sweep, left to the bucket's lifecycle rule`);
    }
    if (!TEST_DATABASE_URL) server = await start();

    // The retry with the same key and the whole file runs once; a second retry replays it.
    const first = await uploadFile(server.url, uploadPath, token, file, { key, filename: 'clip.mp4', contentType: 'video/mp4' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.json).toMatchObject({ kind: 'video', mime_type: 'video/mp4', size_bytes: FILE_BYTES });
    const second = await uploadFile(server.url, uploadPath, token, file, { key, filename: 'clip.mp4', contentType: 'video/mp4' });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.json.id).toBe(first.json.id);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    // The replay's own copy is discarded just after its answer is sent: let that finish before the server stops.
    await until(stored, (s) => s.objects.length === 1 && s.staging.length === swept.staging.length, 60_000, "the replay's copy discarded");
    if (TEST_DATABASE_URL) await withDb((db) => until(() => db.query(`SELECT key FROM pending_objects`), (r) => r.length === 0, 60_000, 'its entry forgotten'));
    else await new Promise((r) => setTimeout(r, 500)); // (PGlite: the database cannot be looked into while the server runs)
    expect(await server.stop()).toBe(0);
    server = undefined;

    await withDb(async (db) => {
      const rows = await db.query<{ id: string; storage_key: string; size_bytes: string }>(`SELECT id, storage_key, size_bytes FROM media`);
      expect(rows).toHaveLength(1);
      expect(rows[0].id).toBe(first.json.id);
      expect(rows[0].storage_key).not.toBe(pendingKey);
      expect(Number(rows[0].size_bytes)).toBe(FILE_BYTES);
      expect(await db.query(`SELECT key FROM pending_objects`)).toEqual([]);
      // The replay's own copy was discarded: one object, the row's (a poster frame never comes of this filler "video").
      const now = await stored();
      expect(now.objects).toEqual([rows[0].storage_key]);
      expect(now.staging).toEqual(swept.staging); // nothing more than the sweep left
    });
  }, SLOW_MS);
});
