/**
 * `npm run bench -- start [checkout or commit …]`: the start-to-ready time of
 * this checkout, and of each other checkout named (a built copy of memorybook
 * at another commit, with its own node_modules; or a commit, checked out and
 * installed once by bench/baseline.ts), measured turn about on this machine,
 * on the embedded database and on PostgreSQL. A start time depends as much on
 * the machine as on the code, so a figure measured elsewhere compares fairly
 * only through a baseline run here.
 *
 * Each checkout gets a database of its own on each backend (a temp data
 * folder; a private schema on BENCH_DATABASE_URL's server, dropped at the
 * end) with 1,000 books, made through its own CLI and API (so any schema
 * version works), then is started BENCH_START_ROUNDS times (default 6),
 * alternating with the others: the time from spawning `memorybook serve` to
 * the first 200 from /readyz, the CPU the process used by then (user and
 * system, all its threads: on a shared machine the steadier figure) and its
 * RSS then. Each figure is reported as its median. This checkout is built
 * first (unless BENCH_SKIP_BUILD=1); the others are used as they are.
 * Settings: BENCH_START_ROUNDS, BENCH_START_BOOKS (1000), BENCH_START_BACKENDS
 * (pglite,postgres), BENCH_DATABASE_URL, BENCH_SKIP_BUILD.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBaseline } from './baseline.js';
import { processCpuMs } from './proc-cpu.js';
import { BACKENDS, pendingCleanups, type Backend } from './run.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 6);
const BOOKS = Number(process.env.BENCH_START_BOOKS ?? 1000);
const BACKEND_NAMES = (process.env.BENCH_START_BACKENDS ?? 'pglite,postgres').split(',').filter(Boolean);
const READY_TIMEOUT_MS = 60_000;
const PASSWORD = 'bench-start-password-1';

/** One checkout on one backend: its own database, and what its starts measured. */
interface Checkout {
  dir: string;
  backend: string;
  env: Record<string, string>;
  startMs: number[];
  cpuMs: number[];
  rssMb: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

function cli(c: Checkout, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/memorybook.js', ...args], { cwd: c.dir, env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${c.dir}: memorybook ${args.slice(0, 2).join(' ')} exited ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? ''));
      } catch {
        reject(new Error(`${c.dir}: memorybook ${args.slice(0, 2).join(' ')} printed no JSON: ${out}`));
      }
    });
  });
}

/** Starts `serve`, waits for /readyz; returns the child, the time to ready and the RSS then. */
async function startServe(c: Checkout): Promise<{ child: ChildProcess; ms: number; cpuMs: number; rssMb: number; port: number }> {
  const port = await freePort();
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['bin/memorybook.js', 'serve'], { cwd: c.dir, env: { ...c.env, PORT: String(port) }, stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${c.dir}: serve exited before it was ready`);
    if (performance.now() - startedAt > READY_TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`${c.dir}: not ready after ${READY_TIMEOUT_MS} ms`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.ok) {
        const ms = performance.now() - startedAt;
        const cpuMs = processCpuMs(child.pid) ?? NaN;
        const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return { child, ms, cpuMs, rssMb: rss ? Number(rss[1]) / 1024 : NaN, port };
      }
    } catch {
      /* not listening yet */
    }
    await sleep(5);
  }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
  await exited;
}

/** A user with BOOKS books, made through the checkout's own CLI and API. */
async function seed(c: Checkout) {
  const email = `start-${randomBytes(4).toString('hex')}@bench.invalid`;
  await cli(c, ['user', 'create', '--email', email, '--password', PASSWORD]);
  const key = String((await cli(c, ['token', 'issue', '--email', email, '--name', 'bench-start'])).plaintext);
  const { child, port } = await startServe(c);
  try {
    let next = 0;
    const worker = async () => {
      while (next < BOOKS) {
        const i = next++;
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/books/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `start-seed-${i}` },
          body: JSON.stringify({ title: `Start bench book ${i}` }),
        });
        if (res.status !== 201) throw new Error(`${c.dir}: POST /books/ answered ${res.status}: ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  } finally {
    await stop(child);
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, median, min: s[0], max: s[s.length - 1] };
};

export async function runStartBench(others: string[]): Promise<number> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    console.log('building (tsc -p tsconfig.build.json) …');
    const built = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('build failed');
  }
  const dirs: string[] = [];
  for (const other of others) dirs.push(existsSync(other) ? path.resolve(other) : (await prepareBaseline(other)).dir);
  for (const dir of [ROOT, ...dirs]) {
    if (!existsSync(path.join(dir, 'dist/cli/main.js'))) throw new Error(`${dir} is not a built checkout (no dist/cli/main.js): run npm ci and the build there first`);
  }
  const backends: Backend[] = [];
  const dataDirs: string[] = [];
  const cleanup = async () => {
    for (const b of backends) await b.cleanup().catch((err: unknown) => console.error(`cleanup of ${b.name} failed: ${String(err)}`));
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  };
  pendingCleanups.add(cleanup);
  try {
    const checkouts: Checkout[] = [];
    for (const backendName of BACKEND_NAMES) {
      if (!BACKENDS[backendName]) throw new Error(`BENCH_START_BACKENDS: no backend "${backendName}" (${Object.keys(BACKENDS).join(', ')})`);
      for (const dir of [ROOT, ...dirs]) {
        // A backend per checkout: each gets its own database (a schema on PostgreSQL), at its own schema version.
        const backend = BACKENDS[backendName]();
        backends.push(backend);
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-start-'));
        dataDirs.push(dataDir);
        const env: Record<string, string> = { NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn', HOST: '127.0.0.1', DATA_DIR: dataDir };
        for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k]) env[k] = process.env[k]!;
        Object.assign(env, await backend.prepare());
        checkouts.push({ dir, backend: backendName, env, startMs: [], cpuMs: [], rssMb: [] });
      }
    }
    for (const c of checkouts) {
      console.log(`seeding ${BOOKS} books for ${c.dir} on ${c.backend} …`);
      await seed(c);
    }
    console.log(`bench start: ${ROUNDS} starts per checkout and backend, turn about, ${os.cpus().length} CPUs, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of checkouts) {
        const { child, ms, cpuMs, rssMb } = await startServe(c);
        await stop(child);
        c.startMs.push(ms);
        c.cpuMs.push(cpuMs);
        c.rssMb.push(rssMb);
        await sleep(300); // let the last one's exit settle before the next start
      }
    }
    console.log(`load at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (const backendName of BACKEND_NAMES) {
      const mine = checkouts.filter((c) => c.backend === backendName);
      const base = mine[0];
      for (const c of mine) {
        const s = stats(c.startMs);
        const cpu = stats(c.cpuMs);
        const rss = stats(c.rssMb);
        console.log(
          `${backendName} ${c.dir}: start-to-ready median ${Math.round(s.median)} ms (${Math.round(s.min)}–${Math.round(s.max)}; ${c.startMs.map(Math.round).join(', ')}), ` +
            `CPU median ${Math.round(cpu.median)} ms (${c.cpuMs.map(Math.round).join(', ')}), RSS at ready ${Math.round(rss.median)} MB` +
            (c === base ? '' : `; this checkout takes ${(base.startMs.length ? stats(base.startMs).median / s.median : NaN).toFixed(2)}× its time, ${(stats(base.cpuMs).median / cpu.median).toFixed(2)}× its CPU`),
        );
      }
    }
    return 0;
  } finally {
    await cleanup();
    pendingCleanups.delete(cleanup);
  }
}
