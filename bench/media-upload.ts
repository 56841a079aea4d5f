/**
 * `npm run bench -- media` (or `node --import tsx bench/media-upload.ts`):
 * a 90 MB video upload over a real socket, streamed from disk by the client
 * (never held in memory), to the real service in a child process, on each
 * store (local disk; S3 = s3rver in a child process of its own). Per store:
 *
 * - wall time of the upload against a bare pipe (target: at most 1.5×): a
 *   bare Node HTTP server in the same kind of child process that pipes the
 *   same request body into the same store. For the local store that is a file
 *   on the same disk. For S3 it is the same S3 server, through the SDK's own
 *   streaming uploader (lib-storage, its default parts and queue): the bytes
 *   have to reach that server either way, and s3rver takes them several times
 *   slower than a disk, so a pipe to disk would measure s3rver rather than
 *   the service. For the breakdown it also times the pipe to disk on S3 too,
 *   the same pipe with the file fsynced before answering (the local store
 *   makes every object durable before it answers too, though it flushes while
 *   the bytes arrive rather than all at the end), and on S3 the same file put
 *   straight from disk into the same S3 server by a bare SDK client;
 * - the service process's peak RSS growth during the upload (VmHWM, reset
 *   through /proc/<pid>/clear_refs just before, and VmRSS sampled every 5 ms),
 *   on the first full-size upload after start (cold) and on the later rounds
 *   (warm); target: at most 32 MB;
 * - an over-cap upload (a 30 MB photo): 413, and 0 bytes left in the store.
 *
 * The service runs `serve --no-worker` on PostgreSQL (a throw-away schema),
 * so background processing of the uploads never runs inside a measurement;
 * BENCH_MEDIA_DATABASE=pglite runs it on PGlite with its in-process worker
 * (each upload is deleted again and the service left to go idle between
 * rounds). The premium plan's max_video_bytes is raised in the bench's own
 * database to the 90 MB request ceiling, as an operator would edit a plan.
 *
 * Settings: BENCH_MEDIA_ROUNDS (5), BENCH_MEDIA_STORES=local,s3,
 * BENCH_MEDIA_DATABASE=postgres|pglite, BENCH_DATABASE_URL, BENCH_SKIP_BUILD=1,
 * BENCH_PROFILE=1 (the service runs with --cpu-prof; profiles land in bench/results/profiles/),
 * BENCH_NODE_OPTIONS (NODE_OPTIONS for the service and the baselines, e.g. --max-semi-space-size=4),
 * BENCH_SERVICE_FLAGS (node flags for the service alone, e.g. --trace-gc), BENCH_SERVICE_LOG (a file the service's output is appended to).
 * Writes bench/results/media-latest.json; exits 1 when a target is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { watchPeakRss } from './proc-cpu.js';
import { readdir, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'memorybook.js');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'media-latest.json');

const MB = 1_048_576;
/** The whole multipart request may be 90 MB: the file is a little under, so preamble and epilogue fit. */
const CEILING_BYTES = 90 * MB;
const VIDEO_BYTES = CEILING_BYTES - 4096;
const OVER_CAP_PHOTO_BYTES = 30 * MB;
const TARGET_RSS_GROWTH_BYTES = 32 * MB;
const TARGET_TIME_RATIO = 1.5;

const settings = {
  rounds: intEnv('BENCH_MEDIA_ROUNDS', 5),
  stores: (process.env.BENCH_MEDIA_STORES ?? 'local,s3').split(',').map((s) => s.trim()).filter(Boolean) as ('local' | 's3')[],
  database: (process.env.BENCH_MEDIA_DATABASE ?? 'postgres') as 'postgres' | 'pglite',
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  build: process.env.BENCH_SKIP_BUILD !== '1',
  profile: process.env.BENCH_PROFILE === '1',
  serviceFlags: (process.env.BENCH_SERVICE_FLAGS ?? '').split(' ').filter(Boolean),
  serviceLog: process.env.BENCH_SERVICE_LOG || null,
};
const PROFILE_DIR = path.join(ROOT, 'bench', 'results', 'profiles');
const OVERALL_DEADLINE_MS = 15 * 60_000;

// ---------------------------------------------------------------- processes

