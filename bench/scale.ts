/**
 * `npm run bench -- scale [--regenerate]`: the main bench's scenarios on a
 * PostgreSQL database of 100,000 users, 200,000 books and 5,000,000 memories,
 * beside the same scenarios on the small database the main bench seeds.
 *
 * The big database (BENCH_SCALE_DATABASE, default memorybook_bench_scale, on
 * BENCH_DATABASE_URL's server) is made in SQL by bench/scale-data.ts, in
 * minutes, and kept: a later run reuses it while its generation marker (a
 * comment on the database: generator version and scale factor) matches;
 * `--regenerate` drops and makes it again. BENCH_SCALE_FACTOR (default 1)
 * shrinks everything generated (0.02 while developing);
 * BENCH_SCALE_GENERATE_CONNECTIONS (2) load the memories side by side.
 *
 * Each side gets the main bench's caller, seeded by its own seeds (1,000
 * books, a book of 100,000 memories, the create book), plus two things of
 * this bench: a user who wrote 10,000 memories, and a book of 100,000
 * memories to delete (remade every run). The big side's caller is removed at
 * the end (and, left by an interrupted run, at the start). Each side runs
 * `memorybook serve --no-worker` and `memorybook worker`, as the README's
 * scale-out does. Then:
 *
 * 1. Reads and creates, 32 connections (BENCH_CONNECTIONS): book read, books
 *    page, a memory, submissions page 1 and page 1,800, sync with
 *    updated_since (books and submissions), submission create. The two sides
 *    take turns round by round (BENCH_DURATION per scenario and side, in
 *    BENCH_ROUNDS rounds), so load from elsewhere hits both alike. Judged on
 *    the median over rounds of big p99 / small p99 of the same round: reads
 *    within 1.5×, creates within 1.25×.
 * 2. Account export of the 10,000-memory user: the worker process's peak RSS
 *    (VmHWM, reset through /proc/<pid>/clear_refs, and VmRSS sampled every
 *    20 ms), under 200 MB.
 * 3. DELETE of the 100,000-memory book through the API while submission
 *    creates run at a steady rate (BENCH_SCALE_DELETE_RATE, default 50 a
 *    second) on 32 other books in turn: the creates' p99 from the
 *    DELETE's answer until the worker's cascade has removed the book's rows,
 *    at most 50 ms, and how long the cascade took.
 *
 * BENCH_SCENARIOS narrows step 1; BENCH_SCALE_STEPS=reads,export,delete picks
 * steps. Writes bench/results/scale-latest.json; exits 1 when a target is
 * missed or a request failed.
 */
