/**
 * `npm run bench -- compare <commit>`: the main bench's scenarios (bench/run.ts)
 * against an earlier commit and this working tree, on one machine, in
 * alternating rounds, printing each scenario's throughput ratio new/old.
 * The regression guard for hot paths: a figure from another day or machine
 * says little, two versions measured turn about on the same one say a lot.
 *
 * The commit is checked out and installed once (bench/baseline.ts: a git
 * worktree under BENCH_BASELINE_CACHE, default <tmpdir>/memorybook-bench-baselines);
 * the working tree is built first (unless BENCH_SKIP_BUILD=1). For each
 * backend, each version gets a database of its own (a PostgreSQL schema, a
 * PGlite folder), seeded by its own CLI and code, and its own `serve`. Then
 * every scenario is measured on both, turn about, round after round (the
 * order within a round flips each round, so a drift of load favours neither).
 * The ceiling scenario hits the same bare Fastify for both: its ratio is the
 * run's noise, an ideal 1.00.
 *
 * Settings: BENCH_COMPARE_ROUNDS (default 6) of BENCH_COMPARE_SECONDS (5) per
 * scenario and version, after BENCH_WARMUP (3) seconds each; BENCH_SCENARIOS
 * (default: every scenario of bench/run.ts), BENCH_BACKENDS, BENCH_CONNECTIONS,
 * BENCH_PROFILE=1 (profiles in bench/results/profiles/<version>/). A scenario
 * the earlier commit cannot serve (its seed fails, or it answers anything but
 * 2xx, e.g. a route it does not have) is reported as not comparable.
 * Writes bench/results/compare-latest.json. Not for CI: it needs a quiet
 * machine, or at least several rounds; every note on a hot path quotes it.
 */
import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareBaseline } from './baseline.js';
import {
  aggregate,
  autocannonOptions,
  BACKENDS,
  baseEnv,
  pendingCleanups,
  runRound,
  scenarios,
  seedCaller,
  settings,
  startBareFastify,
  startService,
  WORKING_TREE,
  type Backend,
  type BenchContext,
  type BenchLib,
  type Checkout,
  type Measurement,
  type RoundRun,
  type Scenario,
  type Service,
} from './run.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'compare-latest.json');
const PROFILE_DIR = path.join(ROOT, 'bench', 'results', 'profiles');
const DEADLINE_MS = 60 * 60_000;

const compareSettings = {
  rounds: intEnv('BENCH_COMPARE_ROUNDS', 6),
  seconds: intEnv('BENCH_COMPARE_SECONDS', 5),
  warmupSeconds: intEnv('BENCH_WARMUP', 3, 0),
};