const children = new Set<ChildProcess>();
const cleanups = new Set<() => Promise<void> | void>();

function killAll() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

interface Child {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr, the last 20,000 characters. */
  output(): string;
  stdout(): string;
  stop(): Promise<void>;
}

function startChild(args: string[], env: Record<string, string>, cwd = os.tmpdir()): Child {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  let stdout = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
  };
  child.stdout!.on('data', (d: Buffer) => {
    stdout = (stdout + d.toString()).slice(-20_000);
    keep(d);
  });
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid!,
    output: () => output,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      children.delete(child);
    },
  };
}

async function waitFor(what: string, c: Child, ready: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (c.child.exitCode !== null || c.child.signalCode !== null) throw new Error(`${what} exited:\n${c.output()}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms:\n${c.output()}`);
    await sleep(100);
  }
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k]) env[k] = process.env[k]!;
  // BENCH_NODE_OPTIONS reaches the service and the baselines alike (e.g. --max-semi-space-size=4).
  if (process.env.BENCH_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS;
  return { ...env, NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
}

function runCli(env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const c = startChild([BIN, ...args], env);
    const timer = setTimeout(() => c.child.kill('SIGKILL'), 60_000);
    c.child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(c.child);
      if (code !== 0) return reject(new Error(`memorybook ${args.slice(0, 2).join(' ')} exited ${code}: ${c.output()}`));
      try {
        resolve(JSON.parse(c.stdout().trim().split('\n').pop() ?? ''));
      } catch {
        reject(new Error(`memorybook ${args.slice(0, 2).join(' ')} printed no JSON: ${c.output()}`));
      }
    });
  });
}