import { watchPeakRss } from './proc-cpu.js';
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { createDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { hashPassword } from '../src/lib/secrets.js';
import { createTokenService } from '../src/services/tokens/token-service.js';
import {
  aggregate,
  autocannonOptions,
  baseEnv,
  children,
  pendingCleanups,
  postgresBackend,
  runRound,
  scenarios as mainScenarios,
  seedCaller,
  settings,
  startService,
  type BenchContext,
  type Measurement,
  type RoundRun,
  type Scenario,
  type Service,
} from './run.js';
import { EXPORT_USER_EMAIL, GENERATOR_VERSION, generateWorld, prepareGenerator, seedDoomedBook, seedExportUser, worldSizes } from './scale-data.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'memorybook.js');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'scale-latest.json');
const MB = 1_048_576;

const TARGETS = { readP99Ratio: 1.5, createP99Ratio: 1.25, exportPeakRssMb: 200, deletionCreatesP99Ms: 50 };
/** The scenarios of step 1, in order: the main bench's and this bench's two syncs. */
const DEFAULT_SCENARIOS = ['book-get', 'books-list', 'submission-get', 'submissions-page-1', 'submissions-deep-page', 'books-sync', 'submissions-sync', 'submission-create'];
const STEPS = ['reads', 'export', 'delete'] as const;
/** Creates per second while the big book is deleted (BENCH_SCALE_DELETE_RATE). */
const DEFAULT_DELETE_RATE = 50;
/** Books the deletion step's creates go to, in turn. */
const ELSEWHERE_BOOKS = 32;

const scale = {
  factor: numberEnv('BENCH_SCALE_FACTOR', 1),
  database: process.env.BENCH_SCALE_DATABASE ?? 'memorybook_bench_scale',
  steps: new Set((process.env.BENCH_SCALE_STEPS ?? STEPS.join(',')).split(',').map((s) => s.trim())),
  deleteRate: process.env.BENCH_SCALE_DELETE_RATE ? numberEnv('BENCH_SCALE_DELETE_RATE', 0) : null,
  deadlineMinutes: numberEnv('BENCH_SCALE_DEADLINE_MINUTES', 120),
  /** Connections that load the world's memories at once. */
  generateConnections: Math.round(numberEnv('BENCH_SCALE_GENERATE_CONNECTIONS', 2)),
};

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: expected a positive number, got "${raw}"`);
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (xs: number[], p: number) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const log = (line: string) => console.log(line);

// ---------------------------------------------------------------- this bench's scenarios

const bearer = (ctx: BenchContext) => ({ authorization: `Bearer ${ctx.apiKey}` });
const mainScenario = (name: string) => {
  const s = mainScenarios.find((x) => x.name === name);
  if (!s) throw new Error(`bench/run.ts has no scenario ${name}`);
  return s;
};

/**
 * Sync with updated_since, as an integrator catching up: the caller's books
 * changed in the last 200 of 1,000, and a book's memories changed after its
 * 5,000th newest change (both answer a first page of that range).
 */
const syncScenarios: Scenario[] = [
  {
    name: 'books-sync',
    method: 'GET',
    path: (ctx) => `/api/v1/books/?updated_since=${encodeURIComponent(String(ctx.state.booksSince))}`,
    headers: bearer,
    async seed(ctx) {
      await mainScenario('books-list').seed?.(ctx);
      ctx.state.booksSince = await ctx.withDb(async (db) => {
        const [row] = await db.query<{ t: string }>(
          `SELECT to_char(b.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t FROM books b
           WHERE b.owner_id = $1 AND b.slug LIKE 'bench-book-%' ORDER BY b.updated_at DESC OFFSET 199 LIMIT 1`,
          [ctx.userId],
        );
        return row.t;
      });
    },
  },
  {
    name: 'submissions-sync',
    method: 'GET',
    path: (ctx) => `/api/v1/books/bench-memories/submissions/?limit=50&updated_since=${encodeURIComponent(String(ctx.state.memoriesSince))}`,
    headers: bearer,
    async seed(ctx) {
      await mainScenario('submissions-page-1').seed?.(ctx);
      ctx.state.memoriesSince = await ctx.withDb(async (db) => {
        const [row] = await db.query<{ t: string }>(
          `SELECT to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t FROM submissions s JOIN books b ON b.id = s.book_id
           WHERE b.slug = 'bench-memories' ORDER BY s.updated_at DESC OFFSET 4999 LIMIT 1`,
        );
        return row.t;
      });
    },
  },
];

function selectedScenarios(): Scenario[] {
  const all = [...mainScenarios.filter((s) => !s.ceiling && !s.target), ...syncScenarios];
  const names = settings.scenarios ?? DEFAULT_SCENARIOS;
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario(s): ${unknown.join(', ')} (known: ${all.map((s) => s.name).join(', ')})`);
  return names.map((n) => all.find((s) => s.name === n)!);
}

// ---------------------------------------------------------------- the big database

function scaleUrl(): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(scale.database)) throw new Error(`BENCH_SCALE_DATABASE: "${scale.database}" is not a plain lower-case name`);
  const url = new URL(settings.databaseUrl);
  url.pathname = `/${scale.database}`;
  return url.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>, schema?: string): Promise<T> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    if (schema) await c.query(`SET search_path TO "${schema}"`);
    return await fn(c);
  } finally {
    await c.end();
  }
}

interface Marker {
  generator: number;
  factor: number;
  sizes?: ReturnType<typeof worldSizes>;
  generated_at?: string;
  seconds?: number;
}