/** The modules a seed uses (BenchLib), from another checkout's build; one it lacks fails only the seeds that use it. */
async function loadLib(dir: string): Promise<BenchLib> {
  const from = async (file: string) => {
    try {
      return (await import(pathToFileURL(path.join(dir, 'dist', file)).href)) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const [config, db, tokens, pagination, signing] = await Promise.all([
    from('config/config.js'),
    from('db/client.js'),
    from('services/tokens/token-service.js'),
    from('db/pagination.js'),
    from('services/webhook-endpoints/signing.js'),
  ]);
  const pick = <K extends keyof BenchLib>(mod: Record<string, unknown>, name: K): BenchLib[K] =>
    (mod[name] as BenchLib[K] | undefined) ??
    ((() => {
      throw new Error(`${name} is not in the build at ${dir}`);
    }) as unknown as BenchLib[K]);
  return {
    loadConfig: pick(config, 'loadConfig'),
    createDb: pick(db, 'createDb'),
    createTokenService: pick(tokens, 'createTokenService'),
    createCursorCodec: pick(pagination, 'createCursorCodec'),
    createSecretBox: pick(signing, 'createSecretBox'),
    newSigningSecret: pick(signing, 'newSigningSecret'),
  };
}

/** One version running on one backend. */
interface Side {
  checkout: Checkout;
  backend: Backend;
  cleanup: () => Promise<void>;
  ctx: BenchContext;
  service: Service;
  readyMs: number;
  /** Scenarios this version cannot run, and why. */
  unusable: Map<string, string>;
  runs: Map<string, RoundRun[]>;
}

export interface Comparison {
  scenario: string;
  /** The earlier commit's and the working tree's measurements. */
  old: Measurement | null;
  new: Measurement | null;
  /** Median over rounds of new req/s over old req/s in the same round, and the range. */
  ratio: number | null;
  ratio_range: [number, number] | null;
  /** Service CPU per request, new over old (all rounds): steadier than req/s on a busy machine. */
  cpu_ratio: number | null;
  /** Why there is no ratio. */
  not_comparable?: string;
}

async function startSide(checkout: Checkout, backendName: string, selected: Scenario[]): Promise<Side> {
  const backend = BACKENDS[backendName]();
  const cleanup = () => backend.cleanup();
  pendingCleanups.add(cleanup);
  const unusable = new Map<string, string>();
  let ctx: BenchContext;
  let service: Service;
  try {
    const env = { ...baseEnv(), ...(await backend.prepare()) };
    ctx = await seedCaller(env, selected, checkout, (s, err) => unusable.set(s.name, `its seed failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`));
    service = await startService(env, ['serve'], checkout.bin, path.join(PROFILE_DIR, checkout.label.replace(/\W+/g, '-')));
  } catch (err) {
    pendingCleanups.delete(cleanup);
    await cleanup().catch(() => {});
    throw err;
  }
  ctx.baseUrl = service.baseUrl;
  const seedOnly = () => Promise.reject(new Error('only available in seed steps'));
  ctx.cli = seedOnly;
  ctx.withDb = seedOnly;
  for (const s of selected) {
    if (unusable.has(s.name)) continue;
    try {
      await s.setup?.(ctx);
    } catch (err) {
      unusable.set(s.name, `its setup failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  console.log(`  ${backendName} ${checkout.label}: start-to-ready ${service.readyMs} ms`);
  return { checkout, backend, cleanup, ctx, service, readyMs: service.readyMs, unusable, runs: new Map(selected.map((s) => [s.name, []])) };
}

async function stopSide(side: Side) {
  await side.service.stop();
  pendingCleanups.delete(side.cleanup);
  await side.cleanup().catch((err) => console.error(`cleanup of ${side.backend.name} failed: ${err}`));
}

async function compareOnBackend(backendName: string, checkouts: [Checkout, Checkout], selected: Scenario[]) {
  const sides: Side[] = [];
  try {
    for (const c of checkouts) sides.push(await startSide(c, backendName, selected));
    const usable = (side: Side, s: Scenario) => !side.unusable.has(s.name);
    if (compareSettings.warmupSeconds > 0) {
      for (const s of selected) for (const side of sides) if (usable(side, s)) await autocannon({ ...autocannonOptions(side.ctx, s), duration: compareSettings.warmupSeconds });
    }
    console.log(`  ${backendName}: ${selected.length} scenarios × 2 versions × ${compareSettings.rounds} rounds of ${compareSettings.seconds} s …`);
    for (let i = 0; i < compareSettings.rounds; i++) {
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const s of selected) {
        for (const side of order) if (usable(side, s)) side.runs.get(s.name)!.push(await runRound(side.ctx, side.service, s, compareSettings.seconds));
      }
    }
    const [old, now] = sides;
    const comparisons: Comparison[] = selected.map((s) => compareScenario(s, old, now));
    for (const c of comparisons) {
      if (c.ratio === null) {
        console.log(`  ${backendName} ${c.scenario}: not comparable (${c.not_comparable})`);
        continue;
      }
      const perRound = old.runs.get(c.scenario)!.map((r, i) => (now.runs.get(c.scenario)![i].round.rps / r.round.rps).toFixed(2));
      console.log(
        `  ${backendName} ${c.scenario}: ${old.checkout.label} ${c.old!.rps} req/s, ${now.checkout.label} ${c.new!.rps} req/s; ` +
          `new/old ${c.ratio.toFixed(2)} (rounds: ${perRound.join(', ')})` +
          (c.cpu_ratio === null ? '' : `; CPU µs/req ${c.old!.service_cpu_us_per_req} → ${c.new!.service_cpu_us_per_req} (${c.cpu_ratio.toFixed(2)}×)`),
      );
    }
    return { comparisons, readyMs: { old: old.readyMs, new: now.readyMs } };
  } finally {
    for (const side of sides) await stopSide(side);
  }
}

function compareScenario(s: Scenario, old: Side, now: Side): Comparison {
  const reason = old.unusable.get(s.name) ?? now.unusable.get(s.name);
  const runsOld = old.runs.get(s.name)!;
  const runsNew = now.runs.get(s.name)!;
  const mOld = runsOld.length ? aggregate(runsOld) : null;
  const mNew = runsNew.length ? aggregate(runsNew) : null;
  const failing = (m: Measurement | null, side: Side) =>
    m && m.errors + m.non2xx > 0 ? `${side.checkout.label} answered ${JSON.stringify(m.status_codes)}, ${m.errors} errors` : undefined;
  const notComparable = reason
    ? `${old.unusable.has(s.name) ? old.checkout.label : now.checkout.label}: ${reason}`
    : (failing(mOld, old) ?? failing(mNew, now));
  if (notComparable || !mOld || !mNew) {
    return { scenario: s.name, old: mOld, new: mNew, ratio: null, ratio_range: null, cpu_ratio: null, not_comparable: notComparable ?? 'not measured' };
  }
  const ratios = runsOld.map((r, i) => runsNew[i].round.rps / r.round.rps);
  const cpu = mOld.service_cpu_us_per_req && mNew.service_cpu_us_per_req ? mNew.service_cpu_us_per_req / mOld.service_cpu_us_per_req : null;
  return {
    scenario: s.name,
    old: mOld,
    new: mNew,
    ratio: round(median(ratios), 3),
    ratio_range: [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)],
    cpu_ratio: cpu === null ? null : round(cpu, 3),
  };
}

export async function runCompareBench(args: string[]): Promise<number> {
  const commit = args[0];
  if (!commit) {
    console.error('usage: npm run bench -- compare <commit> (e.g. a0ef03a, main, HEAD~3)');
    return 2;
  }
  const deadline = setTimeout(() => {
    console.error(`bench compare: still running after ${DEADLINE_MS / 60_000} min, giving up`);
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();

  const unknown = settings.backends.filter((b) => !BACKENDS[b]);
  if (unknown.length) throw new Error(`unknown backend(s): ${unknown.join(', ')} (known: ${Object.keys(BACKENDS).join(', ')})`);
  const selected = scenarios.filter((s) => !settings.scenarios || settings.scenarios.includes(s.name));
  const missing = settings.scenarios?.filter((n) => !scenarios.some((s) => s.name === n)) ?? [];
  if (missing.length || !selected.length) throw new Error(`unknown scenario(s): ${missing.join(', ')} (known: ${scenarios.map((s) => s.name).join(', ')})`);

  const baseline = await prepareBaseline(commit);
  if (settings.build) {
    console.log('building the working tree (tsc -p tsconfig.build.json) …');
    const { spawnSync } = await import('node:child_process');
    const built = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('build failed');
  }
  const old: Checkout = { label: baseline.label, bin: path.join(baseline.dir, 'bin', 'memorybook.js'), lib: await loadLib(baseline.dir) };
  console.log(
    `bench compare: ${old.label} (${baseline.dir}) against the working tree; ${settings.connections} connections, ` +
      `${compareSettings.warmupSeconds} s warm-up, ${compareSettings.rounds} alternating rounds of ${compareSettings.seconds} s per scenario and version, ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}`,
  );

  const stopBare = selected.some((s) => s.target === 'bare') ? await startBareFastify() : () => {};
  const results: Record<string, { comparisons: Comparison[]; readyMs: { old: number; new: number } }> = {};
  try {
    for (const name of settings.backends) results[name] = await compareOnBackend(name, [old, WORKING_TREE], selected);
  } finally {
    stopBare();
  }

  printTable(old.label, results);
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        generated_at: new Date().toISOString(),
        old: { commit: baseline.sha, dir: baseline.dir },
        new: { working_tree: ROOT },
        machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model.trim() ?? null, node: process.version, load_avg: os.loadavg() },
        settings: { connections: settings.connections, ...compareSettings, log_level: settings.logLevel },
        results,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
  return 0;
}

function printTable(oldLabel: string, results: Record<string, { comparisons: Comparison[]; readyMs: { old: number; new: number } }>) {
  const header = ['backend', 'scenario', `${oldLabel} req/s`, 'new req/s', 'new/old (range)', `${oldLabel} µs/req`, 'new µs/req', 'CPU new/old', 'load'];
  const rows = Object.entries(results).flatMap(([b, r]) =>
    r.comparisons.map((c) => [
      b,
      c.scenario,
      c.old ? String(c.old.rps) : '',
      c.new ? String(c.new.rps) : '',
      c.ratio === null ? 'n/a' : `${c.ratio.toFixed(2)} (${c.ratio_range![0].toFixed(2)}–${c.ratio_range![1].toFixed(2)})`,
      c.old?.service_cpu_us_per_req == null ? '' : String(c.old.service_cpu_us_per_req),
      c.new?.service_cpu_us_per_req == null ? '' : String(c.new.service_cpu_us_per_req),
      c.cpu_ratio === null ? '' : c.cpu_ratio.toFixed(2),
      Math.max(c.old?.load_avg_1m ?? 0, c.new?.load_avg_1m ?? 0).toFixed(1),
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\n' + line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  for (const [b, r] of Object.entries(results)) console.log(`${b}: start-to-ready ${oldLabel} ${r.readyMs.old} ms, new ${r.readyMs.new} ms (one start each; npm run bench -- start ${oldLabel} measures it properly)`);
  console.log('ratios > 1: the working tree is faster. The ceiling row is the same bare server for both: its distance from 1.00 is the noise.');
  for (const [b, r] of Object.entries(results)) for (const c of r.comparisons) if (c.not_comparable) console.log(`${b} ${c.scenario}: not comparable: ${c.not_comparable}`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}: expected a whole number >= ${min}, got "${raw}"`);
  return n;
}
