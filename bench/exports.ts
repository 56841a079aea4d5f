/**
 * `npm run bench -- exports` (or `node --import tsx bench/exports.ts`): a
 * book of 1,000 approved memories, 200 of them with a 12-megapixel phone
 * photo (about 2–3 MB each, EXIF-free JPEG), exported as PDF, JSON and ZIP
 * through the API of the real service in child processes. On PostgreSQL the
 * API (`memorybook serve --no-worker`) and the worker (`memorybook worker`)
 * run as separate processes, as the README's scale-out does, and the worker,
 * the process that renders, is measured; BENCH_EXPORTS_PROCESSES=single (the
 * only way on PGlite) runs `memorybook serve` with its in-process worker and
 * measures that one process, API included. Per format:
 *
 * - render time: the job's started_at → completed_at (the worker's own
 *   clock), and the client's wall time from the request to seeing it complete;
 * - the service process's peak RSS while it renders (VmHWM, reset through
 *   /proc/<pid>/clear_refs just before, and VmRSS sampled every 20 ms);
 * - the artifact's size (and the PDF's pages), checked by downloading it;
 * - the CPU seconds the process used (the work, which the load does not change), and how many face
 *   detector processes it started (none: processing stored every photo's subject).
 *
 * Targets for the PDF: at most 20 s and a peak RSS of at most 300 MB. The
 * machine's load average is reported alongside: other work on the machine
 * slows the render. The service runs with MALLOC_ARENA_MAX=2 and
 * MALLOC_MMAP_THRESHOLD_=131072, as the README asks of a process that renders
 * exports on glibc: libvips decodes photos on several threads, and glibc's
 * per-thread arenas keep what each thread freed (sharp's documentation says
 * the same); and glibc raises its mmap threshold after the first decoded
 * photo is freed, so every later photo's pixels come from the heap and leave
 * it fragmented. A fixed threshold maps each buffer of a photo on its own and
 * gives it back when freed. Measured on 2 quiet CPUs: neither, about 500 MB;
 * the arena cap alone, 340–360 MB; the threshold alone, 310 MB; both, 275–285 MB
 * (render time 13 → 14.5 s).
 * BENCH_EXPORTS_MALLOC_ARENA_MAX and BENCH_EXPORTS_MALLOC_MMAP_THRESHOLD set
 * other values ('' leaves one unset).
 * Settings: BENCH_EXPORTS_DATABASE=postgres|pglite,
 * BENCH_DATABASE_URL, BENCH_EXPORTS_MEMORIES (1000), BENCH_EXPORTS_PHOTOS (200),
 * BENCH_EXPORTS_THEME (heirloom_gallery), BENCH_EXPORTS_INTENT (shop),
 * BENCH_EXPORTS_CPU_PROFILE_DIR (the worker's V8 CPU profile goes there),
 * BENCH_EXPORTS_FORMATS (pdf,json,zip; `pdf` renders the PDF alone), BENCH_EXPORTS_STORED_SUBJECTS
 * (1; 0 seeds no subjects, as photos processed before they were stored, and the render looks for them),
 * BENCH_SKIP_BUILD=1. Writes bench/results/exports-latest.json; exits 1 when
 * a target is missed.
 */
import { processCpuMs, watchPeakRss } from './proc-cpu.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { loadConfig } from '../src/config/config.js';
import { createDb } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { uuidv7 } from '../src/lib/ids.js';
import { objectKeys } from '../src/services/media/media-types.js';
import { findSubject } from '../src/media-tools/focal-crop.js';
import { createServices } from '../src/services/index.js';
import { NoJobQueue } from '../src/jobs/no-job-queue.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'memorybook.js');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'exports-latest.json');
const MB = 1_048_576;
const TARGET_PDF_SECONDS = 20;
const TARGET_PEAK_RSS = 300 * MB;