/** The big database, made when missing, when its marker does not match, or on --regenerate. */
async function ensureScaleDatabase(regenerate: boolean): Promise<{ url: string; marker: Marker; generated: boolean }> {
  const url = scaleUrl();
  const want: Marker = { generator: GENERATOR_VERSION, factor: scale.factor };
  const existing = await withClient(settings.databaseUrl, async (admin) => {
    const { rows } = await admin.query<{ marker: string | null }>(`SELECT shobj_description(oid, 'pg_database') AS marker FROM pg_database WHERE datname = $1`, [scale.database]);
    return rows[0];
  });
  let marker: Marker | null = null;
  try {
    marker = existing?.marker ? (JSON.parse(existing.marker) as Marker) : null;
  } catch {
    marker = null;
  }
  const migrateIt = async () => {
    const db = await createDb(loadConfig({ ...baseEnv(), DATABASE_URL: url }));
    try {
      return await migrate(db);
    } finally {
      await db.close();
    }
  };
  if (!regenerate && marker && marker.generator === want.generator && marker.factor === want.factor && marker.generated_at) {
    // Migrations added since it was made are applied to it, as to any database.
    const applied = await migrateIt();
    log(`scale database ${scale.database}: kept (generated ${marker.generated_at} in ${marker.seconds} s, factor ${marker.factor})${applied.length ? `; migrated: ${applied.join(', ')}` : ''}`);
    return { url, marker, generated: false };
  }
  const why = regenerate ? '--regenerate' : !existing ? 'missing' : 'its marker does not match';
  const sizes = worldSizes(scale.factor);
  log(`scale database ${scale.database}: generating (${why}): ${sizes.users} users, ${sizes.books} books, ${sizes.memories + sizes.exportMemories} memories …`);
  const t0 = performance.now();
  await withClient(settings.databaseUrl, async (admin) => {
    if (existing) await admin.query(`DROP DATABASE "${scale.database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${scale.database}"`);
  });
  await migrateIt();
  const passwordHash = await hashPassword('a scale bench password');
  const open = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    await c.connect();
    return c;
  };
  await withClient(url, (c) => generateWorld(c, sizes, passwordHash, log, open, scale.generateConnections));
  const done: Marker = { ...want, sizes, generated_at: new Date().toISOString(), seconds: Math.round((performance.now() - t0) / 1000) };
  // Written last: a generation cut off half-way leaves no marker and is made again.
  await withClient(settings.databaseUrl, (admin) => admin.query(`COMMENT ON DATABASE "${scale.database}" IS '${JSON.stringify(done).replace(/'/g, "''")}'`));
  log(`scale database ${scale.database}: generated in ${done.seconds} s`);
  return { url, marker: done, generated: true };
}

/** The callers runs put into the big database (the main bench's emails), their books and all that hangs off them. */
async function removeBenchCallers(c: pg.Client) {
  const callers = `SELECT id FROM users WHERE email LIKE 'bench-%@example.com' OR email LIKE 'creator-%@bench.invalid'`;
  await c.query(`DELETE FROM events WHERE book_id IN (SELECT id FROM books WHERE owner_id IN (${callers}))`);
  const { rowCount } = await c.query(`DELETE FROM books WHERE owner_id IN (${callers})`);
  await c.query(`DELETE FROM users WHERE id IN (${callers})`);
  return rowCount ?? 0;
}

async function tableCounts(c: pg.Client) {
  const { rows } = await c.query<{ users: number; books: number; memories: number; media: number; memberships: number }>(
    `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM books)::int AS books, (SELECT count(*) FROM submissions)::int AS memories,
            (SELECT count(*) FROM media)::int AS media, (SELECT count(*) FROM book_members)::int AS memberships`,
  );
  return rows[0];
}

// ---------------------------------------------------------------- the two sides

interface Worker {
  pid: number;
  stop(): Promise<void>;
}

interface Side {
  label: 'small' | 'big';
  env: Record<string, string>;
  schema?: string;
  ctx: BenchContext;
  api?: Service;
  worker?: Worker;
  doomed: { id: string; slug: string };
  exportUser: { id: string; apiKey: string };
  counts: Awaited<ReturnType<typeof tableCounts>>;
  /** Removes what the run left (the small side's schema, the big side's caller) and the side's temp dir. */
  cleanup(): Promise<void>;
}

const sideClient = <T>(side: { env: Record<string, string>; schema?: string }, fn: (c: pg.Client) => Promise<T>) => withClient(side.env.DATABASE_URL, fn, side.schema);

