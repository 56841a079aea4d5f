/**
 * `npm run bench -- mail-inbound`: a 60 MB email (a video attachment,
 * base64 as mail carries it) sent with nodemailer over a real socket to
 * `memorybook mail-inbound` in a child process, which receives it (spool,
 * SPF/DKIM/DMARC) and, in its own worker, turns it into a memory (the
 * message parsed as a stream, the video streamed into the store). Measured:
 * the receiving process's peak RSS growth from just before the message is
 * sent until its memory exists (VmHWM reset through /proc/<pid>/clear_refs,
 * and VmRSS sampled every 5 ms); target: at most 32 MB. Also the time to
 * the 250 and to the memory.
 *
 * The book is the demo's (premium: video allowed), on PostgreSQL (a
 * throw-away schema) unless BENCH_MAIL_DATABASE=pglite. Settings:
 * BENCH_MAIL_ROUNDS (3), BENCH_MAIL_MB (60), BENCH_DATABASE_URL, BENCH_SKIP_BUILD=1.
 * Writes bench/results/mail-inbound-latest.json; exits 1 when the target is missed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createReadStream } from 'node:fs';
import { watchPeakRss } from './proc-cpu.js';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'memorybook.js');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'mail-inbound-latest.json');
const MB = 1_048_576;
const TARGET_RSS_GROWTH_BYTES = 32 * MB;
const DOMAIN = 'bench.memorybook.test';

const settings = {
  rounds: Number(process.env.BENCH_MAIL_ROUNDS ?? 3),
  messageMb: Number(process.env.BENCH_MAIL_MB ?? 60),
  database: (process.env.BENCH_MAIL_DATABASE ?? 'postgres') as 'postgres' | 'pglite',
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  build: process.env.BENCH_SKIP_BUILD !== '1',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function cpuMs(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** Waits until the process has used (almost) no CPU for half a second. */
async function settle(pid: number, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = cpuMs(pid);
    await sleep(500);
    if (cpuMs(pid) - before <= 20 || Date.now() > deadline) return;
  }
}

