/**
 * The embedded database on a full disk: PGlite's data folder on a small
 * tmpfs of the test's own, filled up under keyed creates. Every create
 * meanwhile is 503 with Retry-After and the envelope (PostgreSQL's 53100
 * disk_full, from PGlite as from a server), nothing is logged at error, and
 * once space is freed each create retried with its key is done once. Needs
 * root (to mount the tmpfs); skipped elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDb, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createQueue, type Queue } from '../../src/jobs/queue.js';
import { createServices } from '../../src/services/index.js';
import { testConfig, type TestApp } from '../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../helpers/factories.js';
import { createResponseValidator } from '../helpers/openapi-validator.js';

/** A tmpfs of our own, or null where mounting one is not allowed. */
function mountTmpfs(megabytes: number): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-fulldisk-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]);
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return dir;
}

const mountPoint = mountTmpfs(160);
let db: Db;
let queue: Queue;
let app: FastifyInstance;
let validate: ReturnType<typeof createResponseValidator>;
const logs: { level: number; msg: string; dependency?: string }[] = [];
const problems: string[] = [];
let owner: TestUser;
let slug: string;

async function send(method: string, url: string, o: { token?: string; body?: unknown; key?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.key) headers['idempotency-key'] = o.key;
  const res = await app.inject({ method: method as 'POST', url, headers, payload: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const found = validate(method, url, res.statusCode, res.headers['content-type'] as string | undefined, res.body, res.headers);
  if (found.length) problems.push(`${method} ${url} → ${res.statusCode}: ${found.join('; ')}`);
  return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : null };
}

describe.runIf(mountPoint)('PGlite on a full disk', () => {
  beforeAll(async () => {
    const config = testConfig({ DATA_DIR: mountPoint!, DATABASE_URL: '', SUBMISSION_RATE_LIMIT: '100000' });
    db = await createDb(config);
    await migrate(db);
    queue = createQueue({ db, config, pollIntervalMs: 200, log: (await import('pino')).default({ level: 'silent' }) });
    const services = createServices({ config, db, queue });
    await queue.start();
    app = await buildApp({ config, db, queue, services }, { logger: { level: 'info', stream: { write: (line: string) => void logs.push(JSON.parse(line)) } } });
    await app.ready();
    validate = createResponseValidator((await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json());
    const t = { db, config, services, post: (url: string, body: unknown, o: { token: string }) => send('POST', url, { body, token: o.token, key: randomUUID() }) } as unknown as TestApp;
    owner = await newUser(t);
    slug = (await newBook(t, owner, { plan: 'premium' })).slug;
  }, 120_000);

  afterAll(async () => {
    await app?.close().catch(() => {});
    await queue?.stop({ timeoutMs: 2000 }).catch(() => {});
    await db?.close().catch(() => {});
    spawnSync('umount', [mountPoint!]);
    rmSync(mountPoint!, { recursive: true, force: true });
  });

  it('creates are 503 + Retry-After + envelope while the disk is full; after space is freed each keyed create is done once', async () => {
    const base = `/api/v1/books/${slug}/submissions/`;
    const filler = path.join(mountPoint!, 'filler');
    const st = statfsSync(mountPoint!);
    writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - 4096)));
    const keys: string[] = [];
    const full: Awaited<ReturnType<typeof send>>[] = [];
    try {
      // Large memories, so the table must grow: the disk has no room for it.
      for (let i = 0; i < 40 && full.length < 5; i++) {
        const key = `full-${i}-${randomUUID().slice(0, 8)}`;
        const a = await send('POST', base, { token: owner.token, key, body: { text_content: `memory ${key} ${'words '.repeat(3000)}` } });
        keys.push(key);
        if (a.status !== 201) full.push(a);
      }
    } finally {
      rmSync(filler, { force: true });
    }
    expect(full.length).toBeGreaterThan(0);
    for (const a of full) {
      expect(a.status).toBe(503);
      expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
      expect(a.body).toMatchObject({ code: 'service_unavailable', details: null, request_id: a.headers['x-request-id'] });
    }

    // Space again: every key retried is answered 201 and done once.
    for (const key of keys) {
      const a = await send('POST', base, { token: owner.token, key, body: { text_content: `memory ${key} ${'words '.repeat(3000)}` } });
      expect(a.status, key).toBe(201);
    }
    const rows = await db.query<{ k: string; n: number }>(
      `SELECT split_part(text_content, ' ', 2) AS k, count(*)::int AS n FROM submissions WHERE text_content LIKE 'memory full-%' GROUP BY 1`,
    );
    expect(rows.length).toBe(keys.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(problems).toEqual([]);
    expect(logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
    expect(logs.some((l) => l.level === 40 && l.dependency === 'database')).toBe(true);
  }, 120_000);
});