const settings = {
  database: (process.env.BENCH_EXPORTS_DATABASE ?? 'postgres') as 'postgres' | 'pglite',
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  memories: intEnv('BENCH_EXPORTS_MEMORIES', 1000),
  photos: intEnv('BENCH_EXPORTS_PHOTOS', 200),
  theme: process.env.BENCH_EXPORTS_THEME ?? 'heirloom_gallery',
  intent: process.env.BENCH_EXPORTS_INTENT ?? 'shop',
  build: process.env.BENCH_SKIP_BUILD !== '1',
  mallocArenaMax: process.env.BENCH_EXPORTS_MALLOC_ARENA_MAX ?? '2',
  mallocMmapThreshold: process.env.BENCH_EXPORTS_MALLOC_MMAP_THRESHOLD ?? '131072',
  /** Where the worker writes a V8 CPU profile (`--cpu-prof`) when it exits: where the render's time goes. */
  cpuProfileDir: process.env.BENCH_EXPORTS_CPU_PROFILE_DIR || null,
  /** BENCH_EXPORTS_STORED_SUBJECTS=0 seeds photos without their subject (as media processed before it was stored): the render looks for it. */
  storedSubjects: process.env.BENCH_EXPORTS_STORED_SUBJECTS !== '0',
  /** Which exports to render, in order (BENCH_EXPORTS_FORMATS=pdf renders the PDF alone). */
  formats: (process.env.BENCH_EXPORTS_FORMATS || 'pdf,json,zip').split(',').map((f) => f.trim()),
  processes: (process.env.BENCH_EXPORTS_PROCESSES ?? (process.env.BENCH_EXPORTS_DATABASE === 'pglite' ? 'single' : 'split')) as 'single' | 'split',
};
const DEADLINE_MS = 15 * 60_000;
const SECRET = randomBytes(32).toString('hex');

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number`);
  return n;
}

const WORDS = (
  'the summer lake pier grandma taught every one of us to swim counting ten while we held our breath cardamom buns ' +
  'sunday morning corner piece saved brothers begged night drive coast singing song radio farm goats broken tractor ' +
  'froze skated island breakfast kitchen laughter garden roses letters christmas snow birthday cake dance wedding'
).split(' ');

/** A memory's words: 80 to about 1,200 characters, now and then an emoji, as people write them. */
function memoryText(i: number): string {
  const count = 14 + ((i * 7919) % 190);
  const words = Array.from({ length: count }, (_, k) => WORDS[(i * 31 + k * 17 + (k * k) % 7) % WORDS.length]);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return `${words.join(' ')}.${i % 11 === 0 ? ' 🎉' : ''}${i % 13 === 0 ? '\n\nWith love, always.' : ''}`;
}

/** A 12-megapixel landscape (or portrait) with the grain of a phone photo: about 2–3 MB of JPEG. */
async function phonePhoto(file: string, i: number) {
  const [w, h] = i % 3 === 0 ? [3024, 4032] : [4032, 3024];
  const noise = await sharp({ create: { width: w, height: h, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } } }).raw().toBuffer();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="hsl(${i * 36},50%,60%)"/><stop offset="1" stop-color="hsl(${i * 36 + 40},40%,85%)"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${w * 0.7}" cy="${h * 0.3}" r="${h * 0.1}" fill="#ffe599"/>
    <path d="M0 ${h * 0.7} Q ${w * 0.3} ${h * 0.5} ${w * 0.6} ${h * 0.68} T ${w} ${h * 0.62} V ${h} H 0 Z" fill="hsl(${i * 36 + 120},45%,30%)"/></svg>`;
  const base = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  await sharp(base, { raw: { width: w, height: h, channels: 3 } })
    .composite([{ input: noise, raw: { width: w, height: h, channels: 3 }, blend: 'overlay' }])
    .jpeg({ quality: 90 })
    .toFile(file);
  return { width: w, height: h };
}

interface Seeded {
  slug: string;
  apiKey: string;
  photoBytes: number;
}

/**
 * The book, straight into the database and the store (the API would take an hour of uploads and approvals),
 * each photo's row with its subject as media processing stores it: the render reads it and looks for none.
 */