/** The service: `memorybook serve` in a child process, ready once /readyz answers. */
async function startService(env: Record<string, string>, worker: boolean): Promise<Child & { baseUrl: string }> {
  const port = await freePort();
  const nodeFlags = [...(settings.profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), ...settings.serviceFlags];
  const c = startChild([...nodeFlags, BIN, 'serve', ...(worker ? [] : ['--no-worker'])], { ...env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  // For diagnosis (e.g. BENCH_NODE_OPTIONS=--trace-gc): the service's whole output, appended to a file.
  if (settings.serviceLog) {
    const log = createWriteStream(settings.serviceLog, { flags: 'a' });
    c.child.stdout!.pipe(log);
    c.child.stderr!.pipe(log);
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor('service', c, async () => (await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok);
  return Object.assign(c, { baseUrl });
}

/** The baseline: a bare Node HTTP server that pipes each request body to a new file in `dir`, then answers 201. */
const BASELINE_SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const dir = process.env.BASELINE_DIR;
let n = 0;
const flush = process.env.BASELINE_FSYNC === '1';
const server = http.createServer((req, res) => {
  const file = path.join(dir, 'upload-' + (n++) + '.bin');
  pipeline(req, fs.createWriteStream(file, { flush })).then(
    () => { res.writeHead(201, { 'content-type': 'application/json' }); res.end('{}'); },
    (err) => { res.writeHead(500); res.end(String(err)); },
  );
});
server.requestTimeout = 0;
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('baseline listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function startBaseline(dir: string, o: { fsync: boolean }): Promise<Child & { baseUrl: string }> {
  const port = await freePort();
  const c = startChild(['-e', BASELINE_SERVER], { ...baseEnv(), PORT: String(port), BASELINE_DIR: dir, BASELINE_FSYNC: o.fsync ? '1' : '0' });
  await waitFor('baseline server', c, async () => c.output().includes('baseline listening'));
  return Object.assign(c, { baseUrl: `http://127.0.0.1:${port}` });
}

/** s3rver (the test suite's S3 server) in a child process of its own, so it never shares the client's event loop. */
async function startS3(): Promise<Child & { env: Record<string, string> }> {
  const helper = pathToFileURL(path.join(ROOT, 'test', 'helpers', 's3-server.ts')).href;
  const code = `
    import { startS3Server } from ${JSON.stringify(helper)};
    const s = await startS3Server();
    console.log('S3ENV ' + JSON.stringify({ ...s.env, S3_DIRECTORY: s.directory }));
    process.on('SIGTERM', async () => { await s.close(); process.exit(0); });
  `;
  const c = startChild(['--import', 'tsx', '--input-type=module', '-e', code], { ...baseEnv(), NODE_ENV: 'test' }, ROOT);
  await waitFor('s3rver', c, async () => c.output().includes('S3ENV '));
  const line = c.output().split('\n').find((l) => l.startsWith('S3ENV '))!;
  return Object.assign(c, { env: JSON.parse(line.slice('S3ENV '.length)) as Record<string, string> });
}

/**
 * The S3 bare pipe: a bare Node HTTP server that streams each request body
 * into the same s3rver with the SDK's streaming uploader as it comes (its
 * defaults: 5 MiB parts, 4 in flight), then answers 201. The client has the
 * service's checksum settings, which s3rver needs.
 */
const BASELINE_S3_SERVER = `
import http from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
const e = process.env;
const client = new S3Client({ endpoint: e.S3_ENDPOINT, region: e.S3_REGION, forcePathStyle: true,
  credentials: { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY },
  requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
const server = http.createServer((req, res) => {
  new Upload({ client, params: { Bucket: e.S3_BUCKET, Key: 'bench-bare-pipe', Body: req, ContentType: 'video/mp4' } }).done().then(
    () => { res.writeHead(201, { 'content-type': 'application/json' }); res.end('{}'); },
    (err) => { res.writeHead(500); res.end(String(err)); },
  );
});
server.requestTimeout = 0;
server.listen(Number(e.PORT), '127.0.0.1', () => console.log('baseline listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function startS3Baseline(s3Env: Record<string, string>): Promise<Child & { baseUrl: string }> {
  const port = await freePort();
  const c = startChild(['--input-type=module', '-e', BASELINE_S3_SERVER], { ...baseEnv(), ...s3Env, PORT: String(port) }, ROOT);
  await waitFor('S3 baseline server', c, async () => c.output().includes('baseline listening'));
  return Object.assign(c, { baseUrl: `http://127.0.0.1:${port}` });
}

/**
 * The S3 store's own floor: the same file put straight into the same s3rver
 * by a child process with the SDK's own streaming uploader (lib-storage, the
 * same 5 MiB parts, 2 in flight where the service keeps 1; see
 * src/storage/s3-store.ts), read from disk: no HTTP upload in front. Its
 * time (measured inside the child, start-up excluded) is what any client of
 * this S3 server pays.
 */
async function s3Floor(s3Env: Record<string, string>, file: string): Promise<number> {
  const code = `
    import { S3Client } from '@aws-sdk/client-s3';
    import { Upload } from '@aws-sdk/lib-storage';
    import { createReadStream } from 'node:fs';
    const e = process.env;
    const client = new S3Client({ endpoint: e.S3_ENDPOINT, region: e.S3_REGION, forcePathStyle: true,
      credentials: { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY },
      requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
    const started = performance.now();
    await new Upload({ client, params: { Bucket: e.S3_BUCKET, Key: 'bench-floor', Body: createReadStream(e.FLOOR_FILE), ContentType: 'video/mp4' },
      partSize: 5 * 1024 * 1024, queueSize: 2, leavePartsOnError: false }).done();
    console.log('FLOOR ' + (performance.now() - started));
    client.destroy();
  `;
  const c = startChild(['--input-type=module', '-e', code], { ...baseEnv(), ...s3Env, FLOOR_FILE: file }, ROOT);
  await new Promise<void>((resolve) => c.child.once('close', () => resolve()));
  children.delete(c.child);
  const line = c.stdout().split('\n').find((l) => l.startsWith('FLOOR '));
  if (!line) throw new Error(`the S3 floor upload failed: ${c.output()}`);
  return Number(line.slice('FLOOR '.length));
}

// ---------------------------------------------------------------- databases

interface Database {
  env: Record<string, string>;
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

async function pgAdmin<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: settings.databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function createDatabase(dataDir: string): Promise<Database> {
  if (settings.database === 'pglite') {
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      // Only while no service holds the data directory.
      async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
        const { loadConfig } = await import('../src/config/config.js');
        const { createDb } = await import('../src/db/client.js');
        const db = await createDb(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, SECRET_KEY: 'x'.repeat(32) }));
        try {
          return await db.query<R>(sql, params);
        } finally {
          await db.close();
        }
      },
      async drop() {},
    };
  }
  const schema = `bench_media_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await pgAdmin(`CREATE SCHEMA ${schema}`);
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: settings.databaseUrl, DATABASE_SCHEMA: schema },
    async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: settings.databaseUrl });
      await client.connect();
      try {
        await client.query(`SET search_path TO ${schema}`);
        return (await client.query<R>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      const rows = await pgAdmin<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname = $1 OR starts_with(nspname, $1 || '_')`, [schema]);
      for (const { nspname } of rows) await pgAdmin(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    },
  };
}

