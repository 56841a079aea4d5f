/**
 * An operator's bad day, under keyed load: the service's own PostgreSQL is
 * killed (kill -9 of the postmaster) and restarted, then stopped (pg_ctl
 * stop -m fast) for a while and started again; the object store (s3rver)
 * stops answering and comes back. Every answer given meanwhile is 503 with
 * Retry-After and the error envelope (checked against the served OpenAPI
 * document), nothing is logged at error (no "unhandled error"), the outages
 * are logged at warn naming the dependency and counted in /metrics per
 * dependency, and every create retried with its key is done exactly once.
 *
 * The database here is a private cluster (test/helpers/private-postgres.ts):
 * the shared test server is never stopped. The same test runs in both runs
 * of the suite (it needs PostgreSQL's binaries, not TEST_DATABASE_URL).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/config.js';
import { createPostgresDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createQueue, type Queue } from '../../src/jobs/queue.js';
import { createServices, type Services } from '../../src/services/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import type { FastifyInstance } from 'fastify';
import { testConfig, type TestApp } from '../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../helpers/factories.js';
import { readFixture } from '../helpers/media-fixtures.js';
import { multipart } from '../helpers/multipart.js';
import { createResponseValidator } from '../helpers/openapi-validator.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

const HAS_POSTGRES = existsSync('/usr/lib/postgresql/15/bin/initdb') || !!process.env.PG_BIN;

interface Answer {
  at: number;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

let cluster: PrivatePostgres;
let s3: TestS3Server;
let config: Config;
let db: Db;
let queue: Queue;
let services: Services;
let app: FastifyInstance;
let validate: ReturnType<typeof createResponseValidator>;
const logs: { level: number; msg: string; dependency?: string }[] = [];
const problems: string[] = [];
let owner: TestUser;
let slug: string;

async function send(method: string, url: string, o: { token?: string; body?: unknown; payload?: Buffer; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let payload: string | Buffer | undefined = o.payload;
  if (o.body !== undefined) {
    payload = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.inject({ method: method as 'GET', url, headers, payload });
  const found = validate(method, url, res.statusCode, res.headers['content-type'] as string | undefined, res.body, res.headers);
  if (found.length) problems.push(`${method} ${url} → ${res.statusCode}: ${found.join('; ')}`);
  const body = String(res.headers['content-type'] ?? '').includes('json') && res.body ? JSON.parse(res.body) : res.body;
  return { at: Date.now(), status: res.statusCode, headers: res.headers as Answer['headers'], body };
}

/** A 503 as a client should see it in an outage: Retry-After, the envelope, the request id. */
function expectOutageAnswer(a: Answer) {
  expect(a.status).toBe(503);
  expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
  expect(a.body).toMatchObject({ code: 'service_unavailable', message: expect.any(String), details: null, request_id: a.headers['x-request-id'] });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(HAS_POSTGRES)('dependencies down: 503 with Retry-After, never 500; keyed creates done once', () => {
  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    s3 = await startS3Server();
    config = testConfig({ DATABASE_URL: cluster.url, SUBMISSION_RATE_LIMIT: '100000', METRICS_TOKEN: 'outage-metrics-token', ...s3.env });
    db = createPostgresDb(cluster.url, { poolSize: 6 });
    await migrate(db);
    const quiet = { level: 'silent' } as never;
    queue = createQueue({ db, config, pollIntervalMs: 200, log: (await import('pino')).default(quiet) });
    const store = createObjectStore(config);
    services = createServices({ config, db, queue, store });
    await queue.start();
    app = await buildApp(
      { config, db, queue, services },
      { logger: { level: 'info', stream: { write: (line: string) => void logs.push(JSON.parse(line)) } } },
    );
    await app.ready();
    validate = createResponseValidator((await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json());
    const t = { db, config, services, post: (url: string, body: unknown, o: { token: string }) => send('POST', url, { body, token: o.token, headers: { 'idempotency-key': randomUUID() } }) } as unknown as TestApp;
    owner = await newUser(t);
    slug = (await newBook(t, owner, { plan: 'premium' })).slug;
  }, 120_000);

  afterAll(async () => {
    await app?.close().catch(() => {});
    await queue?.stop({ timeoutMs: 2000 }).catch(() => {});
    await services?.store.close().catch(() => {});
    await db?.close().catch(() => {});
    await cluster?.close();
    await s3?.close().catch(() => {});
    if (config) rmSync(config.dataDir, { recursive: true, force: true });
  });

  it('PostgreSQL killed, then stopped: every answer meanwhile is 503 + Retry-After + envelope; every keyed create is done once', async () => {
    const base = `/api/v1/books/${slug}/submissions/`;
    const answers: Answer[] = [];
    const finals = new Map<string, Answer>();
    let running = true;

    // Keyed clients: each sends creates one after another, retrying each with its key (after Retry-After, shortened) until it is answered 201.
    const client = async (n: number) => {
      for (let i = 0; running; i++) {
        const key = `outage-${n}-${i}-${randomUUID().slice(0, 8)}`;
        for (;;) {
          const a = await send('POST', base, { token: owner.token, body: { text_content: `memory ${key}` }, headers: { 'idempotency-key': key } });
          answers.push(a);
          if (a.status === 201) {
            finals.set(key, a);
            break;
          }
          await sleep(Math.min(Number(a.headers['retry-after']) || 1, 1) * 200);
        }
      }
    };
    const clients = Promise.all([0, 1, 2, 3].map(client));

    await sleep(1500);
    const killedAt = Date.now();
    await cluster.kill();
    await sleep(3000);
    await cluster.start();
    const backAt = Date.now();
    await sleep(2000);
    const stoppedAt = Date.now();
    await cluster.stop();
    await sleep(1000);
    // The contributor form is a page: the same outage, said in words, with the same status and Retry-After.
    const page = await app.inject({ method: 'GET', url: `/b/${slug}/` });
    await sleep(3000);
    await cluster.start();
    const startedAt = Date.now();
    await sleep(2500);
    running = false;
    await clients;

    // Every answer was 201 or an outage's 503, shaped as the document says.
    const failures = answers.filter((a) => a.status !== 201);
    for (const a of failures) expectOutageAnswer(a);
    const during = (from: number, to: number) => failures.filter((a) => a.at >= from && a.at <= to + 1000).length;
    expect(during(killedAt, backAt), 'answers while killed').toBeGreaterThan(0);
    expect(during(stoppedAt, startedAt), 'answers while stopped').toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(page.statusCode).toBe(503);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Please try again in a minute');

    // Each key's create is there once, and its 201 names that submission.
    const rows = await db.query<{ id: string; text_content: string }>(`SELECT id, text_content FROM submissions WHERE text_content LIKE 'memory outage-%'`);
    const byKey = new Map<string, string[]>();
    for (const r of rows) {
      const key = r.text_content.slice('memory '.length);
      byKey.set(key, [...(byKey.get(key) ?? []), r.id]);
    }
    expect(finals.size).toBeGreaterThan(8);
    for (const [key, a] of finals) expect(byKey.get(key), key).toEqual([a.body.id]);
    expect([...byKey.keys()].filter((k) => !finals.has(k)), 'creates never acknowledged').toEqual([]);

    // The log: outages at warn naming the database, nothing at error.
    expect(logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
    expect(logs.some((l) => l.level === 40 && l.dependency === 'database')).toBe(true);
    console.log(`database outages: ${answers.length} answers, ${failures.length} of them 503, ${finals.size} creates acknowledged once`);
  }, 120_000);

  it('the object store down: uploads are 503 + Retry-After + envelope, and a retry with the key after it is back stores the file once', async () => {
    const photo = await readFixture('jpeg');
    const sub = await send('POST', `/api/v1/books/${slug}/submissions/`, { token: owner.token, body: { text_content: 'a photo soon' }, headers: { 'idempotency-key': randomUUID() } });
    expect(sub.status).toBe(201);
    const url = `/api/v1/books/${slug}/submissions/${sub.body.id}/media/`;
    const body = multipart([{ name: 'file', filename: 'a.jpg', contentType: 'image/jpeg', data: photo }]);
    const key = randomUUID();
    const upload = () => send('POST', url, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType, 'idempotency-key': key } });

    await s3.stop();
    const down: Answer[] = [];
    try {
      for (let i = 0; i < 3; i++) down.push(await upload());
      // Reads that touch no file keep working.
      expect((await send('GET', `/api/v1/books/${slug}/submissions/${sub.body.id}/`, { token: owner.token })).status).toBe(200);
    } finally {
      await s3.start();
    }
    for (const a of down) expectOutageAnswer(a);
    const back = await upload();
    expect(back.status).toBe(201);
    const again = await upload();
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(back.body.id);
    const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media WHERE submission_id = $1`, [sub.body.id]);
    expect(n).toBe(1);
    expect(problems).toEqual([]);
    expect(logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
    expect(logs.some((l) => l.level === 40 && l.dependency === 'object_store')).toBe(true);

    // Counted per dependency in /metrics.
    const scraped = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer outage-metrics-token' } });
    expect(scraped.statusCode).toBe(200);
    const text = scraped.body;
    const count = (dependency: string) => Number(new RegExp(`memorybook_dependency_unavailable_total\\{dependency="${dependency}",where="http"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    expect(count('database')).toBeGreaterThan(0);
    expect(count('object_store')).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