function runCli(env: Record<string, string>, args: string[]): string {
  return execFileSync(process.execPath, [BIN, ...args], { env, cwd: os.tmpdir(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
}

/** A file of `bytes` that starts like an MP4 and goes on with random filler, written a MiB at a time. */
async function makeVideo(file: string, bytes: number) {
  const ftyp = Buffer.alloc(32);
  ftyp.writeUInt32BE(32, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2avc1mp41', 16, 'latin1');
  const out = createWriteStream(file);
  out.write(ftyp);
  let left = bytes - ftyp.length;
  while (left > 0) {
    const n = Math.min(MB, left);
    if (!out.write(randomBytes(n))) await new Promise<void>((r) => out.once('drain', () => r()));
    left -= n;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

export async function runMailInboundBench(): Promise<number> {
  if (settings.build) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  const work = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-mail-'));
  const dataDir = path.join(work, 'data');
  const schema = `bench_mail_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: settings.databaseUrl });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    NODE_ENV: 'production',
    SECRET_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://127.0.0.1:8000',
    MAIL_INBOUND_DOMAIN: DOMAIN,
    SMTP_INBOUND_PORT: String(port),
    SMTP_INBOUND_HOST: '127.0.0.1',
    // Far above the rounds, so the per-sender limit never refuses one.
    WEB_FORM_RATE_LIMIT: '1000',
    ...(settings.database === 'postgres' ? { DATABASE_URL: settings.databaseUrl, DATABASE_SCHEMA: schema } : {}),
  };
  if (settings.database === 'postgres') await admin(`CREATE SCHEMA ${schema}`);
  let child: ChildProcess | undefined;
  try {
    const demo = JSON.parse(runCli(env, ['demo']).trim().split('\n').pop()!) as { book: { slug: string } };
    const to = `${demo.book.slug}@${DOMAIN}`;
    // The video's size so that the whole message, base64 with its line breaks, is the size asked for.
    const videoBytes = Math.floor(((settings.messageMb * MB - 4096) * 3) / 4 / (78 / 76));
    const video = path.join(work, 'film.mp4');
    await makeVideo(video, videoBytes);

    child = spawn(process.execPath, [BIN, 'mail-inbound'], { env, cwd: os.tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output = (output + d).slice(-20_000)));
    child.stderr!.on('data', (d: Buffer) => (output = (output + d).slice(-20_000)));
    const pid = child.pid!;
    const transport = () => nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    for (let deadline = Date.now() + 60_000; ; ) {
      if (child.exitCode !== null) throw new Error(`mail-inbound exited:\n${output}`);
      if (await transport().verify().catch(() => false)) break;
      if (Date.now() > deadline) throw new Error(`mail-inbound not ready:\n${output}`);
      await sleep(200);
    }
    const countSubmissions = async () => {
      if (settings.database !== 'postgres') return null;
      const rows = await admin(`SELECT count(*)::int AS n FROM ${schema}.inbound_emails WHERE outcome = 'submitted'`);
      return rows[0].n as number;
    };

    const rounds: { round: number; messageBytes: number; acceptMs: number; memoryMs: number | null; rssBefore: number; peakGrowth: number }[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      await settle(pid);
      const before = await countSubmissions();
      const rss = watchPeakRss(pid, 5);
      const rssBefore = rss.before;
      const t0 = performance.now();
      const t = transport();
      const info = await t.sendMail({
        from: 'Bench <bench@localhost>',
        to,
        subject: `A film, round ${round}`,
        text: 'The whole family at the lake, on film.',
        attachments: [{ filename: 'film.mp4', content: createReadStream(video), contentType: 'video/mp4' }],
      });
      t.close();
      const acceptMs = performance.now() - t0;
      if (!/^250 /.test(info.response)) throw new Error(`not accepted: ${info.response}`);
      let memoryMs: number | null = null;
      if (before !== null) {
        for (let deadline = Date.now() + 180_000; ; ) {
          if ((await countSubmissions())! > before) break;
          if (Date.now() > deadline) throw new Error(`no memory after 180 s:\n${output}`);
          await sleep(50);
        }
        memoryMs = performance.now() - t0;
      } else {
        await settle(pid);
      }
      const { peak, measuredBy } = rss.stop();
      const messageBytes = Number(/size (\d+)/.exec(String(info.messageSize))?.[1] ?? info.messageSize ?? 0);
      rounds.push({ round, messageBytes, acceptMs: Math.round(acceptMs), memoryMs: memoryMs && Math.round(memoryMs), rssBefore, peakGrowth: peak - rssBefore });
      console.log(
        `round ${round}: ${(videoBytes / MB).toFixed(1)} MB video in a ${settings.messageMb} MB message; 250 after ${Math.round(acceptMs)} ms` +
          (memoryMs ? `, memory after ${Math.round(memoryMs)} ms` : '') +
          `; RSS ${(rssBefore / MB).toFixed(1)} MB before, peak growth ${((peak - rssBefore) / MB).toFixed(1)} MB` +
          (measuredBy === 'VmHWM' ? '' : ' (VmHWM could not be reset: sampled VmRSS only)'),
      );
    }
    const worst = Math.max(...rounds.map((r) => r.peakGrowth));
    const ok = worst <= TARGET_RSS_GROWTH_BYTES;
    console.log(`worst peak RSS growth: ${(worst / MB).toFixed(1)} MB (target ≤ ${TARGET_RSS_GROWTH_BYTES / MB} MB): ${ok ? 'ok' : 'MISSED'}`);
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, JSON.stringify({ at: new Date().toISOString(), database: settings.database, messageMb: settings.messageMb, videoBytes, rounds, worstPeakGrowthBytes: worst, ok }, null, 2) + '\n');
    return ok ? 0 : 1;
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await Promise.race([new Promise((r) => child!.once('exit', r)), sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (settings.database === 'postgres') {
      const rows = await admin(`SELECT nspname FROM pg_namespace WHERE nspname = '${schema}' OR starts_with(nspname, '${schema}_')`).catch(() => []);
      for (const { nspname } of rows as { nspname: string }[]) await admin(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`).catch(() => {});
    }
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runMailInboundBench().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
