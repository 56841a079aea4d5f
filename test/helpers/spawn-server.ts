import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_SECRET } from './build-test-app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface SpawnedServer {
  url: string;
  child: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs `memorybook serve` as a real child process (the built CLI) and waits
 * until /readyz answers. On PostgreSQL it shares the test's schema.
 */
export async function spawnServer(o: { schema?: string; dataDir?: string; env?: Record<string, string>; port?: number } = {}): Promise<SpawnedServer> {
  // A given port: a process restarted in place of one that exited.
  const port = o.port ?? (await freePort());
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    SECRET_KEY: TEST_SECRET,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://localhost:${port}`,
    DATA_DIR: o.dataDir ?? mkdtempSync(path.join(tmpdir(), 'memorybook-proc-')),
    LOG_LEVEL: 'warn',
    ...(o.schema ? { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: o.schema } : { DATABASE_URL: '' }),
    ...(o.env ?? {}),
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/memorybook.js'), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // A test that fails before its afterAll must not leave a server running.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${output}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become ready: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
