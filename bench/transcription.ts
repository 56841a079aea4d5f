/**
 * `npm run bench -- transcription`: a 30-minute voice note (espeak-ng's
 * voice, looped by ffmpeg into an MP3) uploaded through the API of the real
 * service and transcribed by its worker through a local provider speaking
 * OpenAI's audio/transcriptions (test/helpers/transcription-server.ts: it
 * reads the multipart body as it arrives and only counts it). The API
 * (`memorybook serve --no-worker`) and the worker (`memorybook worker`) run
 * as separate processes on PostgreSQL (a throw-away schema), as the README's
 * scale-out does; the worker is measured: its peak RSS growth from just
 * before the request until the transcript is completed (VmHWM reset through
 * /proc/<pid>/clear_refs, VmRSS sampled every 5 ms). Target: at most 32 MB
 * (the recording is streamed to the provider, never held whole).
 *
 * Settings: BENCH_TRANSCRIPTION_MINUTES (30), BENCH_TRANSCRIPTION_ROUNDS (2),
 * BENCH_DATABASE_URL, BENCH_SKIP_BUILD=1. Writes
 * bench/results/transcription-latest.json; exits 1 when the target is missed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, openAsBlob, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startTranscriptionServer } from '../test/helpers/transcription-server.js';
import { freePort, settle, watchPeakRss } from './proc-cpu.js';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'memorybook.js');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'transcription-latest.json');
const MB = 1_048_576;
const TARGET_RSS_GROWTH_BYTES = 32 * MB;

const settings = {
  minutes: Number(process.env.BENCH_TRANSCRIPTION_MINUTES ?? 30),
  rounds: Number(process.env.BENCH_TRANSCRIPTION_ROUNDS ?? 2),
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  build: process.env.BENCH_SKIP_BUILD !== '1',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A voice note of `minutes`: a few spoken sentences (espeak-ng), looped to length and encoded as MP3 by the ffmpeg the project ships. */
function makeVoiceNote(dir: string, minutes: number): string {
  const wav = path.join(dir, 'sentence.wav');
  execFileSync('espeak-ng', ['-v', 'en', '-s', '150', '-w', wav, 'Happy birthday, Grandma. We all love you, and we remember the summers at the lake, the songs, and your apple cake.']);
  const ffmpeg = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const mp3 = path.join(dir, 'voice-note.mp3');
  execFileSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', '-stream_loop', '-1', '-i', wav, '-t', String(minutes * 60), '-ac', '1', '-ar', '22050', '-b:a', '64k', mp3]);
  return mp3;
}

