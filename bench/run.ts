/**
 * `npm run bench`: builds, then for each backend (PostgreSQL in a throw-away
 * schema, PGlite in a temp data dir) starts the real service as a child
 * process, seeds a user and an API key with the CLI, and measures every
 * scenario with autocannon against the ceiling: a constant-JSON route of a
 * bare Fastify process on the same machine, measured in the same rounds.
 * Prints the ratios per round, the service's start-to-ready time and a
 * table, and writes bench/results/latest.json.
 *
 * Settings (environment): BENCH_BACKENDS=postgres,pglite  BENCH_CONNECTIONS
 * BENCH_DURATION (seconds per scenario, split into BENCH_ROUNDS turns)  BENCH_WARMUP (seconds)
 * BENCH_DATABASE_URL  BENCH_SKIP_BUILD=1
 * BENCH_SCENARIOS=name,name (only those; without the ceiling no ratio is computed)
 * BENCH_PROFILE=1 (the service runs with --cpu-prof; profiles land in bench/results/profiles/)
 * BENCH_LOG_LEVEL (default warn: the one-line-per-request access log is off).
 * BENCH_SERVICE_FLAGS (extra node flags for the service, space-separated, e.g. --perf-basic-prof).
 * BENCH_SERVICE_ENV (extra settings for the service, space-separated NAME=value, e.g. DATABASE_POOL_SIZE=4).
 *
 * `npm run bench -- media` runs the media upload bench instead (bench/media-upload.ts).
 * `npm run bench -- exports` runs the export bench instead (bench/exports.ts).
 * `npm run bench -- mail-inbound` runs the inbound mail bench instead (bench/mail-inbound.ts).
 * `npm run bench -- compare <commit>`: every scenario below (or BENCH_SCENARIOS) on that commit and on this
 * working tree, turn about in short rounds on one machine, printing each one's ratio new/old (bench/compare.ts;
 * the commit is checked out and installed once, bench/baseline.ts). Quote it in every note on a hot path.
 * `npm run bench -- crops` measures how often each way of finding a photo's subject keeps faces whole (bench/subject-crops.ts).
 * `npm run bench -- transcription` runs the transcription bench instead (bench/transcription.ts).
 * `npm run bench -- start [checkout or commit …]` compares embedded start times instead (bench/start.ts).
 * `npm run bench -- create-floor`: POST /books/'s database work alone, without HTTP (bench/create-floor.ts);
 * with book-create among its scenarios, the main bench measures that floor too, after its rounds, and prints
 * book-create's share of it (targets 0.7 on PostgreSQL, 0.85 on PGlite).
 * `npm run bench -- scale [--regenerate]`: the scenarios below on a kept PostgreSQL database of 100,000
 * users, 200,000 books and 5,000,000 memories beside the small one, with an account export of 10,000
 * memories (the worker's peak RSS) and a 100,000-memory book deleted while creates run (bench/scale.ts;
 * BENCH_SCALE_FACTOR, BENCH_SCALE_DATABASE, BENCH_SCALE_STEPS there).
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { createDb, type Db } from '../src/db/client.js';
import { createTokenService } from '../src/services/tokens/token-service.js';
import { createCursorCodec } from '../src/db/pagination.js';
import { createSecretBox, newSigningSecret } from '../src/services/webhook-endpoints/signing.js';
import { postgresCpuMs, postgresCpuSince, processCpuMs } from './proc-cpu.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'memorybook.js');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'latest.json');
const PROFILE_DIR = path.join(ROOT, 'bench', 'results', 'profiles');

export const settings = {
  backends: (process.env.BENCH_BACKENDS ?? 'postgres,pglite').split(',').map((s) => s.trim()).filter(Boolean),
  scenarios: process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim()).filter(Boolean) ?? null,
  // 32 connections, three alternating rounds of 8 s per scenario: the conditions the fast-path
  // targets are set in. Batched lookups get cheaper per request as concurrency rises, so compare
  // runs at one value.
  connections: intEnv('BENCH_CONNECTIONS', 32),
  durationSeconds: intEnv('BENCH_DURATION', 24),
  rounds: intEnv('BENCH_ROUNDS', 3),
  warmupSeconds: intEnv('BENCH_WARMUP', 3, 0),
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  build: process.env.BENCH_SKIP_BUILD !== '1',
  profile: process.env.BENCH_PROFILE === '1',
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  // Extra node flags for the service, e.g. --perf-basic-prof to read it with `perf record`.
  serviceFlags: process.env.BENCH_SERVICE_FLAGS?.split(' ').filter(Boolean) ?? [],
  // Extra service settings, to compare an operator's choices (pool size, say) on the same run.
  serviceEnv: Object.fromEntries(
    (process.env.BENCH_SERVICE_ENV?.split(' ').filter((kv) => kv.includes('=')) ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  ) as Record<string, string>,
};
// Everything is bounded: a stuck child or server must never hang the run.
const OVERALL_DEADLINE_MS = 12 * 60_000;
const READY_TIMEOUT_MS = intEnv('BENCH_READY_TIMEOUT_MS', 30_000);
const CLI_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------- checkouts

/**
 * The project's own code a seed uses, from the checkout being measured: this
 * tree's src, or another checkout's build (`npm run bench -- compare`, see
 * bench/compare.ts), so that each version's data is written by that version.
 */
export interface BenchLib {
  loadConfig: typeof loadConfig;
  createDb: typeof createDb;
  createTokenService: typeof createTokenService;
  createCursorCodec: typeof createCursorCodec;
  createSecretBox: typeof createSecretBox;
  newSigningSecret: typeof newSigningSecret;
}

/** A version of memorybook to run: its CLI (bin/memorybook.js) and its code for seeds. */
export interface Checkout {
  /** How reports name it: `working tree`, or a commit's short hash. */
  label: string;
  bin: string;
  lib: BenchLib;
}