/** The caller (the main bench's seeds), the export user, the book to delete and the export user's key; then the processes. */
async function prepareSide(label: Side['label'], env: Record<string, string>, seeded: Scenario[], schema: string | undefined, cleanup: () => Promise<void>): Promise<Side> {
  const sizes = worldSizes(scale.factor);
  const t0 = performance.now();
  const ctx = await seedCaller(env, seeded);
  const partial = { env, schema };
  const slug = `scale-doomed-${randomBytes(3).toString('hex')}`;
  const { doomedId, exportUserId, counts } = await sideClient(partial, async (c) => {
    await prepareGenerator(c);
    const passwordHash = await hashPassword('a scale bench password');
    await seedExportUser(c, sizes.exportMemories, passwordHash);
    const doomedId = await seedDoomedBook(c, ctx.userId, slug, sizes.doomedMemories);
    // The books the deletion step's creates go to, one after another: creates elsewhere, spread as real ones are.
    await c.query(
      `WITH b AS (INSERT INTO books (id, slug, owner_id, title, theme, plan_slug)
                  SELECT gen_random_uuid(), 'scale-elsewhere-' || i, $1, 'Somewhere else ' || i, 'elegant_classic', 'plus' FROM generate_series(1, $2::int) AS i
                  RETURNING id)
       INSERT INTO book_members (book_id, user_id, role) SELECT id, $1, 'owner' FROM b`,
      [ctx.userId, ELSEWHERE_BOOKS],
    );
    await c.query('ANALYZE');
    const { rows } = await c.query<{ id: string }>('SELECT id FROM users WHERE email = $1 AND deleted_at IS NULL', [EXPORT_USER_EMAIL]);
    return { doomedId, exportUserId: rows[0].id, counts: await tableCounts(c) };
  });
  const exportKey = await ctx.withDb(async (db) => (await createTokenService({ db }).issueToken(db, exportUserId, `scale-export-${randomBytes(4).toString('hex')}`)).plaintext);
  log(
    `  ${label}: seeded in ${round((performance.now() - t0) / 1000, 1)} s; ${counts.users} users, ${counts.books} books, ${counts.memories} memories, ` +
      `${counts.media} media, ${counts.memberships} memberships`,
  );
  return { label, env, schema, ctx, doomed: { id: doomedId, slug }, exportUser: { id: exportUserId, apiKey: exportKey }, counts, cleanup };
}

async function startProcesses(side: Side, selected: Scenario[]) {
  side.api = await startService(side.env, ['serve', '--no-worker']);
  side.ctx.baseUrl = side.api.baseUrl;
  side.worker = await startWorker(side.env);
  log(`  ${side.label}: API ready in ${side.api.readyMs} ms, worker pid ${side.worker.pid}`);
  for (const s of selected) await s.setup?.(side.ctx);
}

async function startWorker(env: Record<string, string>): Promise<Worker> {
  // LOG_LEVEL info: the worker says when it runs. cwd is a temp dir so no .env is read.
  const child: ChildProcess = spawn(process.execPath, [BIN, 'worker'], { cwd: os.tmpdir(), env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const tail: string[] = [];
  let running = false;
  const keep = (d: Buffer) => {
    const lines = d.toString().split('\n').filter(Boolean);
    if (lines.some((l) => l.includes('memorybook worker running'))) running = true;
    tail.push(...lines);
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const until = Date.now() + 60_000; !running; await sleep(50)) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`memorybook worker exited:\n${tail.join('\n')}`);
    if (Date.now() > until) throw new Error(`memorybook worker did not start:\n${tail.join('\n')}`);
  }
  return {
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      children.delete(child);
    },
  };
}

// ---------------------------------------------------------------- step 1: reads and creates

interface Compared {
  scenario: string;
  kind: 'read' | 'create';
  small: Measurement;
  big: Measurement;
  /** big p99 / small p99 of the same round, per round, and their median (what is judged). */
  p99_ratio_rounds: number[];
  p99_ratio: number;
  rps_ratio: number;
  target: number;
  pass: boolean;
}

