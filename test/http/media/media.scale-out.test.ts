/**
 * Media with the API and the job worker scaled apart: two API processes
 * started with `serve --no-worker` and one `memorybook worker` process, all
 * on one PostgreSQL schema and one S3 bucket (a real s3rver). An upload
 * through one API process is read through the other, processed by the
 * worker, downloaded through its presigned URLs, and deleted, the worker
 * removing its objects from the bucket.
 *
 * PostgreSQL only: the embedded database belongs to one process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { FIXTURES, fixture, readFixture } from '../../helpers/media-fixtures.js';
import { createResponseValidator } from '../../helpers/openapi-validator.js';
import { TEST_DATABASE_URL } from '../../helpers/test-db.js';
import { buildMediaApp, mediaPath, type MediaTestApp } from './media-setup.js';
import { answer, runMemorybook, spawnMemorybook, storeEnv, until, uploadFile, type HttpAnswer, type MemorybookProcess } from './media-processes.js';

/** Several processes start here; on a busy machine that takes a while. */
const SLOW_MS = 240_000;

describe('serve --no-worker', () => {
  it('is refused on the embedded database, where no other process could run the jobs', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-noworker-'));
    try {
      const r = await runMemorybook(['serve', '--no-worker'], { DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0' });
      expect(r.code).toBe(2);
      expect(r.output).toContain('serve --no-worker needs DATABASE_URL');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

if (!TEST_DATABASE_URL) {
  console.log('media.scale-out: skipped on PGlite (set TEST_DATABASE_URL): API and worker processes can share only a PostgreSQL database');
}

describe.skipIf(!TEST_DATABASE_URL)('media scaled out: two API processes without a worker, one worker process, PostgreSQL and S3 (skipped without TEST_DATABASE_URL)', () => {
  let t: MediaTestApp;
  let owner: TestUser;
  let a: MemorybookProcess;
  let b: MemorybookProcess;
  let worker: MemorybookProcess | undefined;
  let validate: ReturnType<typeof createResponseValidator>;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The app in the test process is only for setting up (factories) and looking into the bucket; its queue does not work jobs.
    t = await buildMediaApp('s3', { worker: false });
    owner = await newUser(t);
    env = { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: t.database.schema!, DATA_DIR: t.config.dataDir, ...storeEnv(t.config.storage) };
    [a, b] = await Promise.all([spawnMemorybook(['serve', '--no-worker'], env), spawnMemorybook(['serve', '--no-worker'], env)]);
    validate = createResponseValidator(await (await fetch(`${a.url}/api/v1/openapi.json`)).json());
    await fixture('mp4');
  }, SLOW_MS);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), worker?.stop()]);
    await t?.close();
  }, SLOW_MS);

  /** A request to one process, its answer checked against the served OpenAPI document. */
  async function call(p: MemorybookProcess, method: string, urlPath: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const res = await answer(await fetch(`${p.url}${urlPath}`, { method, headers: { authorization: `Bearer ${owner.token}`, ...headers } }));
    checked(method, urlPath, res);
    return res;
  }
  function checked(method: string, urlPath: string, res: HttpAnswer) {
    const problems = validate(method, urlPath, res.status, res.headers.get('content-type') ?? undefined, res.text, Object.fromEntries(res.headers));
    if (problems.length) throw new Error(`${method} ${urlPath} → ${res.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}`);
  }

  it('uploads through A, reads through B, the worker process processes it, presigned URLs serve it, a delete through B empties the bucket', async () => {
    const book = await newBook(t, owner, { plan: 'premium' });
    const sub = await newSubmission(t, book.slug, owner);
    const mp4 = await readFixture('mp4');

    const created = await uploadFile(a.url!, mediaPath(book.slug, sub.id), owner.token, await fixture('mp4'), { filename: 'clip.mp4', contentType: 'video/mp4' });
    checked('POST', mediaPath(book.slug, sub.id), created);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: 'video', mime_type: 'video/mp4', size_bytes: mp4.length, processing_status: 'pending' });
    const location = created.headers.get('location')!;
    expect(location).toBe(`${mediaPath(book.slug, sub.id)}${created.json.id}/`);
    const [row] = await t.db.query<{ storage_key: string }>(`SELECT storage_key FROM media WHERE id = $1`, [created.json.id]);
    expect(await t.storedKeys()).toEqual([row.storage_key]);

    // The other API process sees it at once; neither API process works jobs, so it stays pending until a worker runs.
    const early = await call(b, 'GET', location);
    expect(early.status).toBe(200);
    expect(early.json).toMatchObject({ id: created.json.id, processing_status: 'pending', thumbnail_url: null, width: null, height: null });
    await new Promise((r) => setTimeout(r, 3000));
    expect((await call(b, 'GET', location)).json.processing_status).toBe('pending');

    worker = await spawnMemorybook(['worker'], env);
    const done = await until(
      () => call(b, 'GET', location),
      (r) => r.status === 200 && ['complete', 'failed'].includes(r.json.processing_status),
      120_000,
      'processing by the worker process',
    );
    expect(done.json).toMatchObject({ processing_status: 'complete', width: FIXTURES.mp4.width, height: FIXTURES.mp4.height, download_status: 'available' });
    expect(done.json.duration_seconds).toBeCloseTo(FIXTURES.mp4.durationSeconds, 0);
    expect(done.json.thumbnail_url).toEqual(expect.any(String));
    const [processedRow] = await t.db.query<{ thumbnail_key: string }>(`SELECT thumbnail_key FROM media WHERE id = $1`, [created.json.id]);
    expect(processedRow.thumbnail_key).toEqual(expect.any(String));
    expect(await t.storedKeys()).toEqual([row.storage_key, processedRow.thumbnail_key].sort());

    // The presigned URLs, fetched from the bucket for real.
    expect(done.json.download_url.startsWith(t.config.storage.s3!.endpoint!)).toBe(true);
    const file = await fetch(done.json.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.compare(Buffer.from(await file.arrayBuffer()), mp4)).toBe(0);
    const poster = await fetch(done.json.thumbnail_url);
    expect(poster.status).toBe(200);
    const meta = await sharp(Buffer.from(await poster.arrayBuffer())).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.width, meta.height]).toEqual([FIXTURES.mp4.width, FIXTURES.mp4.height]);

    // Delete through B: gone for A at once, and the worker process removes both objects from the bucket.
    const key = crypto.randomUUID();
    const deleted = await call(b, 'DELETE', location, { 'idempotency-key': key });
    expect(deleted.status).toBe(204);
    expect((await call(a, 'GET', location)).status).toBe(404);
    const replay = await call(a, 'DELETE', location, { 'idempotency-key': key });
    expect(replay.status).toBe(204);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await until(() => t.storedKeys(), (keys) => keys.length === 0, 60_000, 'the bucket emptied by the worker process');
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media WHERE submission_id = $1`, [sub.id]);
    expect(n).toBe(0);
    const [{ storage_used_bytes }] = await t.db.query<{ storage_used_bytes: string }>(`SELECT storage_used_bytes FROM books WHERE slug = $1`, [book.slug]);
    expect(Number(storage_used_bytes)).toBe(0);
    // Both jobs ran in the worker process (it logs a job's completion once recorded, just after its effect), without a failure.
    const completed = (job: string) => worker!.output().split('\n').some((l) => l.includes('"msg":"job completed"') && l.includes(`"job":"${job}"`));
    await until(async () => ['media.process', 'storage.delete-objects'].filter(completed), (done) => done.length === 2, 30_000, 'both jobs completed by the worker process');
    expect(worker.output()).not.toMatch(/"level":(50|60)/);
  }, SLOW_MS);
});