export async function runTranscriptionBench(): Promise<number> {
  if (settings.build) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  const work = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-transcription-'));
  const schema = `bench_tr_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: settings.databaseUrl });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  const provider = await startTranscriptionServer();
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    NODE_ENV: 'production',
    SECRET_KEY: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(work, 'data'),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: settings.databaseUrl,
    DATABASE_SCHEMA: schema,
    TRANSCRIPTION_URL: provider.url,
    TRANSCRIPTION_RETRY_SECONDS: '1',
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const children: ChildProcess[] = [];
  let output = '';
  const start = (args: string[]) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: os.tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output = (output + d).slice(-20_000)));
    child.stderr!.on('data', (d: Buffer) => (output = (output + d).slice(-20_000)));
    children.push(child);
    return child;
  };
  try {
    const note = makeVoiceNote(work, settings.minutes);
    const noteBytes = statSync(note).size;
    console.log(`voice note: ${settings.minutes} minutes, ${(noteBytes / MB).toFixed(1)} MB MP3`);
    const demo = JSON.parse(execFileSync(process.execPath, [BIN, 'demo'], { env, cwd: os.tmpdir(), encoding: 'utf8', timeout: 180_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim().split('\n').pop()!) as {
      api_key: string;
      book: { slug: string };
    };
    start(['serve', '--no-worker']);
    const worker = start(['worker']);
    const base = `http://127.0.0.1:${port}/api/v1`;
    for (let deadline = Date.now() + 60_000; ; ) {
      if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) break;
      if (Date.now() > deadline) throw new Error(`service not ready:\n${output}`);
      await sleep(200);
    }
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${demo.api_key}`, ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };

    const rounds: { round: number; transcribeMs: number; rssBefore: number; peakGrowth: number; sentBytes: number }[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const sub = await call('POST', `/books/${demo.book.slug}/submissions/`, { text_content: `A long voice note, round ${round}` });
      if (sub.status !== 201) throw new Error(`submission: ${sub.status} ${JSON.stringify(sub.body)}`);
      const form = new FormData();
      form.append('file', await openAsBlob(note, { type: 'audio/mpeg' }), 'voice-note.mp3');
      const up = await fetch(`${base}/books/${demo.book.slug}/submissions/${sub.body.id}/media/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.api_key}`, 'idempotency-key': randomUUID() },
        body: form,
      });
      const media = (await up.json()) as { id: string };
      if (up.status !== 201) throw new Error(`upload: ${up.status} ${JSON.stringify(media)}`);
      const mediaUrl = `/books/${demo.book.slug}/submissions/${sub.body.id}/media/${media.id}/`;
      for (let deadline = Date.now() + 180_000; ; ) {
        const m = await call('GET', mediaUrl);
        if (m.body?.processing_status === 'complete') break;
        if (m.body?.processing_status === 'failed' || Date.now() > deadline) throw new Error(`media not processed: ${JSON.stringify(m.body)}\n${output}`);
        await sleep(200);
      }
      await settle(worker.pid!);
      const sentBefore = provider.received.length;
      const rss = watchPeakRss(worker.pid!, 5);
      const t0 = performance.now();
      const req = await call('POST', `${mediaUrl}transcription/`);
      if (req.status !== 202) throw new Error(`transcription: ${req.status} ${JSON.stringify(req.body)}`);
      for (let deadline = Date.now() + 600_000; ; ) {
        const tr = await call('GET', `${mediaUrl}transcription/`);
        if (tr.body?.status === 'completed') break;
        if (tr.body?.status === 'failed' || Date.now() > deadline) throw new Error(`transcription did not complete: ${JSON.stringify(tr.body)}\n${output}`);
        await sleep(50);
      }
      const transcribeMs = performance.now() - t0;
      const { peak, measuredBy } = rss.stop();
      const sent = provider.received.slice(sentBefore).at(-1)?.file?.bytes ?? 0;
      if (sent !== noteBytes) throw new Error(`the provider received ${sent} bytes of the ${noteBytes}`);
      rounds.push({ round, transcribeMs: Math.round(transcribeMs), rssBefore: rss.before, peakGrowth: peak - rss.before, sentBytes: sent });
      console.log(
        `round ${round}: ${(noteBytes / MB).toFixed(1)} MB streamed to the provider, transcript after ${Math.round(transcribeMs)} ms; worker RSS ` +
          `${(rss.before / MB).toFixed(1)} MB before, peak growth ${((peak - rss.before) / MB).toFixed(1)} MB` +
          (measuredBy === 'VmHWM' ? '' : ' (VmHWM could not be reset: sampled VmRSS only)'),
      );
    }
    const worst = Math.max(...rounds.map((r) => r.peakGrowth));
    const ok = worst <= TARGET_RSS_GROWTH_BYTES;
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    console.log(`worst worker peak RSS growth: ${(worst / MB).toFixed(1)} MB (target ≤ ${TARGET_RSS_GROWTH_BYTES / MB} MB): ${ok ? 'ok' : 'MISSED'}; load average ${load}`);
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, JSON.stringify({ at: new Date().toISOString(), minutes: settings.minutes, noteBytes, rounds, worstPeakGrowthBytes: worst, ok, loadAverage: load }, null, 2) + '\n');
    return ok ? 0 : 1;
  } finally {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }
    await provider.close();
    await admin(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runTranscriptionBench().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