async function readsAndCreates(sides: Side[], selected: Scenario[]): Promise<Compared[]> {
  if (settings.warmupSeconds > 0) {
    for (const side of sides) for (const s of selected) await autocannon({ ...autocannonOptions(side.ctx, s), duration: settings.warmupSeconds });
  }
  const seconds = settings.durationSeconds / settings.rounds;
  log(`  ${selected.length} scenarios × ${settings.rounds} rounds × ${sides.length} sides, ${round(seconds, 1)} s each …`);
  const runs = new Map(sides.map((side) => [side.label, new Map<string, RoundRun[]>(selected.map((s) => [s.name, []]))]));
  for (let i = 0; i < settings.rounds; i++) {
    for (const s of selected) {
      // Turn about, so neither side always runs right after the other's load.
      for (const side of i % 2 ? [...sides].reverse() : sides) runs.get(side.label)!.get(s.name)!.push(await runRound(side.ctx, side.api!, s, seconds));
    }
  }
  const [small, big] = sides;
  return selected.map((s) => {
    const a = aggregate(runs.get(small.label)!.get(s.name)!);
    const b = aggregate(runs.get(big.label)!.get(s.name)!);
    const kind = s.method === 'GET' ? ('read' as const) : ('create' as const);
    const perRound = a.rounds.map((r, i) => round(b.rounds[i].latency_ms.p99 / Math.max(r.latency_ms.p99, 0.001), 2));
    const ratio = round(median(perRound), 2);
    const target = kind === 'read' ? TARGETS.readP99Ratio : TARGETS.createP99Ratio;
    const failed = a.errors + a.non2xx + b.errors + b.non2xx > 0;
    log(`  ${s.name}: small ${a.rps} req/s p99 ${a.latency_ms.p99} ms; big ${b.rps} req/s p99 ${b.latency_ms.p99} ms; p99 ratio per round ${perRound.join(', ')}`);
    return { scenario: s.name, kind, small: a, big: b, p99_ratio_rounds: perRound, p99_ratio: ratio, rps_ratio: round(b.rps / a.rps, 2), target, pass: !failed && ratio <= target };
  });
}

// ---------------------------------------------------------------- step 2: the account export


interface ExportMeasured {
  memories: number;
  status: string;
  seconds: number | null;
  wall_seconds: number;
  rss_before_mb: number;
  peak_rss_mb: number;
  peak_measured_by: 'VmHWM' | 'VmRSS samples';
  size_mb: number | null;
  pass: boolean;
}