export const WORKING_TREE: Checkout = {
  label: 'working tree',
  bin: BIN,
  lib: { loadConfig, createDb, createTokenService, createCursorCodec, createSecretBox, newSigningSecret },
};

// ---------------------------------------------------------------- scenarios

/** What a scenario sees: the running service and the seeded caller. */
export interface BenchContext {
  baseUrl: string;
  connections: number;
  userId: string;
  email: string;
  password: string;
  apiKey: string;
  /** The service's SECRET_KEY (to mint a cursor deep into a seeded list). */
  secretKey: string;
  /** Bag for values a seed/setup step hands to its scenario (ids, slugs). */
  state: Record<string, unknown>;
  /** The project's code, from the checkout being measured (use it in seeds rather than importing ../src). */
  lib: BenchLib;
  /** Runs the operator CLI against the same database and returns its JSON line. Only valid in `seed`. */
  cli(args: string[]): Promise<Record<string, unknown>>;
  /**
   * Opens the service's database in this process (same config, the project's
   * own services) for bulk seeding the CLI would take minutes for. Only valid in `seed`.
   */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

export interface Scenario {
  name: string;
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string | ((ctx: BenchContext) => string);
  headers?: (ctx: BenchContext) => Record<string, string>;
  /** Per-connection headers (connection = 0 … connections-1), replacing `headers`. */
  connectionHeaders?: (ctx: BenchContext, connection: number) => Record<string, string>;
  /** Headers made fresh for every request (e.g. a new Idempotency-Key). */
  requestHeaders?: () => Record<string, string>;
  body?: (ctx: BenchContext) => unknown;
  /** The constant-cost route every other scenario is compared with (exactly one). */
  ceiling?: boolean;
  /** 'bare': a bare Fastify process beside the service (see startBareFastify), not the service itself. */
  target?: 'bare';
  /**
   * Before the service starts, through `cli` or `withDb`. PGlite is
   * single-process, so nothing can open the data directory while the server holds it.
   */
  seed?: (ctx: BenchContext) => Promise<void>;
  /** After the service is ready, over HTTP (e.g. create a book through the API). */
  setup?: (ctx: BenchContext) => Promise<void>;
  /** Another scenario this one is compared with round by round (its req/s over theirs is printed), when both run. */
  baseline?: string;
}

const bearer = (ctx: BenchContext) => ({ authorization: `Bearer ${ctx.apiKey}` });

/**
 * A GET as the seeded caller (their API key), after `seed`: a read scenario in
 * one line, e.g. `get('me-memberships', '/api/v1/me/memberships/?limit=50', seedThousandBooks)`.
 * Add it to `scenarios` below; `npm run bench -- compare <commit>` then measures it too.
 */
export const get = (name: string, path: Scenario['path'], seed?: Scenario['seed']): Scenario => ({ name, method: 'GET', path, headers: bearer, seed });

export const scenarios: Scenario[] = [
  // The ceiling: a constant-JSON route of a bare Fastify process on the same machine (no auth, no database,
  // none of our hooks). Every ratio is taken against it, round by round.
  { name: 'ceiling', method: 'GET', path: '/ceiling', ceiling: true, target: 'bare' },
  // The service's own constant route: what our hooks and logging cost on top of bare Fastify.
  { name: 'healthz', method: 'GET', path: '/healthz' },
  { name: 'auth-me', method: 'GET', path: '/api/v1/auth/me/', headers: bearer },
  {
    // One key per connection: concurrent lookups then share no key, as with many integrators.
    name: 'auth-me-many-keys',
    method: 'GET',
    path: '/api/v1/auth/me/',
    async seed(ctx) {
      ctx.state.keys = await ctx.withDb(async (db) => {
        const tokens = ctx.lib.createTokenService({ db });
        const keys = [ctx.apiKey];
        for (let i = 1; i < ctx.connections; i++) keys.push((await tokens.issueToken(db, ctx.userId, `bench-${i}`)).plaintext);
        return keys;
      });
    },
    connectionHeaders: (ctx, connection) => {
      const keys = ctx.state.keys as string[];
      return { authorization: `Bearer ${keys[connection % keys.length]}` };
    },
  },
  // Issue 3: a user with 1,000 books.
  {
    name: 'books-list',
    method: 'GET',
    path: '/api/v1/books/',
    headers: bearer,
    seed: seedThousandBooks,
  },
  { name: 'book-get', method: 'GET', path: '/api/v1/books/bench-book-500/', headers: bearer, seed: seedThousandBooks },
  // The caller's events (10,000 of the last 30 days, over the 1,000 books), a page of 50.
  get('events-list', '/api/v1/events/?limit=50', seedEvents),
  {
    // The issue's create row: a book on the default plan, a fresh Idempotency-Key each. A user of its
    // own, so the 1,000-book lists above do not grow while it runs.
    name: 'book-create',
    method: 'POST',
    path: '/api/v1/books/',
    headers: (ctx) => ({ authorization: `Bearer ${String(ctx.state.creatorKey)}` }),
    requestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    body: () => ({ title: 'A book from the benchmark' }),
    async seed(ctx) {
      const email = `creator-${randomUUID()}@bench.invalid`;
      await ctx.cli(['user', 'create', '--email', email, '--password', ctx.password]);
      ctx.state.creatorKey = String((await ctx.cli(['token', 'issue', '--email', email, '--name', 'bench-creator'])).plaintext);
    },
  },
  // Issue 4: creates with fresh Idempotency-Keys, and list pages in a book of 100,000 memories.
  {
    name: 'submission-create',
    method: 'POST',
    path: '/api/v1/books/bench-create/submissions/',
    headers: bearer,
    requestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    body: () => ({ text_content: 'A memory sent by the benchmark: the lake at dawn, everyone still asleep.', contributor_name: 'Bench' }),
    async seed(ctx) {
      await ctx.withDb((db) => seedBook(db, ctx.userId, 'bench-create', 'plus'));
    },
  },
  {
    // submission-create in a book of 500 members (owner, 49 admins, 450 contributors): a new memory must cost
    // what it costs in a book of one (migrations/0025_book_activity_bucket.sql); compared round by round.
    name: 'submission-create-500-members',
    method: 'POST',
    path: '/api/v1/books/bench-create-500/submissions/',
    headers: bearer,
    requestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    body: () => ({ text_content: 'A memory sent by the benchmark: the lake at dawn, everyone still asleep.', contributor_name: 'Bench' }),
    baseline: 'submission-create',
    async seed(ctx) {
      await ctx.withDb(async (db) => {
        const bookId = await seedBook(db, ctx.userId, 'bench-create-500', 'plus');
        await seedMembers(db, bookId, 499);
      });
    },
  },
  {
    // submission-create with a webhook endpoint subscribed to the book (a local receiver answering 200):
    // each create also writes its event and a delivery; the delivery is sent by the worker, not the request.
    name: 'submission-create-webhook',
    method: 'POST',
    path: '/api/v1/books/bench-webhook/submissions/',
    headers: bearer,
    requestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    body: () => ({ text_content: 'A memory sent by the benchmark: the lake at dawn, everyone still asleep.', contributor_name: 'Bench' }),
    async seed(ctx) {
      const url = await startWebhookReceiver(ctx);
      await ctx.withDb(async (db) => {
        await seedBook(db, ctx.userId, 'bench-webhook', 'plus');
        await db.query(`INSERT INTO webhook_endpoints (id, user_id, url, book_slugs, secret_sealed) VALUES (gen_random_uuid(), $1, $2, ARRAY['bench-webhook'], $3)`, [
          ctx.userId,
          url,
          ctx.lib.createSecretBox(ctx.secretKey).seal(ctx.lib.newSigningSecret()),
        ]);
      });
    },
  },
  { name: 'submissions-page-1', method: 'GET', path: '/api/v1/books/bench-memories/submissions/?limit=50', headers: bearer, seed: seedMemories },
  {
    name: 'submissions-deep-page',
    method: 'GET',
    path: (ctx) => `/api/v1/books/bench-memories/submissions/?limit=50&cursor=${encodeURIComponent(String(ctx.state.deepCursor))}`,
    headers: bearer,
    seed: seedMemories,
  },
  {
    name: 'submission-get',
    method: 'GET',
    path: (ctx) => `/api/v1/books/bench-memories/submissions/${String(ctx.state.middleMemory)}/`,
    headers: bearer,
    seed: seedMemories,
  },
  // Issue 42: the caller's own lists across books, beside the per-book lists they mirror (same data).
  { name: 'me-memberships', method: 'GET', path: '/api/v1/me/memberships/', headers: bearer, seed: seedThousandBooks, baseline: 'books-list' },
  {
    name: 'me-submissions-page-1',
    method: 'GET',
    path: '/api/v1/me/submissions/?limit=50',
    headers: bearer,
    seed: seedMemories,
    baseline: 'submissions-page-1',
  },
  {
    name: 'me-submissions-deep-page',
    method: 'GET',
    path: (ctx) => `/api/v1/me/submissions/?limit=50&cursor=${encodeURIComponent(String(ctx.state.meDeepCursor))}`,
    headers: bearer,
    seed: seedMemories,
    baseline: 'submissions-deep-page',
  },
  {
    name: 'me-subscriptions',
    method: 'GET',
    path: '/api/v1/me/subscriptions/',
    headers: bearer,
    async seed(ctx) {
      await seedThousandBooks(ctx);
      // One subscription in each of the caller's 1,000 books.
      await ctx.withDb((db) =>
        db.query(
          `INSERT INTO notification_subscriptions (id, user_id, book_id, channel, kind)
           SELECT gen_random_uuid(), $1, id, 'email', 'new_submission' FROM books WHERE owner_id = $1 AND slug LIKE 'bench-book-%'`,
          [ctx.userId],
        ),
      );
    },
  },
];

const BOOKS_PER_USER = 1_000;

/** A receiver for the webhook scenario: answers 200 to everything and counts what it got (printed when the bench ends). */
async function startWebhookReceiver(ctx: BenchContext): Promise<string> {
  let received = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  process.on('exit', () => console.log(`  webhook receiver: ${received} deliveries received`));
  ctx.state.webhookReceiver = server;
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
}

/**
 * A book of 100,000 memories, shared by the submission read scenarios: the
 * cursor a client holds after walking 90,000 rows (page 1,800 of 2,000 at 50
 * a page), and a memory from the middle for the detail read.
 */
async function seedMemories(ctx: BenchContext) {
  if (ctx.state.memoriesSeeded) return;
  ctx.state.memoriesSeeded = true;
  await ctx.withDb(async (db) => {
    const bookId = await seedBook(db, ctx.userId, 'bench-memories', 'plus');
    await seedSubmissions(db, bookId, ctx.userId, ctx.email, SUBMISSIONS_PER_BOOK);
    const [row] = await db.query<{ created_at: string; id: string }>(
      `SELECT created_at, id FROM submissions WHERE book_id = $1 ORDER BY created_at DESC, id DESC OFFSET 89999 LIMIT 1`,
      [bookId],
    );
    ctx.state.deepCursor = ctx.lib.createCursorCodec(ctx.secretKey).encode(`submissions:${bookId}|created`, [row.created_at, row.id]);
    ctx.state.meDeepCursor = ctx.lib.createCursorCodec(ctx.secretKey).encode(`me-submissions:${ctx.userId}:${JSON.stringify([null, null])}|created`, [row.created_at, row.id]);
    const [middle] = await db.query<{ id: string }>(`SELECT id FROM submissions WHERE book_id = $1 ORDER BY created_at DESC OFFSET 50000 LIMIT 1`, [bookId]);
    ctx.state.middleMemory = middle.id;
  });
}

/** The caller's 1,000 books, shared by the book scenarios (seeded once whichever of them runs). */
async function seedThousandBooks(ctx: BenchContext) {
  if (ctx.state.booksSeeded) return;
  ctx.state.booksSeeded = true;
  await ctx.withDb((db) => seedBooks(db, ctx.userId, BOOKS_PER_USER));
}
const SUBMISSIONS_PER_BOOK = 100_000;
const EVENTS_PER_USER = 10_000;

/**
 * The caller's events: book.updated of the 1,000 books, ten each over the
 * last 30 days, each with the caller as recipient (as recordEvent writes them).
 */
export async function seedEvents(ctx: BenchContext) {
  await seedThousandBooks(ctx);
  if (ctx.state.eventsSeeded) return;
  ctx.state.eventsSeeded = true;
  await ctx.withDb(async (db) => {
    await db.query(
      `WITH ev AS (
         INSERT INTO events (id, type, book_id, book_slug, body, created_at)
         SELECT e.id, 'book.updated', b.id, b.slug,
                json_build_object('id', e.id::text, 'type', 'book.updated',
                                  'created_at', to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'book_slug', b.slug,
                                  'data', json_build_object('object', json_build_object('slug', b.slug, 'title', b.title, 'subtitle', b.subtitle,
                                    'theme', b.theme, 'settings', b.settings, 'is_public', b.is_public, 'status', b.status, 'plan', b.plan_slug))),
                e.at
         FROM (SELECT gen_random_uuid() AS id, i, now() - (i * 259) * interval '1 second' AS at FROM generate_series(1, $2::int) AS i) e
         JOIN books b ON b.owner_id = $1 AND b.slug = 'bench-book-' || (1 + e.i % 1000)
         RETURNING id, created_at)
       INSERT INTO event_recipients (user_id, event_id, created_at) SELECT $1, id, created_at FROM ev`,
      [ctx.userId, EVENTS_PER_USER],
    );
    await db.query('ANALYZE event_recipients');
  });
}

/** Bulk seeding in SQL: the API would take minutes for 100,000 rows and measure nothing we want. */
async function seedBooks(db: Db, ownerId: string, n: number) {
  await db.query(
    `INSERT INTO books (id, slug, owner_id, title, theme, plan_slug, created_at, updated_at, last_activity_at)
     SELECT gen_random_uuid(), 'bench-book-' || i, $1, 'Bench book ' || i, 'elegant_classic', 'free',
            now() - i * interval '1 minute', now() - i * interval '1 minute', now() - i * interval '1 minute'
     FROM generate_series(1, $2::int) AS i`,
    [ownerId, n],
  );
  await db.query(`INSERT INTO book_members (book_id, user_id, role) SELECT id, $1, 'owner' FROM books WHERE owner_id = $1 AND slug LIKE 'bench-book-%'`, [ownerId]);
}

async function seedBook(db: Db, ownerId: string, slug: string, plan: string): Promise<string> {
  const [{ id }] = await db.query<{ id: string }>(
    `INSERT INTO books (id, slug, owner_id, title, theme, plan_slug) VALUES (gen_random_uuid(), $2, $1, $2, 'elegant_classic', $3) RETURNING id`,
    [ownerId, slug, plan],
  );
  await db.query(`INSERT INTO book_members (book_id, user_id, role) VALUES ($1, $2, 'owner')`, [id, ownerId]);
  return id;
}

/** `n` members besides the owner, each a user of its own: a tenth admins, the rest contributors. */
async function seedMembers(db: Db, bookId: string, n: number) {
  await db.query(
    `WITH u AS (
       INSERT INTO users (id, email, first_name)
       SELECT gen_random_uuid(), 'member-' || i || '-' || $1 || '@bench.invalid', 'Member ' || i FROM generate_series(1, $2::int) AS i
       RETURNING id, first_name
     )
     INSERT INTO book_members (book_id, user_id, role)
     SELECT $1::uuid, id, CASE WHEN split_part(first_name, ' ', 2)::int % 10 = 0 THEN 'admin' ELSE 'contributor' END FROM u`,
    [bookId, n],
  );
}

async function seedSubmissions(db: Db, bookId: string, userId: string, email: string, n: number) {
  await db.query(
    `INSERT INTO submissions (id, book_id, contributor_user_id, contributor_name, contributor_email, text_content, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'Bench', $3, 'Memory number ' || i || ': a summer afternoon by the lake, told by someone who was there.',
            now() - i * interval '1 second', now() - i * interval '1 second'
     FROM generate_series(1, $4::int) AS i`,
    [bookId, userId, email, n],
  );
  await db.query('ANALYZE submissions');
}

// ---------------------------------------------------------------- backends

export interface Backend {
  name: string;
  /** Creates an empty database and returns the environment that points the service at it. */
  prepare(): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

export function postgresBackend(): Backend {
  const schema = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let created = false;
  const admin = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: settings.databaseUrl, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    async prepare() {
      await admin(`CREATE SCHEMA ${schema}`);
      created = true;
      return { DATABASE_URL: settings.databaseUrl, DATABASE_SCHEMA: schema };
    },
    async cleanup() {
      if (!created) return;
      // The service also makes schemas of its own beside ours (the job queue's `<schema>_pgboss`).
      const rows = await admin<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname = $1 OR starts_with(nspname, $1 || '_')`, [schema]);
      for (const { nspname } of rows) await admin(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    },
  };
}

function pgliteBackend(): Backend {
  let dir: string | undefined;
  return {
    name: 'pglite',
    async prepare() {
      dir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-'));
      return { DATA_DIR: dir };
    },
    async cleanup() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const BACKENDS: Record<string, () => Backend> = { postgres: postgresBackend, pglite: pgliteBackend };

// ---------------------------------------------------------------- processes

export const children = new Set<ChildProcess>();

function killAll(signal: NodeJS.Signals) {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}
/** Backends still holding a schema or a temp dir, so an interrupted run can still drop them. */
export const pendingCleanups = new Set<() => Promise<void>>();

process.on('exit', () => killAll('SIGKILL'));
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAll('SIGKILL');
    const cleanups = [...pendingCleanups].map((c) => c().catch(() => {}));
    void Promise.race([Promise.all(cleanups), sleep(5_000)]).then(() => process.exit(130));
  });
}

export function baseEnv(): Record<string, string> {
  // Only what the service needs: a stray DATABASE_URL or .env value from the shell must not leak in.
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k]) env[k] = process.env[k]!;
  return {
    ...env,
    NODE_ENV: 'production',
    SECRET_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: settings.logLevel,
    HOST: '127.0.0.1',
    // Lifted openly so the create benchmark measures creates, not the 30-an-hour limiter
    // (the limiter still runs on every create: a one-second window of a million).
    SUBMISSION_RATE_LIMIT: '1000000',
    SUBMISSION_RATE_WINDOW_SECONDS: '1',
    // The webhook scenario's receiver listens on this machine (plain http to 127.0.0.1).
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    ...settings.serviceEnv,
  };
}

function runCli(env: Record<string, string>, args: string[], bin = BIN): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: os.tmpdir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code !== 0) return reject(new Error(`memorybook ${args.slice(0, 2).join(' ')} exited ${code ?? signal}: ${stderr.trim()}`));
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`memorybook ${args.slice(0, 2).join(' ')} printed no JSON: ${stdout}`));
      }
    });
  });
}

export interface Service {
  baseUrl: string;
  /** From spawning the process to the first 200 from /readyz, in ms. */
  readyMs: number;
  /** CPU time the service process has used so far, in ms (Linux only; null elsewhere). */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

/**
 * `args`: the CLI command (`serve`, or `serve --no-worker` beside a worker of the caller's);
 * `bin`: whose CLI (another checkout's, see bench/compare.ts).
 */
export async function startService(env: Record<string, string>, args: string[] = ['serve'], bin = BIN, profileDir = PROFILE_DIR): Promise<Service> {
  const port = await freePort();
  const spawnedAt = performance.now();
  // cwd is a temp dir so the repository's own .env is never read.
  const nodeFlags = [...(settings.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...settings.serviceFlags];
  const child = spawn(process.execPath, [...nodeFlags, bin, ...args], { cwd: os.tmpdir(), env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const tail: string[] = [];
  const keep = (d: Buffer) => {
    tail.push(...d.toString().split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    children.delete(child);
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`service exited before it was ready:\n${tail.join('\n')}`);
    }
    try {
      const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return { baseUrl, stop, readyMs: Math.round(performance.now() - spawnedAt), cpuMs: () => processCpuMs(child.pid) };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`service not ready after ${READY_TIMEOUT_MS} ms:\n${tail.join('\n')}`);
    }
    await sleep(20);
  }
}

// ---------------------------------------------------------------- measuring

/** One timed slice of one scenario. */
export interface RoundResult {
  requests: number;
  duration_s: number;
  rps: number;
  latency_ms: { p50: number; p99: number };
  service_cpu_us_per_req: number | null;
  db_cpu_us_per_req: number | null;
  load_avg_1m: number;
}

export interface Measurement {
  requests: number;
  duration_s: number;
  /** All requests over all rounds divided by their total duration. */
  rps: number;
  /** avg and p50 are medians over rounds; p90, p99 and max are the worst round's. */
  latency_ms: { avg: number; p50: number; p90: number; p99: number; max: number };
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  status_codes: Record<string, number>;
  /** Median over rounds of this scenario's req/s over the ceiling's in the same round. */
  ratio_to_ceiling: number | null;
  ratio_range: [number, number] | null;
  /**
   * CPU time of the service process per request, in microseconds: unlike
   * req/s it barely moves when something else is using the machine.
   */
  service_cpu_us_per_req: number | null;
  /**
   * CPU time of the PostgreSQL server's processes per request, in
   * microseconds (shown for the postgres backend; PGlite's is the service's own).
   */
  db_cpu_us_per_req: number | null;
  /** Highest 1-minute load average seen: well above the CPU count means the figures are noisy. */
  load_avg_1m: number;
  rounds: RoundResult[];
}

let bareUrl = '';

/**
 * The ceiling's server: Fastify with one route answering constant JSON, in
 * a process of its own like the service, started once for the whole run.
 */
export async function startBareFastify(): Promise<() => void> {
  const port = await freePort();
  const fastify = path.join(ROOT, 'node_modules', 'fastify', 'fastify.js');
  const code = `const Fastify = require(${JSON.stringify(fastify)});
    const app = Fastify({ logger: false });
    app.get('/ceiling', async () => ({ status: 'ok' }));
    app.listen({ port: ${port}, host: '127.0.0.1' }).then(() => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`bare Fastify exited ${c}`)));
  });
  bareUrl = `http://127.0.0.1:${port}`;
  return () => child.kill('SIGKILL');
}

