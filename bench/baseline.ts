/**
 * An earlier commit of memorybook, checked out and installed once for the
 * benches that compare with it (`npm run bench -- compare <commit>`,
 * `npm run bench -- start <commit>`): a detached git worktree of the commit
 * under BENCH_BASELINE_CACHE (default <tmpdir>/memorybook-bench-baselines/<full hash>),
 * `npm ci` there (whose prepare script builds it), kept for the next run.
 * A finished install leaves a marker file; a half-made one is made again.
 * Remove one with `git worktree remove --force <dir>`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = '.memorybook-bench-ready';
const INSTALL_TIMEOUT_MS = 15 * 60_000;

export interface Baseline {
  /** The commit's full hash. */
  sha: string;
  /** Its short hash, for reports. */
  label: string;
  /** The built checkout. */
  dir: string;
}

export const baselineCache = () => process.env.BENCH_BASELINE_CACHE || path.join(os.tmpdir(), 'memorybook-bench-baselines');

function run(cmd: string, args: string[], cwd: string, timeoutMs: number, quiet = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (!quiet) process.stdout.write(d);
    });
    child.stderr?.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code ?? signal}${err ? `: ${err.trim()}` : ''}`));
    });
  });
}

/** The commit's full hash, or an error naming what git could not resolve. */
export async function resolveCommit(commitish: string): Promise<string> {
  if (commitish.startsWith('-')) throw new Error(`not a commit: ${commitish}`);
  try {
    return (await run('git', ['rev-parse', '--verify', '--quiet', `${commitish}^{commit}`], ROOT, 30_000, true)).trim();
  } catch {
    throw new Error(`git cannot resolve "${commitish}" to a commit of this repository`);
  }
}

/** Checks out, installs and builds `commitish` once; later calls answer the cached checkout. */
export async function prepareBaseline(commitish: string): Promise<Baseline> {
  const sha = await resolveCommit(commitish);
  const dir = path.join(baselineCache(), sha);
  const baseline = { sha, label: sha.slice(0, 7), dir };
  const marker = path.join(dir, MARKER);
  if (existsSync(marker) && existsSync(path.join(dir, 'dist/cli/main.js'))) {
    console.log(`baseline ${baseline.label}: cached in ${dir} (installed ${JSON.parse(readFileSync(marker, 'utf8')).installed_at})`);
    return baseline;
  }
  console.log(`baseline ${baseline.label}: checking out into ${dir}, then npm ci and the build (once; a few minutes) …`);
  mkdirSync(baselineCache(), { recursive: true });
  if (existsSync(dir)) {
    // A half-made install from an interrupted run: start again.
    await run('git', ['worktree', 'remove', '--force', dir], ROOT, 60_000, true).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
  await run('git', ['worktree', 'prune'], ROOT, 60_000, true);
  await run('git', ['worktree', 'add', '--detach', dir, sha], ROOT, 120_000, true);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await run(npm, ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir, INSTALL_TIMEOUT_MS);
  // npm ci runs the prepare script (the build) where the commit has one; build it otherwise.
  if (!existsSync(path.join(dir, 'dist/cli/main.js'))) await run(npm, ['run', 'build'], dir, INSTALL_TIMEOUT_MS);
  if (!existsSync(path.join(dir, 'dist/cli/main.js'))) throw new Error(`${dir}: no dist/cli/main.js after npm ci and the build`);
  writeFileSync(marker, JSON.stringify({ sha, installed_at: new Date().toISOString() }) + '\n');
  return baseline;
}