async function seed(env: Record<string, string>, work: string): Promise<Seeded> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env });
  const db = await createDb(config);
  try {
    await migrate(db);
    const services = createServices({ db, config, queue: new NoJobQueue('the bench seed') });
    const user = await services.users.createUser({ email: `bench-exports-${randomUUID().slice(0, 8)}@example.test`, password: 'a long bench password' });
    const { plaintext } = await services.tokens.issueToken(db, user.id, 'bench');
    await services.quotas.grantSlots(user.id, 'premium', 1);
    const book = await db.transaction((tx) => services.books.createBook(tx, user, { title: 'One thousand memories for Grandma', subtitle: 'A benchmark of a big book', plan: 'premium' }));
    const [{ id: bookId }] = await db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [book.slug]);

    const distinct = Math.min(10, Math.max(1, settings.photos));
    const photos = [];
    for (let i = 0; i < distinct; i++) {
      const file = path.join(work, `photo-${i}.jpg`);
      // Where its subject is, found as media processing finds it (findSubject) and stored with each row as it stores it.
      const made = await phonePhoto(file, i);
      const subject = settings.storedSubjects ? await findSubject(file) : null;
      // Processing would store nothing when the detector cannot run (the render then looks again): say so rather than measure that.
      if (settings.storedSubjects && !subject) throw new Error(`the face detector could not look at ${file} while seeding (is the machine overloaded?)`);
      photos.push({ file, ...made, size: readFileSync(file).length, subject: subject ? JSON.stringify(subject) : null });
    }
    const every = settings.photos ? Math.max(1, Math.floor(settings.memories / settings.photos)) : Infinity;
    const start = Date.UTC(2025, 0, 1);
    const subs: unknown[][] = [];
    const media: unknown[][] = [];
    let photoBytes = 0;
    for (let i = 0; i < settings.memories; i++) {
      const id = uuidv7(start + i * 60_000);
      const pinned = i < 10;
      subs.push([id, memoryText(i), i % 4 ? `Friend ${i}` : null, new Date(start + i * 3_600_000).toISOString(), pinned]);
      if (i % every === 0 && media.length < settings.photos) {
        const p = photos[media.length % distinct];
        const mediaId = uuidv7(start + i * 60_000 + 1);
        const key = objectKeys.original(bookId, mediaId);
        await services.store.put(key, createReadStream(p.file), { contentType: 'image/jpeg' });
        photoBytes += p.size;
        media.push([mediaId, id, p.size, key, p.width, p.height, p.subject]);
      }
    }
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO submissions (id, book_id, contributor_user_id, text_content, contributor_name, created_at, status, is_pinned, pinned_at, source)
         SELECT s.id, $1, $2, s.text, s.name, s.created, 'approved', s.pinned, CASE WHEN s.pinned THEN s.created END, 'web'
         FROM unnest($3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::boolean[]) AS s(id, text, name, created, pinned)`,
        [bookId, user.id, ...[0, 1, 2, 3, 4].map((c) => subs.map((r) => r[c]))],
      );
      await tx.query(
        `INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, original_filename, size_bytes, sha256, storage_key, width, height,
                            processing_status, scan_result, subject)
         SELECT m.id, m.sub, $1, $2, 'image', 'image/jpeg', 'IMG.jpg', m.size, repeat('0', 64), m.key, m.w, m.h, 'complete', 'not_scanned', m.subject::jsonb
         FROM unnest($3::uuid[], $4::uuid[], $5::bigint[], $6::text[], $7::int[], $8::int[], $9::text[]) AS m(id, sub, size, key, w, h, subject)`,
        [bookId, user.id, ...[0, 1, 2, 3, 4, 5, 6].map((c) => media.map((r) => r[c]))],
      );
    });
    await services.store.close();
    return { slug: book.slug, apiKey: plaintext, photoBytes };
  } finally {
    await db.close();
  }
}

/**
 * Counts the face detector processes (face-detect-child) the renderer starts until stopped, looking every
 * 100 ms: a photo whose subject is stored is not looked at again, so a render of processed photos starts none.
 */
function watchFaceDetectors(parent: number): { stop(): number } {
  const seen = new Set<string>();
  const look = () => {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('face-detect-child')) seen.add(pid);
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = process.platform === 'linux' ? setInterval(look, 100) : null;
  return {
    stop() {
      if (timer) clearInterval(timer);
      return seen.size;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}


interface Measured {
  format: string;
  render_seconds: number;
  wall_seconds: number;
  rss_before_mb: number;
  peak_rss_mb: number;
  peak_measured_by: 'VmHWM' | 'VmRSS samples';
  /** CPU the rendering process used (all its threads, libvips's included): the work, whatever the machine's load. */
  cpu_seconds: number | null;
  /** Face detector processes the renderer started while it rendered: none when every photo's subject is stored. */
  face_detectors: number;
  size_mb: number;
  pages: number | null;
  load_average: number;
}

async function main(): Promise<number> {
  const deadline = setTimeout(() => {
    console.error('bench exports: still running after 15 minutes, giving up');
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();
  if (settings.build) {
    console.log('building (tsc -p tsconfig.build.json) …');
    await new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
      c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc exited ${code}`))));
    });
  }

  const work = mkdtempSync(path.join(os.tmpdir(), 'memorybook-bench-exports-'));
  const schema = `bench_exports_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = { SECRET_KEY: SECRET, DATA_DIR: path.join(work, 'data'), STORAGE: 'local' };
  if (settings.database === 'postgres') {
    const admin = new pg.Client({ connectionString: settings.databaseUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    Object.assign(env, { DATABASE_URL: settings.databaseUrl, DATABASE_SCHEMA: schema });
  } else env.DATABASE_URL = '';

  const children: ChildProcess[] = [];
  try {
    console.log(`seeding ${settings.memories} memories, ${settings.photos} with a 12 MP photo (${settings.database}) …`);
    const seeded = await seed(env, work);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    if (settings.processes === 'split' && settings.database !== 'postgres') throw new Error('separate API and worker processes need PostgreSQL');
    const childEnv = {
      ...(process.env as Record<string, string>),
      ...env,
      ...(settings.mallocArenaMax ? { MALLOC_ARENA_MAX: settings.mallocArenaMax } : {}),
      ...(settings.mallocMmapThreshold ? { MALLOC_MMAP_THRESHOLD_: settings.mallocMmapThreshold } : {}),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
    };
    const started = (args: string[]) => {
      const c = spawn(process.execPath, [...(settings.cpuProfileDir && args[0] === 'worker' ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`] : []), BIN, ...args], { env: { ...childEnv, ...(args[0] === 'worker' ? { LOG_LEVEL: 'info' } : {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(c);
      let output = '';
      c.stdout!.on('data', (d) => (output += d));
      c.stderr!.on('data', (d) => (output += d));
      return { c, output: () => output };
    };
    process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));
    const api = started(settings.processes === 'split' ? ['serve', '--no-worker'] : ['serve']);
    for (const until = Date.now() + 60_000; ; ) {
      if (api.c.exitCode !== null) throw new Error(`memorybook serve exited: ${api.output()}`);
      if (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)) break;
      if (Date.now() > until) throw new Error(`memorybook serve did not become ready: ${api.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    let renderer = api.c;
    if (settings.processes === 'split') {
      const worker = started(['worker']);
      for (const until = Date.now() + 60_000; !worker.output().includes('memorybook worker running'); ) {
        if (worker.c.exitCode !== null || Date.now() > until) throw new Error(`memorybook worker did not start: ${worker.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      renderer = worker.c;
    }
    const pid = renderer.pid!;
    const auth = { authorization: `Bearer ${seeded.apiKey}` };
    const results: Measured[] = [];
    for (const format of settings.formats) {
      // Let the process settle (the first request warms it), then reset its high-water mark.
      await new Promise((r) => setTimeout(r, 1500));
      const rss = watchPeakRss(pid);
      const before = rss.before;
      const cpuBefore = processCpuMs(pid);
      const detectors = watchFaceDetectors(pid);
      const t0 = Date.now();
      const res = await fetch(`${baseUrl}/api/v1/books/${seeded.slug}/exports/`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ theme: settings.theme, intent: settings.intent, export_format: format }),
      });
      if (res.status !== 202) throw new Error(`export request: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      let job: Record<string, any>;
      for (;;) {
        job = (await (await fetch(`${baseUrl}/api/v1/books/${seeded.slug}/exports/${id}/`, { headers: auth })).json()) as Record<string, any>;
        if (job.status === 'complete' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const wall = (Date.now() - t0) / 1000;
      const { peak, measuredBy } = rss.stop();
      const cpuAfter = processCpuMs(pid);
      const faceDetectors = detectors.stop();
      if (job.status !== 'complete') throw new Error(`${format} export failed: ${job.error}`);
      const artifact = (await (await fetch(`${baseUrl}/api/v1/books/${seeded.slug}/exports/${id}/artifact/`, { headers: auth })).json()) as { download_url: string };
      const file = Buffer.from(await (await fetch(artifact.download_url)).arrayBuffer());
      if (file.length !== job.size_bytes) throw new Error(`${format}: downloaded ${file.length} bytes, the job says ${job.size_bytes}`);
      const pages = format === 'pdf' ? (await PDFDocument.load(file)).getPageCount() : null;
      results.push({
        format,
        render_seconds: round((Date.parse(job.completed_at) - Date.parse(job.started_at)) / 1000),
        wall_seconds: round(wall),
        rss_before_mb: round(before / MB, 0),
        peak_rss_mb: round(peak / MB, 0),
        peak_measured_by: measuredBy,
        cpu_seconds: cpuBefore !== null && cpuAfter !== null ? round((cpuAfter - cpuBefore) / 1000) : null,
        face_detectors: faceDetectors,
        size_mb: round(file.length / MB, 1),
        pages,
        load_average: round(os.loadavg()[0], 1),
      });
      console.log(`  ${format}: ${JSON.stringify(results[results.length - 1])}`);
    }

    const pdf = results.find((r) => r.format === 'pdf');
    const missed = [
      pdf && pdf.render_seconds > TARGET_PDF_SECONDS ? `PDF took ${pdf.render_seconds} s (target ${TARGET_PDF_SECONDS} s)` : null,
      ...results.filter((r) => r.peak_rss_mb * MB > TARGET_PEAK_RSS).map((r) => `${r.format} peaked at ${r.peak_rss_mb} MB RSS (target 300 MB)`),
    ].filter(Boolean);
    console.log('');
    console.log(`book: ${settings.memories} memories, ${settings.photos} photos (${round(seeded.photoBytes / MB, 0)} MB of JPEG), theme ${settings.theme}, intent ${settings.intent}, ${settings.database}`);
    console.log(`${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, MALLOC_ARENA_MAX=${settings.mallocArenaMax || '(unset)'}, MALLOC_MMAP_THRESHOLD_=${settings.mallocMmapThreshold || '(unset)'}`);
    console.log(`measured: ${settings.processes === 'split' ? 'the worker process (API in a process of its own)' : 'the one serve process (API and worker)'}`);
    console.log(['format', 'render s', 'wall s', 'CPU s', 'RSS before MB', 'peak RSS MB', 'size MB', 'pages', 'load', 'face detectors'].join('\t'));
    for (const r of results) {
      console.log([r.format, r.render_seconds, r.wall_seconds, r.cpu_seconds ?? '', r.rss_before_mb, r.peak_rss_mb, r.size_mb, r.pages ?? '', r.load_average, r.face_detectors].join('\t'));
    }
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(
      RESULTS_FILE,
      JSON.stringify({ at: new Date().toISOString(), settings, targets: { pdf_seconds: TARGET_PDF_SECONDS, peak_rss_mb: 300 }, results, missed }, null, 2) + '\n',
    );
    console.log(missed.length ? `targets missed: ${missed.join('; ')}` : 'targets met');
    return missed.length ? 1 : 0;
  } finally {
    await Promise.all(
      children
        .filter((c) => c.exitCode === null)
        .map(
          (c) =>
            new Promise((resolve) => {
              const timer = setTimeout(() => {
                c.kill('SIGKILL');
                resolve(undefined);
              }, 10_000);
              c.once('exit', () => {
                clearTimeout(timer);
                resolve(undefined);
              });
              c.kill('SIGTERM');
            }),
        ),
    );
    if (settings.database === 'postgres') {
      const admin = new pg.Client({ connectionString: settings.databaseUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE`);
      await admin.end();
    }
    rmSync(work, { recursive: true, force: true });
  }
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function runExportsBench(): Promise<number> {
  return main();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runExportsBench().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