export function autocannonOptions(ctx: BenchContext, scenario: Scenario) {
  let nextConnection = 0;
  const perConnection = scenario.connectionHeaders;
  const opts = {
    url: (scenario.target === 'bare' ? bareUrl : ctx.baseUrl) + (typeof scenario.path === 'function' ? scenario.path(ctx) : scenario.path),
    method: scenario.method,
    headers: {
      ...(scenario.body ? { 'content-type': 'application/json' } : {}),
      ...(scenario.headers?.(ctx) ?? {}),
    },
    body: scenario.body ? JSON.stringify(scenario.body(ctx)) : undefined,
    connections: settings.connections,
    timeout: 10,
    requests: scenario.requestHeaders
      ? [
          {
            setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...(req.headers ?? {}), ...scenario.requestHeaders!() } }),
          },
        ]
      : undefined,
    setupClient: perConnection
      ? (client: { setHeaders(h: Record<string, string>): void }) =>
          client.setHeaders({ ...opts.headers, ...perConnection(ctx, nextConnection++ % settings.connections) })
      : undefined,
  };
  return opts;
}

export async function runRound(ctx: BenchContext, service: Service, scenario: Scenario, seconds: number) {
  const loadAvg = os.loadavg()[0];
  // The ceiling runs in a process of its own: the service's CPU says nothing about it.
  const cpuMs = () => (scenario.target === 'bare' ? null : service.cpuMs());
  const cpuBefore = cpuMs();
  const dbBefore = scenario.target === 'bare' ? null : postgresCpuMs();
  const r = await autocannon({ ...autocannonOptions(ctx, scenario), duration: seconds });
  const cpuAfter = cpuMs();
  const dbAfter = dbBefore === null ? null : postgresCpuMs();
  const result: RoundResult = {
    requests: r.requests.total,
    duration_s: r.duration,
    rps: round(r.requests.total / r.duration, 0),
    latency_ms: { p50: r.latency.p50, p99: r.latency.p99 },
    service_cpu_us_per_req: cpuBefore === null || cpuAfter === null || !r.requests.total ? null : round(((cpuAfter - cpuBefore) * 1000) / r.requests.total, 1),
    db_cpu_us_per_req: dbBefore === null || dbAfter === null || !r.requests.total ? null : round((postgresCpuSince(dbBefore, dbAfter) * 1000) / r.requests.total, 1),
    load_avg_1m: round(loadAvg, 2),
  };
  return {
    round: result,
    raw: r,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    dbCpuMs: dbBefore === null || dbAfter === null ? null : postgresCpuSince(dbBefore, dbAfter),
  };
}