// ---------------------------------------------------------------- files and uploads

function box(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}

/** A file of exactly `bytes` that starts like an MP4 (or a JPEG) and goes on with random filler, written to disk a MiB at a time. */
async function makeFile(dir: string, kind: 'mp4' | 'jpeg', bytes: number): Promise<string> {
  const header =
    kind === 'mp4'
      ? box('ftyp', Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41', 'latin1')]))
      : Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex');
  const filler = randomBytes(MB);
  const file = path.join(dir, `${kind}-${bytes}.${kind}`);
  async function* chunks() {
    yield header;
    let left = bytes - header.length;
    while (left > 0) {
      const n = Math.min(left, filler.length);
      left -= n;
      yield n === filler.length ? filler : filler.subarray(0, n);
    }
  }
  await pipeline(chunks, createWriteStream(file));
  return file;
}

interface UploadResult {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  wallMs: number;
}

/**
 * POSTs `file` as the one multipart part over a fresh connection, reading it
 * from disk as the socket takes it: the client never holds the file.
 */
async function upload(baseUrl: string, urlPath: string, file: string, o: { token?: string; filename: string; contentType: string }): Promise<UploadResult> {
  const size = (await stat(file)).size;
  const boundary = `----memorybookbench${randomBytes(8).toString('hex')}`;
  const pre = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${o.filename}"\r\nContent-Type: ${o.contentType}\r\n\r\n`);
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${urlPath}`, {
      method: 'POST',
      agent: false,
      headers: {
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        'idempotency-key': randomUUID(),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(pre.length + size + post.length),
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers, wallMs: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      // An early answer (413) may close the connection while the rest is still being written.
      if (!answered) reject(err);
    });
    req.write(pre);
    const source = createReadStream(file, { highWaterMark: 256 * 1024 });
    source.on('error', reject);
    source.pipe(req, { end: false });
    source.on('end', () => req.end(post));
  });
}

async function api(baseUrl: string, token: string, method: string, urlPath: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' ? { 'idempotency-key': randomUUID() } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${urlPath} → ${res.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, any>) : {};
}

// ---------------------------------------------------------------- measuring

function cpuMs(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** Waits until the process has used (almost) no CPU for half a second: nothing left over from the last round. */
async function settle(pid: number, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = cpuMs(pid);
    await sleep(500);
    if (cpuMs(pid) - before <= 20 || Date.now() > deadline) return;
  }
}

interface Measured extends UploadResult {
  rssBefore: number;
  peakGrowth: number;
  cpuMs: number;
}

/** One upload, with the receiving process's memory watched: VmHWM reset just before (when the kernel lets us), VmRSS sampled throughout. */
/** The highest 1-minute load average seen at a measurement. */
let busiest = 0;

async function measured(pid: number, run: () => Promise<UploadResult>): Promise<Measured> {
  await settle(pid);
  busiest = Math.max(busiest, os.loadavg()[0]);
  const rss = watchPeakRss(pid, 5);
  const cpuBefore = cpuMs(pid);
  try {
    const r = await run();
    const { peak } = rss.stop();
    return { ...r, rssBefore: rss.before, peakGrowth: peak - rss.before, cpuMs: cpuMs(pid) - cpuBefore };
  } finally {
    rss.stop();
  }
}

/**
 * Every file the store holds, with its size: under DATA_DIR/objects (staging
 * included), or under s3rver's bucket folder (objects and the parts of open
 * multipart uploads).
 */
async function storeFiles(store: 'local' | 's3', dataDir: string, s3Env?: Record<string, string>): Promise<Map<string, number>> {
  const dir = store === 's3' ? path.join(s3Env!.S3_DIRECTORY, s3Env!.S3_BUCKET) : path.join(dataDir, 'objects');
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) as import('node:fs').Dirent[];
  const files = new Map<string, number>();
  for (const e of entries) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    const s = await stat(full).catch(() => null);
    if (s) files.set(full, s.size);
  }
  return files;
}

/** Bytes in files that are new since `before`, or grew (files removed meanwhile, e.g. by a delete job, do not count). */
function bytesAdded(before: Map<string, number>, after: Map<string, number>): number {
  let added = 0;
  for (const [file, size] of after) added += Math.max(0, size - (before.get(file) ?? 0));
  return added;
}

// ---------------------------------------------------------------- the run

interface Round {
  upload_ms: number;
  /** The target's floor: a bare Node server piping the body into the same store (a file on the same disk, or the same S3 server). */
  bare_pipe_ms: number;
  /** A bare Node server piping the body to a file (on S3 too, for scale). */
  baseline_ms: number;
  baseline_fsync_ms: number;
  /** S3 only: the same file put straight from disk into the same S3 server. */
  s3_floor_ms: number | null;
  rss_growth_bytes: number;
  bare_pipe_rss_growth_bytes: number;
  service_cpu_ms: number;
  bare_pipe_cpu_ms: number;
}

interface StoreResult {
  store: 'local' | 's3';
  database: string;
  file_bytes: number;
  /** The first full-size upload after start (and the first to the baseline): memory not yet grown to fit such a stream. */
  cold: Round;
  /** The rounds after it. */
  rounds: Round[];
  upload_ms: number;
  /** What the time target compares with: see Round. */
  bare_pipe: 'file on the same disk' | 'same S3 server (lib-storage)';
  bare_pipe_ms: number;
  baseline_ms: number;
  baseline_fsync_ms: number;
  s3_floor_ms: number | null;
  /** upload_ms / bare_pipe_ms: the target. */
  time_ratio: number;
  /** Against the pipe to disk that also fsyncs before it answers, as the local store makes every object durable. */
  time_ratio_fsync: number;
  /** Worst over the cold upload and every round. */
  rss_growth_bytes: number;
  bare_pipe_rss_growth_bytes: number;
  over_cap: { status: number; code: string | null; store_bytes_added: number; rss_growth_bytes: number };
  targets: { time_ratio_max: number; time_ok: boolean; rss_growth_max_bytes: number; rss_ok: boolean; over_cap_ok: boolean };
}

async function benchStore(store: 'local' | 's3', files: { video: string; photo: string }): Promise<StoreResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), `memorybook-bench-media-${store}-`));
  const dataDir = path.join(work, 'data');
  const baselineDir = path.join(work, 'baseline');
  mkdirSync(dataDir);
  mkdirSync(baselineDir);
  let s3: Awaited<ReturnType<typeof startS3>> | undefined;
  let db: Database | undefined;
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  let baselineFsync: Awaited<ReturnType<typeof startBaseline>> | undefined;
  let baselineS3: Awaited<ReturnType<typeof startS3Baseline>> | undefined;
  const cleanup = async () => {
    await service?.stop();
    await baseline?.stop();
    await baselineFsync?.stop();
    await baselineS3?.stop();
    await s3?.stop();
    await db?.drop().catch((err) => console.error(`dropping the bench schema failed: ${err}`));
    rmSync(work, { recursive: true, force: true });
  };
  cleanups.add(cleanup);
  try {
    if (store === 's3') s3 = await startS3();
    db = await createDatabase(dataDir);
    const env = { ...baseEnv(), ...db.env, ...(s3 ? s3.env : { STORAGE: 'local' }), HTTP_REQUEST_TIMEOUT_MS: '600000' };

    // Seeding before the service starts (PGlite: one process at a time).
    const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
    await runCli(env, ['user', 'create', '--email', email, '--password', randomBytes(12).toString('base64url')]);
    const token = String((await runCli(env, ['token', 'issue', '--email', email, '--name', 'bench'])).plaintext);
    await runCli(env, ['slots', 'grant', '--email', email, '--plan', 'premium']);
    // An operator-edited plan: videos up to the whole request ceiling, only in this bench database.
    await db.query(`UPDATE plans SET max_video_bytes = $1 WHERE slug = 'premium'`, [CEILING_BYTES]);

    const worker = settings.database === 'pglite';
    service = await startService(env, worker);
    baseline = await startBaseline(baselineDir, { fsync: false });
    baselineFsync = await startBaseline(baselineDir, { fsync: true });
    if (s3) baselineS3 = await startS3Baseline(s3.env);
    const book = await api(service.baseUrl, token, 'POST', '/api/v1/books/', { title: 'Media bench', plan: 'premium' });
    const sub = await api(service.baseUrl, token, 'POST', `/api/v1/books/${book.slug}/submissions/`, { text_content: 'Bench memory' });
    const uploadPath = `/api/v1/books/${book.slug}/submissions/${sub.id}/media/`;
    const send = (file: string, filename: string, contentType: string) => upload(service!.baseUrl, uploadPath, file, { token, filename, contentType });
    const forget = async (r: UploadResult) => {
      // With the in-process worker (PGlite) the upload is deleted again, so its processing finds nothing to do.
      if (worker && r.status === 201) await api(service!.baseUrl, token, 'DELETE', `${uploadPath}${JSON.parse(r.body).id}/`);
    };

    // Warm-up: one small upload loads every module on the path and fills the pools; one request to each baseline likewise.
    const small = await makeFile(work, 'mp4', 2 * MB);
    const warm = await send(small, 'warm.mp4', 'video/mp4');
    if (warm.status !== 201) throw new Error(`warm-up upload answered ${warm.status}: ${warm.body}`);
    await forget(warm);
    for (const b of [baseline, baselineFsync, baselineS3]) if (b) await upload(b.baseUrl, '/', small, { filename: 'warm.mp4', contentType: 'video/mp4' });

    const toBaseline = async (b: NonNullable<typeof baseline>) => {
      const r = await measured(b.pid, () => upload(b.baseUrl, '/', files.video, { filename: 'video.mp4', contentType: 'video/mp4' }));
      if (r.status !== 201) throw new Error(`baseline answered ${r.status}`);
      rmSync(baselineDir, { recursive: true, force: true });
      mkdirSync(baselineDir);
      return r;
    };
    const oneRound = async (label: string): Promise<Round> => {
      const b = await toBaseline(baseline!);
      const bf = await toBaseline(baselineFsync!);
      const bs3 = baselineS3 ? await toBaseline(baselineS3) : null;
      const bare = bs3 ?? b;
      const floor = s3 ? await s3Floor(s3.env, files.video) : null;
      const u = await measured(service!.pid, () => send(files.video, 'video.mp4', 'video/mp4'));
      if (u.status !== 201) throw new Error(`upload answered ${u.status}: ${u.body}`);
      const shown = JSON.parse(u.body) as { size_bytes: number };
      if (shown.size_bytes !== VIDEO_BYTES) throw new Error(`stored ${shown.size_bytes} bytes, sent ${VIDEO_BYTES}`);
      await forget(u);
      const r: Round = {
        upload_ms: round(u.wallMs, 0),
        bare_pipe_ms: round(bare.wallMs, 0),
        baseline_ms: round(b.wallMs, 0),
        baseline_fsync_ms: round(bf.wallMs, 0),
        s3_floor_ms: floor === null ? null : round(floor, 0),
        rss_growth_bytes: u.peakGrowth,
        bare_pipe_rss_growth_bytes: bare.peakGrowth,
        service_cpu_ms: round(u.cpuMs, 0),
        bare_pipe_cpu_ms: round(bare.cpuMs, 0),
      };
      console.log(
        `  ${store} ${label}: upload ${r.upload_ms} ms (CPU ${r.service_cpu_ms} ms, RSS +${mb(r.rss_growth_bytes)} MB); ` +
          `bare pipe ${r.bare_pipe_ms} ms (CPU ${r.bare_pipe_cpu_ms} ms, RSS +${mb(r.bare_pipe_rss_growth_bytes)} MB)` +
          (s3 ? `; pipe to disk ${r.baseline_ms} ms` : '') +
          `, with fsync ${r.baseline_fsync_ms} ms` +
          (floor === null ? '' : `; SDK put from disk ${r.s3_floor_ms} ms`),
      );
      return r;
    };
    const cold = await oneRound('first (cold)');
    const rounds: Round[] = [];
    for (let i = 0; i < settings.rounds; i++) rounds.push(await oneRound(`round ${i + 1}`));

    // The over-cap photo: refused while it streams, nothing kept.
    const filesBefore = await storeFiles(store, dataDir, s3?.env);
    const over = await measured(service.pid, () => send(files.photo, 'huge.jpg', 'image/jpeg'));
    await settle(service.pid);
    const added = bytesAdded(filesBefore, await storeFiles(store, dataDir, s3?.env));
    let code: string | null = null;
    try {
      code = (JSON.parse(over.body) as { code?: string }).code ?? null;
    } catch {
      /* not JSON */
    }
    console.log(`  ${store} over-cap photo: ${over.status} ${code}, store ${added} bytes added`);

    const upload_ms = median(rounds.map((r) => r.upload_ms));
    const bare_pipe_ms = median(rounds.map((r) => r.bare_pipe_ms));
    const rss = Math.max(cold.rss_growth_bytes, ...rounds.map((r) => r.rss_growth_bytes));
    return {
      store,
      database: settings.database,
      file_bytes: VIDEO_BYTES,
      cold,
      rounds,
      upload_ms,
      bare_pipe: s3 ? 'same S3 server (lib-storage)' : 'file on the same disk',
      bare_pipe_ms,
      baseline_ms: median(rounds.map((r) => r.baseline_ms)),
      baseline_fsync_ms: median(rounds.map((r) => r.baseline_fsync_ms)),
      s3_floor_ms: s3 ? median(rounds.map((r) => r.s3_floor_ms!)) : null,
      time_ratio: round(upload_ms / bare_pipe_ms, 2),
      time_ratio_fsync: round(upload_ms / median(rounds.map((r) => r.baseline_fsync_ms)), 2),
      rss_growth_bytes: rss,
      bare_pipe_rss_growth_bytes: Math.max(cold.bare_pipe_rss_growth_bytes, ...rounds.map((r) => r.bare_pipe_rss_growth_bytes)),
      over_cap: { status: over.status, code, store_bytes_added: added, rss_growth_bytes: over.peakGrowth },
      targets: {
        time_ratio_max: TARGET_TIME_RATIO,
        time_ok: upload_ms <= TARGET_TIME_RATIO * bare_pipe_ms,
        rss_growth_max_bytes: TARGET_RSS_GROWTH_BYTES,
        rss_ok: rss <= TARGET_RSS_GROWTH_BYTES,
        over_cap_ok: over.status === 413 && added === 0,
      },
    };
  } finally {
    cleanups.delete(cleanup);
    await cleanup();
  }
}

export async function runMediaBench(): Promise<number> {
  if (process.platform !== 'linux') throw new Error('the media bench reads /proc: Linux only');
  const deadline = setTimeout(() => {
    console.error(`bench media: still running after ${OVERALL_DEADLINE_MS / 1000} s, giving up`);
    killAll();
    process.exit(1);
  }, OVERALL_DEADLINE_MS);
  deadline.unref();

  if (settings.build) {
    console.log('building (tsc -p tsconfig.build.json) …');
    await new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
      c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tsc exited ${code}`))));
    });
  }
  console.log(
    `bench media: a ${mb(VIDEO_BYTES)} MB video upload (and a ${mb(OVER_CAP_PHOTO_BYTES)} MB over-cap photo) on ${settings.stores.join(', ')}, ` +
      `${settings.database}, ${settings.rounds} rounds; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}`,
  );
  const filesDir = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-files-'));
  cleanups.add(() => rmSync(filesDir, { recursive: true, force: true }));
  const files = { video: await makeFile(filesDir, 'mp4', VIDEO_BYTES), photo: await makeFile(filesDir, 'jpeg', OVER_CAP_PHOTO_BYTES) };

  const results: StoreResult[] = [];
  try {
    for (const store of settings.stores) results.push(await benchStore(store, files));
  } finally {
    rmSync(filesDir, { recursive: true, force: true });
  }

  printTable(results);
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        generated_at: new Date().toISOString(),
        machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model.trim() ?? null, node: process.version, load_avg_1m_max: round(busiest, 2) },
        results,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
  return results.every((r) => r.targets.time_ok && r.targets.rss_ok && r.targets.over_cap_ok) ? 0 : 1;
}

