/**
 * `npm run bench -- create-floor`: how many `POST /books/` this machine could
 * answer if HTTP and the service's own work cost nothing. Only the create's
 * own database work runs: the idempotency claim (BEGIN in the same round
 * trip), create_book (with the bench's title, so its base slug is taken and a
 * suffixed one is used, as in the book-create scenario), then the stored
 * answer with COMMIT. They go through the service's own database layer and
 * stores (its pool of 10 on PostgreSQL), from BENCH_CONNECTIONS loops at once
 * (32), on each backend. The caller's authentication is left out: the
 * service batches its lookups across requests. On PostgreSQL, pgbench (when
 * on PATH) also sends the same statements from 10 connections, so the
 * database is measured with no Node.js at all; its ids are random (v4) where
 * the service's are time-ordered (v7).
 *
 * Read it beside the bench's book-create row: the difference is what HTTP,
 * Fastify, validation and the service add. The main bench measures this floor
 * itself after its rounds when book-create is among its scenarios, and prints
 * the ratio (targets: at least 0.7 on PostgreSQL, 0.85 on PGlite). On PGlite the database runs on the
 * service's own thread, so its floor is also a ceiling for the service.
 * Settings: BENCH_BACKENDS, BENCH_DATABASE_URL, BENCH_DURATION (10 s),
 * BENCH_CONNECTIONS (32).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, PLAN_CACHE_MODE, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { uuidv7 } from '../src/lib/ids.js';
import { BOOK_COLUMNS, insertBook } from '../src/services/books/book-repository.js';
import { DEFAULT_THEME } from '../src/services/books/book-types.js';
import { slugCandidates, slugify } from '../src/services/books/slug.js';
import { createIdempotencyStore } from '../src/services/idempotency/idempotency-store.js';
import { postgresCpuMs, postgresCpuSince } from './proc-cpu.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'postgres,pglite').split(',').map((s) => s.trim()).filter(Boolean);
const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const LOOPS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARMUP_SECONDS = 2;
/** The book-create scenario's title (bench/run.ts). */
const TITLE = 'A book from the benchmark';
/** Connections: the service's default pool (DATABASE_POOL_SIZE). */
const POOL_SIZE = 10;
/** About the size of a book's JSON, the answer a create stores. */
const ANSWER_BODY = JSON.stringify({ pad: 'x'.repeat(700) });

interface Floor {
  creates: number;
  seconds: number;
  processCpuUs: number;
  databaseCpuUs: number | null;
}

/** One create's database work, as the service sends it (see createIdempotencyHooks and BookService.createBook). */
async function createOnce(db: Db, store: ReturnType<typeof createIdempotencyStore>, userId: string) {
  const key = `floor-${randomBytes(9).toString('hex')}`;
  const fingerprint = randomBytes(32).toString('hex');
  const claim = await store.claim(userId, key, fingerprint);
  if (claim.kind !== 'claimed') throw new Error(`claim answered ${claim.kind}`);
  const tx = claim.tx;
  try {
    // Held, as the request's transaction is by the request.
    const book = await db.holding(tx, () =>
      insertBook(tx, {
        id: uuidv7(),
        slugs: slugCandidates(TITLE),
        ownerId: userId,
        title: TITLE,
        subtitle: '',
        theme: DEFAULT_THEME,
        settings: {},
        useCaseSlug: null,
        isPublic: false,
        planSlug: null,
        billingRecordId: uuidv7(),
      }),
    );
    if (!book) throw new Error('no free slug');
    const headers = { location: `/api/v1/books/${book.slug}/`, etag: `"${book.updated_at}"` };
    await tx.commit(store.answerScript(userId, key, fingerprint, { status: 201, headers, body: ANSWER_BODY }));
  } catch (err) {
    await tx.rollback();
    throw err;
  }
}

/**
 * LOOPS loops of creates, each starting new ones for `seconds`; returns how
 * many completed (those that end after the window too: the caller times the
 * whole run). The first error stops every loop, then is thrown.
 */
async function runLoops(db: Db, userId: string, seconds: number): Promise<number> {
  const store = createIdempotencyStore({ db });
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let failure: unknown;
  await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      while (failure === undefined && performance.now() < until) {
        try {
          await createOnce(db, store, userId);
          done++;
        } catch (err) {
          failure ??= err;
        }
      }
    }),
  );
  if (failure !== undefined) throw failure;
  return done;
}

async function measure(db: Db): Promise<Floor> {
  await migrate(db);
  const userId = uuidv7();
  await db.query(`INSERT INTO users (id, email) VALUES ($1, $2)`, [userId, `floor-${userId}@example.com`]);
  await runLoops(db, userId, WARMUP_SECONDS);
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpuMs();
  const t0 = performance.now();
  const creates = await runLoops(db, userId, SECONDS);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pg1 = postgresCpuMs();
  return {
    creates,
    seconds,
    processCpuUs: (cpu.user + cpu.system) / creates,
    databaseCpuUs: pg0 && pg1 && db.kind === 'postgres' ? (postgresCpuSince(pg0, pg1) * 1000) / creates : null,
  };
}

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The same statements from pgbench's own clients (simple protocol; the
 * service prepares create_book's call); the answer is the store's own
 * statement, with pgbench's :k in its key. Needs a user row and the base
 * slug taken: measure() leaves both.
 */