async function accountExport(side: Side): Promise<ExportMeasured> {
  const memories = await sideClient(side, async (c) => {
    // One export a day per user: this bench's earlier ones would refuse today's.
    await c.query(`DELETE FROM exports WHERE kind = 'account' AND account_id = $1`, [side.exportUser.id]);
    const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM submissions WHERE contributor_user_id = $1', [side.exportUser.id]);
    return rows[0].n;
  });
  const pid = side.worker!.pid;
  await sleep(1500);
  const rss = watchPeakRss(pid);
  const before = rss.before;
  const t0 = performance.now();
  const auth = { authorization: `Bearer ${side.exportUser.apiKey}` };
  try {
    const res = await fetch(`${side.api!.baseUrl}/api/v1/me/export/`, { method: 'POST', headers: { ...auth, 'idempotency-key': randomUUID() } });
    if (res.status !== 202) throw new Error(`${side.label}: POST /me/export/ answered ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    let job: Record<string, unknown>;
    for (const until = Date.now() + 15 * 60_000; ; await sleep(200)) {
      job = (await (await fetch(`${side.api!.baseUrl}/api/v1/me/export/${id}/`, { headers: auth })).json()) as Record<string, unknown>;
      if (job.status === 'complete' || job.status === 'failed') break;
      if (Date.now() > until) throw new Error(`${side.label}: the account export did not finish in 15 minutes`);
    }
    const wall = (performance.now() - t0) / 1000;
    const { peak, measuredBy } = rss.stop();
    const seconds = job.started_at && job.completed_at ? (Date.parse(String(job.completed_at)) - Date.parse(String(job.started_at))) / 1000 : null;
    const out: ExportMeasured = {
      memories,
      status: String(job.status),
      seconds: seconds === null ? null : round(seconds),
      wall_seconds: round(wall),
      rss_before_mb: round(before / MB, 0),
      peak_rss_mb: round(peak / MB, 0),
      peak_measured_by: measuredBy,
      size_mb: typeof job.size_bytes === 'number' ? round(job.size_bytes / MB, 1) : null,
      pass: job.status === 'complete' && peak / MB < TARGETS.exportPeakRssMb,
    };
    log(`  ${side.label}: account export of ${memories} memories: ${JSON.stringify(out)}`);
    return out;
  } finally {
    rss.stop();
  }
}

// ---------------------------------------------------------------- step 3: a big book deleted while creates run

interface DeletionMeasured {
  memories: number;
  creates_rate: number;
  delete_status: number;
  delete_ms: number;
  /** From the DELETE's answer until the book's row (and so every row that hangs off it) is gone. */
  cascade_seconds: number;
  /** The purge job's own start to completion, as the queue recorded it. */
  purge_job_seconds: number | null;
  creates_before: { requests: number; p50_ms: number | null; p99_ms: number | null };
  creates_during: { requests: number; p50_ms: number | null; p99_ms: number | null; max_ms: number | null; non2xx: number };
  pass: boolean;
}

async function deletionUnderCreates(side: Side, rate: number): Promise<DeletionMeasured> {
  const memories = await sideClient(side, async (c) => {
    const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM submissions WHERE book_id = $1', [side.doomed.id]);
    return rows[0].n;
  });
  // The create scenario's request, sent to the other books in turn, each with a fresh Idempotency-Key, at a
  // steady rate whatever the answers take (open loop), timed by this client from send to the answer's end.
  // (autocannon's rate limit showed about 40 ms on every request at 10 or 50 a second, against 2 ms for the
  // same create sent back to back: its own pacing, not the service.)
  const create = mainScenario('submission-create');
  const headers = { ...create.headers!(side.ctx), 'content-type': 'application/json' };
  const body = JSON.stringify(create.body!(side.ctx));
  let next = 0;
  const answers: { t: number; ms: number; status: number }[] = [];
  const inFlight = new Set<Promise<void>>();
  let sending = true;
  const send = () => {
    const t0 = performance.now();
    const request = fetch(`${side.api!.baseUrl}/api/v1/books/scale-elsewhere-${1 + (next++ % ELSEWHERE_BOOKS)}/submissions/`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body,
    })
      .then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      })
      .catch(() => 0)
      .then((status) => {
        const t = performance.now();
        answers.push({ t, ms: t - t0, status });
      });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  };
  const pacing = (async () => {
    const startedAt = performance.now();
    for (let n = 0; sending; n++) {
      send();
      await sleep(Math.max(0, startedAt + ((n + 1) * 1000) / rate - performance.now()));
    }
  })();
  const run = {
    stop() {
      sending = false;
    },
  };
  const finished = pacing.then(() => Promise.all(inFlight));
  try {
    await sleep(5_000);
    const tAsked = performance.now();
    const res = await fetch(`${side.api!.baseUrl}/api/v1/books/${side.doomed.slug}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${side.ctx.apiKey}`, 'idempotency-key': randomUUID() },
    });
    const tAnswered = performance.now();
    if (res.status !== 204) throw new Error(`${side.label}: DELETE answered ${res.status} ${await res.text()}`);
    const tGone = await sideClient(side, async (c) => {
      for (const until = Date.now() + 30 * 60_000; ; await sleep(100)) {
        const { rowCount } = await c.query('SELECT 1 FROM books WHERE id = $1', [side.doomed.id]);
        if (!rowCount) return performance.now();
        if (Date.now() > until) throw new Error(`${side.label}: the book's rows were still there after 30 minutes`);
      }
    });
    await sleep(2_000);
    run.stop();
    await finished;
    const before = answers.filter((a) => a.t < tAsked);
    const during = answers.filter((a) => a.t >= tAnswered && a.t <= tGone);
    const ms = (xs: typeof answers) => xs.map((a) => a.ms);
    const p = (xs: typeof answers, q: number) => {
      const v = percentile(ms(xs), q);
      return v === null ? null : round(v, 1);
    };
    const purgeJob = await sideClient(side, async (c) => {
      try {
        const { rows } = await c.query<{ s: number }>(
          `SELECT extract(epoch FROM completed_on - started_on)::float8 AS s FROM ${side.schema ? `"${side.schema}_pgboss"` : 'pgboss'}.job
           WHERE name = 'book.purge' AND data->>'bookId' = $1 AND state = 'completed' ORDER BY completed_on DESC LIMIT 1`,
          [side.doomed.id],
        );
        return rows[0] ? round(rows[0].s) : null;
      } catch {
        return null;
      }
    });
    const duringP99 = p(during, 99);
    const out: DeletionMeasured = {
      memories,
      creates_rate: rate,
      delete_status: res.status,
      delete_ms: round(tAnswered - tAsked, 0),
      cascade_seconds: round((tGone - tAnswered) / 1000),
      purge_job_seconds: purgeJob,
      creates_before: { requests: before.length, p50_ms: p(before, 50), p99_ms: p(before, 99) },
      creates_during: {
        requests: during.length,
        p50_ms: p(during, 50),
        p99_ms: duringP99,
        max_ms: during.length ? round(Math.max(...ms(during)), 1) : null,
        non2xx: during.filter((a) => a.status < 200 || a.status > 299).length,
      },
      pass: duringP99 !== null && duringP99 <= TARGETS.deletionCreatesP99Ms && during.every((a) => a.status >= 200 && a.status < 300),
    };
    log(`  ${side.label}: deletion of ${memories} memories under ${rate} creates/s: ${JSON.stringify(out)}`);
    return out;
  } finally {
    run.stop();
  }
}