function printTable(results: StoreResult[]) {
  const ok = (b: boolean) => (b ? 'yes' : 'NO');
  const warmRss = (r: StoreResult) => Math.max(...r.rounds.map((x) => x.rss_growth_bytes));
  const header = [
    'store', 'upload ms', 'bare pipe ms', 'ratio', `≤${TARGET_TIME_RATIO}×`, 'to disk ms', 'disk+fsync ms', 'vs fsync', 'SDK put ms',
    'CPU ms svc/pipe', 'RSS +MB cold/warm', `≤${mb(TARGET_RSS_GROWTH_BYTES)} MB`, 'pipe RSS +MB', 'over-cap', 'bytes left', 'ok',
  ];
  const rows = results.map((r) => [
    r.store,
    String(r.upload_ms),
    String(r.bare_pipe_ms),
    `${r.time_ratio}×`,
    ok(r.targets.time_ok),
    String(r.baseline_ms),
    String(r.baseline_fsync_ms),
    `${r.time_ratio_fsync}×`,
    r.s3_floor_ms === null ? '-' : String(r.s3_floor_ms),
    `${median(r.rounds.map((x) => x.service_cpu_ms))}/${median(r.rounds.map((x) => x.bare_pipe_cpu_ms))}`,
    `${mb(r.cold.rss_growth_bytes)}/${mb(warmRss(r))}`,
    ok(r.targets.rss_ok),
    `${mb(r.cold.bare_pipe_rss_growth_bytes)}/${mb(Math.max(...r.rounds.map((x) => x.bare_pipe_rss_growth_bytes)))}`,
    `${r.over_cap.status} ${r.over_cap.code ?? ''}`.trim(),
    String(r.over_cap.store_bytes_added),
    ok(r.targets.over_cap_ok),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of rows) console.log(line(row));
  console.log(
    `\n${mb(VIDEO_BYTES)} MB video, ${settings.database}. Times: medians of ${settings.rounds} rounds after the first full-size upload. ` +
      `Bare pipe (the target's floor) = a bare Node server piping the body into the same store: a file on the same disk (local), ` +
      `or the same S3 server through lib-storage (s3). To disk = the bare pipe to a file (on S3 for scale); disk+fsync = the same, ` +
      `fsynced before answering (the local store also makes each object durable before it answers, flushing while the bytes arrive). ` +
      `SDK put = the same file put from disk into the same S3 server by a bare SDK client, no HTTP in front. ` +
      `RSS: the service's peak over its RSS just before, on the first full-size upload after start (cold) and the worst later round (warm); ` +
      `the target is judged on the worse of the two.`,
  );
  const hash = sha256Cost();
  console.log(`For scale, on this machine: sha256 of ${mb(VIDEO_BYTES)} MB in 64 KiB chunks (the service hashes every upload) takes ${hash} ms.`);
  if (busiest > os.cpus().length) {
    console.log(`note: the 1-minute load average reached ${busiest.toFixed(1)} on ${os.cpus().length} CPUs: something else was busy, so the times are noisy.`);
  }
}

/** The time to sha256 a file of VIDEO_BYTES in 64 KiB chunks, in this process. */
function sha256Cost(): number {
  const chunk = randomBytes(64 * 1024);
  const started = performance.now();
  const h = createHash('sha256');
  for (let left = VIDEO_BYTES; left > 0; left -= chunk.length) h.update(left >= chunk.length ? chunk : chunk.subarray(0, left));
  h.digest();
  return round(performance.now() - started, 0);
}

// ---------------------------------------------------------------- small helpers

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

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: expected a whole number >= 1, got "${raw}"`);
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => (bytes / MB).toFixed(1);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

process.on('exit', killAll);

// Run directly (`node --import tsx bench/media-upload.ts`), not only through run.ts.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAll();
      void Promise.race([Promise.all([...cleanups].map((c) => Promise.resolve(c()).catch(() => {}))), sleep(5_000)]).then(() => process.exit(130));
    });
  }
  runMediaBench().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`bench media failed: ${err instanceof Error ? err.message : String(err)}`);
      killAll();
      process.exit(1);
    },
  );
}