function pgbenchFloor(db: Db, schema: string, userId: string): string {
  const probe = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) return 'pgbench not found on PATH';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-floor-'));
  try {
    const file = path.join(dir, 'create.sql');
    const u = `'${userId}'::uuid`;
    const headers = { location: '/api/v1/books/x/', etag: '"x"' };
    const answer = createIdempotencyStore({ db }).answerScript(userId, 'pgb-:k', 'fp-:k', { status: 201, headers, body: ANSWER_BODY });
    writeFileSync(
      file,
      [
        `\\set k random(1, 1000000000000)`,
        `BEGIN\\; SELECT * FROM idempotency_claim(${u}, 'pgb-:k', :k::bigint)\\; SAVEPOINT effect;`,
        `SELECT ${BOOK_COLUMNS} FROM create_book(ARRAY['${slugify(TITLE)}', '${slugify(TITLE)}-:k'], gen_random_uuid(), ${u}, '${TITLE}', '', '${DEFAULT_THEME}', '{}'::jsonb, NULL, false, NULL, gen_random_uuid()) AS b;`,
        `${answer}\\; COMMIT;`,
        '',
      ].join('\n'),
    );
    const run = spawnSync('pgbench', ['-n', '-M', 'simple', '-c', String(POOL_SIZE), '-j', '2', '-T', String(SECONDS), '-f', file, DATABASE_URL], {
      encoding: 'utf8',
      timeout: (SECONDS + 60) * 1000,
      // The settings of the service's own connections (createPostgresDb).
      env: { ...process.env, PGOPTIONS: `-c TimeZone=UTC -c plan_cache_mode=${PLAN_CACHE_MODE} -c search_path=${schema}` },
    });
    const tps = /tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)/.exec(run.stdout ?? '')?.[1];
    if (run.status !== 0 || !tps) return `pgbench failed: ${(run.error?.message ?? run.stderr ?? '').trim().split('\n').pop()}`;
    return `${Math.round(Number(tps)).toLocaleString('en-US')} creates/s`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function line(backend: string, how: string, f: Floor) {
  const db = f.databaseCpuUs === null ? '' : `, database ${Math.round(f.databaseCpuUs)} µs`;
  const rate = Math.round(f.creates / f.seconds).toLocaleString('en-US');
  console.log(`  ${backend.padEnd(8)} ${how.padEnd(26)} ${rate} creates/s; CPU per create: this process ${Math.round(f.processCpuUs)} µs${db}`);
}

/** One backend's floor, with the PostgreSQL pgbench figure beside it (a sentence when pgbench is not there). */
async function floorOf(backend: string, o: { pgbench: boolean }): Promise<{ floor: Floor; pgbench: string | null }> {
  if (backend === 'postgres') {
    const schema = `bench_floor_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    await admin(`CREATE SCHEMA ${schema}`);
    try {
      const db = createPostgresDb(DATABASE_URL, { schema, poolSize: POOL_SIZE });
      try {
        const floor = await measure(db);
        if (!o.pgbench) return { floor, pgbench: null };
        const [user] = await db.query<{ id: string }>(`SELECT id FROM users LIMIT 1`);
        return { floor, pgbench: pgbenchFloor(db, schema, user.id) };
      } finally {
        await db.close();
      }
    } finally {
      await admin(`DROP SCHEMA ${schema} CASCADE`);
    }
  }
  if (backend === 'pglite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-floor-'));
    try {
      const db = await createPgliteDb(dir);
      try {
        return { floor: await measure(db), pgbench: null };
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`unknown backend ${backend} (known: postgres, pglite)`);
}

/** Creates a second the floor reaches on one backend: the main bench sets its book-create row against it. */
export async function createFloorRate(backend: string): Promise<number> {
  const { floor } = await floorOf(backend, { pgbench: false });
  return floor.creates / floor.seconds;
}

export async function runCreateFloorBench(): Promise<number> {
  console.log(`create floor: POST /books/'s database work without HTTP, ${LOOPS} at a time, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s, ${os.cpus().length} CPUs, node ${process.version}`);
  for (const backend of BACKENDS) {
    const { floor, pgbench } = await floorOf(backend, { pgbench: true });
    line(backend, backend === 'postgres' ? `node-postgres (pool of ${POOL_SIZE})` : 'in this process', floor);
    if (pgbench !== null) console.log(`  ${backend.padEnd(8)} ${`pgbench (${POOL_SIZE} connections)`.padEnd(26)} ${pgbench}`);
  }
  return 0;
}