// ---------------------------------------------------------------- report

function printReport(compared: Compared[], exports: Record<string, ExportMeasured>, deletions: Record<string, DeletionMeasured>) {
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  if (compared.length) {
    const header = ['scenario', 'small req/s', 'small p99', 'big req/s', 'big p99', 'req/s ratio', 'p99 ratio (rounds)', 'target', ''];
    const rows = compared.map((c) => [
      c.scenario,
      String(c.small.rps),
      `${c.small.latency_ms.p99} ms`,
      String(c.big.rps),
      `${c.big.latency_ms.p99} ms`,
      c.rps_ratio.toFixed(2),
      `${c.p99_ratio.toFixed(2)} (${c.p99_ratio_rounds.join(', ')})`,
      `≤ ${c.target}×`,
      verdict(c.pass),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log('\n' + line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of rows) console.log(line(r));
  }
  const [s, b] = [exports.small, exports.big];
  if (s && b) {
    console.log(
      `\naccount export (${b.memories} memories): small ${s.peak_rss_mb} MB peak RSS (${s.seconds} s), big ${b.peak_rss_mb} MB peak RSS (${b.seconds} s); ` +
        `target < ${TARGETS.exportPeakRssMb} MB: ${verdict(s.pass && b.pass)}`,
    );
  }
  const [ds, db] = [deletions.small, deletions.big];
  if (ds && db) {
    console.log(
      `book deletion (${db.memories} memories) under ${db.creates_rate} creates/s elsewhere: creates p99 during the cascade small ${ds.creates_during.p99_ms} ms ` +
        `(before ${ds.creates_before.p99_ms} ms, cascade ${ds.cascade_seconds} s), big ${db.creates_during.p99_ms} ms (before ${db.creates_before.p99_ms} ms, ` +
        `cascade ${db.cascade_seconds} s); target ≤ ${TARGETS.deletionCreatesP99Ms} ms: ${verdict(ds.pass && db.pass)}`,
    );
  }
  const load = os.loadavg()[0];
  if (load > os.cpus().length) console.log(`\nnote: the 1-minute load average is ${load.toFixed(1)} on ${os.cpus().length} CPUs: other work shares this machine, so the figures are noisy.`);
}

// ---------------------------------------------------------------- main

export async function runScaleBench(args: string[]): Promise<number> {
  const unknownArgs = args.filter((a) => a !== '--regenerate');
  if (unknownArgs.length) throw new Error(`bench scale: unknown argument(s) ${unknownArgs.join(' ')} (only --regenerate)`);
  const unknownSteps = [...scale.steps].filter((s) => !(STEPS as readonly string[]).includes(s));
  if (unknownSteps.length) throw new Error(`BENCH_SCALE_STEPS: unknown step(s) ${unknownSteps.join(', ')} (known: ${STEPS.join(', ')})`);
  const deadline = setTimeout(() => {
    console.error(`bench scale: still running after ${scale.deadlineMinutes} minutes, giving up`);
    process.exit(1);
  }, scale.deadlineMinutes * 60_000);
  deadline.unref();

  const selected = scale.steps.has('reads') ? selectedScenarios() : [];
  // The deletion step's creates need the create scenario's book, whichever scenarios step 1 runs.
  const seeded = selected.some((s) => s.name === 'submission-create') || !scale.steps.has('delete') ? selected : [...selected, mainScenario('submission-create')];

  if (settings.build) {
    log('building (tsc -p tsconfig.build.json) …');
    await new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
      c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc exited ${code}`))));
    });
  }
  log(
    `bench scale: factor ${scale.factor}, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per scenario and side ` +
      `in ${settings.rounds} rounds, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
  );

  const big = await ensureScaleDatabase(args.includes('--regenerate'));
  const sides: Side[] = [];
  const cleanupAll = async () => {
    for (const side of sides) {
      await side.api?.stop().catch(() => {});
      await side.worker?.stop().catch(() => {});
      await side.cleanup().catch((err) => console.error(`cleanup of the ${side.label} side failed: ${err}`));
    }
  };
  pendingCleanups.add(cleanupAll);
  try {
    // The small side: the main bench's database, in a throw-away schema.
    log('seeding the small database (the main bench\'s seeds) …');
    const backend = postgresBackend();
    const smallDir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-scale-small-'));
    const smallEnv: Record<string, string> = { ...baseEnv(), ...(await backend.prepare()), DATA_DIR: smallDir };
    sides.push(
      await prepareSide('small', smallEnv, seeded, smallEnv.DATABASE_SCHEMA, async () => {
        await backend.cleanup();
        rmSync(smallDir, { recursive: true, force: true });
      }),
    );

    log('seeding the big database (the same caller, in the generated world) …');
    const removed = await withClient(big.url, removeBenchCallers);
    if (removed) log(`  big: removed ${removed} books left by an earlier run`);
    const bigDir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-scale-big-'));
    const bigEnv: Record<string, string> = { ...baseEnv(), DATABASE_URL: big.url, DATA_DIR: bigDir };
    sides.push(
      await prepareSide('big', bigEnv, seeded, undefined, async () => {
        const t0 = performance.now();
        const n = await withClient(big.url, removeBenchCallers);
        log(`  big: this run's caller removed (${n} books) in ${round((performance.now() - t0) / 1000, 1)} s`);
        rmSync(bigDir, { recursive: true, force: true });
      }),
    );

    for (const side of sides) await startProcesses(side, seeded);

    const compared = selected.length ? await readsAndCreates(sides, selected) : [];
    const exports: Record<string, ExportMeasured> = {};
    if (scale.steps.has('export')) {
      log('account export …');
      for (const side of sides) exports[side.label] = await accountExport(side);
    }
    const deletions: Record<string, DeletionMeasured> = {};
    if (scale.steps.has('delete')) {
      const rate = scale.deleteRate ?? DEFAULT_DELETE_RATE;
      log(`book deletion under ${rate} creates/s …`);
      for (const side of sides) deletions[side.label] = await deletionUnderCreates(side, rate);
    }

    printReport(compared, exports, deletions);
    const pass = compared.every((c) => c.pass) && Object.values(exports).every((e) => e.pass) && Object.values(deletions).every((d) => d.pass);
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(
      RESULTS_FILE,
      JSON.stringify(
        {
          generated_at: new Date().toISOString(),
          machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model.trim() ?? null, node: process.version, load_avg_1m: round(os.loadavg()[0]) },
          settings: { factor: scale.factor, connections: settings.connections, duration_s: settings.durationSeconds, rounds: settings.rounds, warmup_s: settings.warmupSeconds },
          targets: TARGETS,
          databases: { small: sides[0].counts, big: { ...sides[1].counts, database: scale.database, marker: big.marker } },
          reads_and_creates: compared,
          account_export: exports,
          deletion: deletions,
          pass,
        },
        null,
        2,
      ) + '\n',
    );
    log(`\nwrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
    log(pass ? 'targets met' : 'targets missed (FAIL above)');
    return pass ? 0 : 1;
  } finally {
    await cleanupAll();
    pendingCleanups.delete(cleanupAll);
  }
}
