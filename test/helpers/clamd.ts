/**
 * A real clamd for tests: Debian's clamav-daemon (.ci/run installs it),
 * started in the foreground on a free 127.0.0.1 port with its own config and
 * a one-line signature database for the EICAR test string (no signature
 * download is possible here, and none is needed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createClamavScanner } from '../../src/media-tools/virus-scanner.js';
import { EICAR } from './media-fixtures.js';

/** The name our signature file gives the EICAR string; clamd reports it with ".UNOFFICIAL" appended (unsigned database). */
export const EICAR_SIGNATURE = 'Memorybook.Test.EICAR';

export interface RunningClamd {
  host: string;
  port: number;
  /** The options createClamavScanner takes. */
  options: { host: string; port: number; timeoutMs: number };
  stop(): Promise<void>;
}

/** clamd's path, or null when clamav-daemon is not installed. */
export function findClamd(): string | null {
  const candidates = [process.env.CLAMD_PATH, '/usr/sbin/clamd', '/usr/local/sbin/clamd', ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'clamd'))];
  return candidates.find((c): c is string => !!c && existsSync(c)) ?? null;
}

/** Why the clamd tests skip, or null when they can run. In CI a missing clamd is a failure, not a skip. */
export function clamdSkipReason(): string | null {
  if (findClamd()) return null;
  const why = 'clamd not found (install Debian\'s clamav-daemon, or set CLAMD_PATH): skipping the tests against a real clamd';
  if (process.env.CI) throw new Error(`${why}; CI must have it (.ci/run installs it)`);
  return why;
}

const running = new Set<ChildProcess>();
let exitHook = false;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts clamd and resolves once it answers PING. Call stop() in afterAll. */
export async function startClamd(): Promise<RunningClamd> {
  const clamd = findClamd();
  if (!clamd) throw new Error('clamd not found');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-clamd-'));
  const db = path.join(dir, 'db');
  const tmp = path.join(dir, 'tmp');
  await mkdir(db);
  await mkdir(tmp);
  // A body signature (.ndb): any file type (0), anywhere in the file (*), the string in hex.
  await writeFile(path.join(db, 'memorybook-test.ndb'), `${EICAR_SIGNATURE}:0:*:${Buffer.from(EICAR, 'latin1').toString('hex')}\n`);

  let lastError: Error | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const conf = path.join(dir, `clamd-${port}.conf`);
    await writeFile(
      conf,
      [
        'Foreground yes',
        `TCPSocket ${port}`,
        'TCPAddr 127.0.0.1',
        `DatabaseDirectory ${db}`,
        `TemporaryDirectory ${tmp}`,
        `LogFile ${path.join(dir, 'clamd.log')}`,
        'MaxThreads 2',
        'StreamMaxLength 64M',
        'SelfCheck 3600',
        '',
      ].join('\n'),
    );
    // GNU timeout caps clamd's life should this process die without running stop() (it forwards SIGTERM to clamd).
    const [cmd, args] = existsSync('/usr/bin/timeout') ? ['/usr/bin/timeout', ['1800', clamd, '-c', conf]] : [clamd, ['-c', conf]];
    // Its own process group, so stopping it reaches clamd behind the timeout wrapper too.
    const child = spawn(cmd as string, args as string[], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
    running.add(child);
    child.once('exit', () => running.delete(child));
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const c of running) signalGroup(c, 'SIGKILL');
      });
    }
    const options = { host: '127.0.0.1', port, timeoutMs: 10_000 };
    const stop = () => stopChild(child).then(() => rm(dir, { recursive: true, force: true }));
    try {
      await waitForPong(child, options, () => stderr);
      return { host: options.host, port, options, stop };
    } catch (err) {
      lastError = err as Error;
      await stopChild(child);
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError ?? new Error('clamd did not start');
}

async function waitForPong(child: ChildProcess, options: { host: string; port: number }, stderr: () => string): Promise<void> {
  const scanner = createClamavScanner({ ...options, timeoutMs: 2_000 });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`clamd exited (${child.exitCode ?? child.signalCode}): ${stderr().trim()}`);
    try {
      await scanner.ping();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`clamd did not answer PING within 60 s: ${(err as Error).message}\n${stderr().trim()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      signalGroup(child, 'SIGKILL'); // anything left in the group
      resolve();
    });
    signalGroup(child, 'SIGTERM');
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}