export type RoundRun = Awaited<ReturnType<typeof runRound>>;

export function aggregate(runs: RoundRun[]): Measurement {
  const requests = runs.reduce((n, r) => n + r.raw.requests.total, 0);
  const duration = runs.reduce((n, r) => n + r.raw.duration, 0);
  const cpu = runs.every((r) => r.cpuMs !== null) ? runs.reduce((n, r) => n + r.cpuMs!, 0) : null;
  const dbCpu = runs.every((r) => r.dbCpuMs !== null) ? runs.reduce((n, r) => n + r.dbCpuMs!, 0) : null;
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, s] of Object.entries(r.raw.statusCodeStats ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + Number(s.count);
  const sum = (f: (r: RoundRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  const worst = (f: (r: RoundRun) => number) => Math.max(...runs.map(f));
  return {
    requests,
    duration_s: round(duration, 2),
    rps: round(requests / duration, 0),
    latency_ms: {
      avg: round(median(runs.map((r) => r.raw.latency.average)), 2),
      p50: median(runs.map((r) => r.raw.latency.p50)),
      p90: worst((r) => r.raw.latency.p90),
      p99: worst((r) => r.raw.latency.p99),
      max: worst((r) => r.raw.latency.max),
    },
    errors: sum((r) => r.raw.errors),
    timeouts: sum((r) => r.raw.timeouts),
    non2xx: sum((r) => r.raw.non2xx),
    status_codes: statusCodes,
    ratio_to_ceiling: null,
    ratio_range: null,
    service_cpu_us_per_req: cpu === null || !requests ? null : round((cpu * 1000) / requests, 1),
    db_cpu_us_per_req: dbCpu === null || !requests ? null : round((dbCpu * 1000) / requests, 1),
    load_avg_1m: worst((r) => r.round.load_avg_1m),
    rounds: runs.map((r) => r.round),
  };
}

/**
 * A fresh caller (a user and an API key, through the CLI, which also migrates
 * the database) and the selected scenarios' seeds, before the service starts,
 * with the CLI and code of `checkout`. With `onSeedError`, a scenario whose
 * seed fails is reported to it and the others go on (an earlier commit may
 * lack what a newer scenario needs); without it the failure is thrown.
 */
export async function seedCaller(
  env: Record<string, string>,
  selected: Scenario[],
  checkout: Checkout = WORKING_TREE,
  onSeedError?: (scenario: Scenario, err: unknown) => void,
): Promise<BenchContext> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const password = `p${randomBytes(12).toString('base64url')}`; // never starting with '-', which the CLI would take for an option
  const ctx: BenchContext = {
    baseUrl: '',
    connections: settings.connections,
    userId: '',
    email,
    password,
    apiKey: '',
    secretKey: env.SECRET_KEY,
    state: {},
    lib: checkout.lib,
    cli: (args) => runCli(env, args, checkout.bin),
    withDb: async (fn) => {
      const db = await checkout.lib.createDb(checkout.lib.loadConfig(env));
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
  };
  const user = await ctx.cli(['user', 'create', '--email', email, '--password', password]);
  ctx.userId = String(user.id);
  const token = await ctx.cli(['token', 'issue', '--email', email, '--name', 'bench']);
  ctx.apiKey = String(token.plaintext);
  for (const s of selected) {
    try {
      await s.seed?.(ctx);
    } catch (err) {
      if (!onSeedError) throw err;
      onSeedError(s, err);
    }
  }
  return ctx;
}

async function runBackend(backend: Backend, selected: Scenario[]): Promise<{ results: Record<string, Measurement>; readyMs: number }> {
  let service: Service | undefined;
  const cleanup = () => backend.cleanup();
  pendingCleanups.add(cleanup);
  try {
    const env = { ...baseEnv(), ...(await backend.prepare()) };
    // Seeding goes first: the CLI migrates the fresh database, and on PGlite
    // nothing else may hold the data directory while the server runs.
    const ctx = await seedCaller(env, selected);

    service = await startService(env);
    ctx.baseUrl = service.baseUrl;
    console.log(`  ${backend.name}: start-to-ready ${service.readyMs} ms`);
    const seedOnly = () => Promise.reject(new Error('only available in seed steps'));
    ctx.cli = seedOnly;
    ctx.withDb = seedOnly;
    for (const s of selected) await s.setup?.(ctx);

    // The warm-up lets V8 optimise the hot paths and fills the pools; its figures are dropped.
    if (settings.warmupSeconds > 0) {
      for (const s of selected) await autocannon({ ...autocannonOptions(ctx, s), duration: settings.warmupSeconds });
    }
    // Scenarios take turns in short rounds, so a burst of load from elsewhere
    // hits all of them alike instead of skewing one; ratios are taken per round.
    console.log(`  ${backend.name}: ${selected.length} scenarios × ${settings.rounds} rounds …`);
    const runs = new Map<string, RoundRun[]>(selected.map((s) => [s.name, []]));
    const seconds = settings.durationSeconds / settings.rounds;
    for (let i = 0; i < settings.rounds; i++) {
      for (const s of selected) runs.get(s.name)!.push(await runRound(ctx, service, s, seconds));
    }

    const results: Record<string, Measurement> = {};
    for (const s of selected) results[s.name] = aggregate(runs.get(s.name)!);
    const ceiling = selected.find((s) => s.ceiling);
    if (ceiling) {
      for (const m of Object.values(results)) {
        const ratios = m.rounds.map((r, i) => r.rps / results[ceiling.name].rounds[i].rps);
        m.ratio_to_ceiling = round(median(ratios), 3);
        m.ratio_range = [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)];
      }
    }
    for (const s of selected) {
      const m = results[s.name];
      const perRound = ceiling ? `; vs ceiling per round: ${m.rounds.map((r, i) => (r.rps / results[ceiling.name].rounds[i].rps).toFixed(3)).join(', ')}` : '';
      console.log(
        `  ${backend.name} ${s.name}: ${m.rps} req/s (rounds: ${m.rounds.map((r) => r.rps).join(', ')}${perRound}), p50 ${m.latency_ms.p50} ms, p99 ${m.latency_ms.p99} ms`,
      );
    }
    for (const s of selected) {
      const base = s.baseline === undefined ? undefined : results[s.baseline];
      if (!base) continue;
      const ratios = results[s.name].rounds.map((r, i) => r.rps / base.rounds[i].rps);
      console.log(`  ${backend.name} ${s.name} vs ${s.baseline}: median ${median(ratios).toFixed(3)} (per round: ${ratios.map((x) => x.toFixed(3)).join(', ')})`);
    }
    return { results, readyMs: service.readyMs };
  } finally {
    await service?.stop();
    pendingCleanups.delete(cleanup);
    await cleanup().catch((err) => console.error(`cleanup of ${backend.name} failed: ${err}`));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  // `npm run bench -- media`: the media upload bench (bench/media-upload.ts) instead of the request benchmarks.
  if (process.argv.slice(2).includes('media')) return (await import('./media-upload.js')).runMediaBench();
  // `npm run bench -- mail-inbound`: a 60 MB email through the SMTP receiver, RSS watched (bench/mail-inbound.ts).
  if (process.argv.slice(2).includes('mail-inbound')) return (await import('./mail-inbound.js')).runMailInboundBench();
  // `npm run bench -- exports`: PDF, JSON and ZIP exports of a 1,000-memory book (bench/exports.ts).
  // `npm run bench -- transcription`: a 30-minute voice note transcribed, the worker's RSS watched (bench/transcription.ts).
  if (process.argv.slice(2).includes('transcription')) return (await import('./transcription.js')).runTranscriptionBench();
  if (process.argv.slice(2).includes('exports')) return (await import('./exports.js')).runExportsBench();
  // `npm run bench -- crops`: which subject finder keeps faces whole in the themes' crops (bench/subject-crops.ts).
  if (process.argv.slice(2).includes('crops')) return (await import('./subject-crops.js')).runSubjectCropsBench();
  // `npm run bench -- start [checkout …]`: embedded start-to-ready, against other builds on this machine (bench/start.ts).
  const args = process.argv.slice(2);
  if (args[0] === 'start') return (await import('./start.js')).runStartBench(args.slice(1));
  // `npm run bench -- compare <commit>`: the scenarios below on an earlier commit and this tree, turn about, ratios new/old (bench/compare.ts).
  if (args[0] === 'compare') return (await import('./compare.js')).runCompareBench(args.slice(1));
  // `npm run bench -- create-floor`: POST /books/'s database work alone, without HTTP (bench/create-floor.ts).
  if (args[0] === 'create-floor') return (await import('./create-floor.js')).runCreateFloorBench();
  // `npm run bench -- scale [--regenerate]`: the scenarios on a 5,000,000-memory database beside the small one (bench/scale.ts).
  if (args[0] === 'scale') return (await import('./scale.js')).runScaleBench(args.slice(1));
  const deadline = setTimeout(() => {
    console.error(`bench: still running after ${OVERALL_DEADLINE_MS / 1000} s, giving up`);
    killAll('SIGKILL');
    process.exit(1);
  }, OVERALL_DEADLINE_MS);
  deadline.unref();

  const unknown = settings.backends.filter((b) => !BACKENDS[b]);
  if (unknown.length) throw new Error(`unknown backend(s): ${unknown.join(', ')} (known: ${Object.keys(BACKENDS).join(', ')})`);
  if (scenarios.filter((s) => s.ceiling).length !== 1) throw new Error('exactly one scenario must be the ceiling');
  const selected = scenarios.filter((s) => !settings.scenarios || settings.scenarios.includes(s.name));
  const missing = settings.scenarios?.filter((n) => !scenarios.some((s) => s.name === n)) ?? [];
  if (missing.length || !selected.length) throw new Error(`unknown scenario(s): ${missing.join(', ')} (known: ${scenarios.map((s) => s.name).join(', ')})`);

  if (settings.build) {
    console.log('building (tsc -p tsconfig.build.json) …');
    await runChecked(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], 120_000);
  }
  console.log(
    `bench: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per scenario ` +
      `in ${settings.rounds} alternating rounds, ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}`,
  );

  const stopBare = selected.some((s) => s.target === 'bare') ? await startBareFastify() : () => {};
  const results: Record<string, Record<string, Measurement>> = {};
  const readyMs: Record<string, number> = {};
  try {
    for (const name of settings.backends) {
      const run = await runBackend(BACKENDS[name](), selected);
      results[name] = run.results;
      readyMs[name] = run.readyMs;
    }
  } finally {
    stopBare();
  }

  // POST /books/ against its own database work without HTTP, measured in this run once the service is stopped.
  const createFloor: Record<string, { floor_creates_per_s: number; book_create_rps: number; ratio: number; target: number }> = {};
  if (selected.some((s) => s.name === 'book-create')) {
    const { createFloorRate } = await import('./create-floor.js');
    for (const name of settings.backends) {
      const rate = await createFloorRate(name);
      const rps = results[name]['book-create'].rps;
      createFloor[name] = { floor_creates_per_s: Math.round(rate), book_create_rps: rps, ratio: round(rps / rate, 3), target: CREATE_FLOOR_TARGETS[name] ?? 0 };
    }
  }

  printTable(results);
  for (const [name, f] of Object.entries(createFloor)) {
    const verdict = f.ratio >= f.target ? 'met' : 'MISSED';
    console.log(`${name}: book-create ${f.book_create_rps} req/s = ${f.ratio.toFixed(2)} of its database floor (${f.floor_creates_per_s} creates/s, bench/create-floor.ts); target ${f.target}: ${verdict}`);
  }
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        generated_at: new Date().toISOString(),
        machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model.trim() ?? null, node: process.version, platform: `${os.platform()} ${os.release()}` },
        settings: {
          connections: settings.connections,
          duration_s: settings.durationSeconds,
          warmup_s: settings.warmupSeconds,
          rounds: settings.rounds,
          log_level: settings.logLevel,
          node_env: 'production',
        },
        scenarios: selected.map((s) => ({ name: s.name, method: s.method, path: typeof s.path === 'string' ? s.path : '(computed)', ceiling: !!s.ceiling })),
        // From spawning `memorybook serve` on the seeded database to its first 200 from /readyz.
        start_to_ready_ms: readyMs,
        // book-create's req/s over bench/create-floor.ts's creates/s on the same backend, in this run.
        create_floor: createFloor,
        results,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS_FILE)}`);

  const failures = Object.entries(results).flatMap(([b, rs]) =>
    Object.entries(rs)
      .filter(([, m]) => m.errors + m.non2xx > 0)
      .map(([s, m]) => `${b}/${s}: ${m.errors} errors (${m.timeouts} timeouts), ${m.non2xx} non-2xx ${JSON.stringify(m.status_codes)}`),
  );
  if (failures.length) {
    console.error(`\nbench: requests failed (every response must be 2xx):\n  ${failures.join('\n  ')}`);
    return 1;
  }
  return 0;
}

function printTable(results: Record<string, Record<string, Measurement>>) {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const header = ['backend', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'err/non-2xx', 'vs ceiling (range)', 'svc CPU µs/req', 'db CPU µs/req', 'load'];
  const rows = Object.entries(results).flatMap(([b, rs]) =>
    Object.entries(rs).map(([s, m]) => [
      b,
      s,
      String(m.rps),
      String(m.latency_ms.p50),
      String(m.latency_ms.p99),
      `${m.errors}/${m.non2xx}`,
      m.ratio_to_ceiling === null || !m.ratio_range
        ? ''
        : `${pct(m.ratio_to_ceiling)} (${pct(m.ratio_range[0])}–${pct(m.ratio_range[1])})`,
      m.service_cpu_us_per_req === null ? '' : String(m.service_cpu_us_per_req),
      m.db_cpu_us_per_req === null || b !== 'postgres' ? '' : String(m.db_cpu_us_per_req),
      m.load_avg_1m.toFixed(1),
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\n' + line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const busiest = Math.max(...Object.values(results).flatMap((rs) => Object.values(rs).map((m) => m.load_avg_1m)));
  if (busiest > os.cpus().length + 1) {
    console.log(`\nnote: the 1-minute load average reached ${busiest.toFixed(1)} on ${os.cpus().length} CPUs: something else was busy, so req/s and latencies are noisy (CPU µs/req much less so).`);
  }
}

function runChecked(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: 'inherit' });
    children.add(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(args[0] ?? cmd)} exited ${code ?? signal}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}: expected a whole number >= ${min}, got "${raw}"`);
  return n;
}

/** book-create's least share of its database floor (bench/create-floor.ts): HTTP and the service may cost this much. */
const CREATE_FLOOR_TARGETS: Record<string, number> = { postgres: 0.7, pglite: 0.85 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

main().then(
  (code) => {
    killAll('SIGKILL');
    process.exit(code);
  },
  (err) => {
    console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
    killAll('SIGKILL');
    process.exit(1);
  },
);
