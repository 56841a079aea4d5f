/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl on a temporary data
 * directory and a free port), for tests that kill or stop the database: the
 * shared server at TEST_DATABASE_URL is never touched. As root the cluster
 * runs as the `postgres` user (PostgreSQL refuses to run as root).
 */
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './spawn-server.js';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  url: string;
  port: number;
  /** kill -9 of the postmaster: its backends cut their connections as it dies. */
  kill(): Promise<void>;
  /** pg_ctl stop -m fast: sessions are terminated (57P01), new connections refused. */
  stop(): Promise<void>;
  /** Starts it again (after kill or stop) and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its data directory. */
  close(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
  }
  const pg = (bin: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(BIN, bin), ...args]) : run(path.join(BIN, bin), args);
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const start = async () => {
    // After a kill -9 its backends may still be leaving: a start that finds their shared memory in use is tried again.
    for (let attempt = 1; ; attempt++) {
      try {
        await pg('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
        return;
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  await start();
  const postmasterPid = () => Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let closed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async kill() {
      process.kill(postmasterPid(), 'SIGKILL');
    },
    async stop() {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    start,
    async close() {
      if (closed) return;
      closed = true;
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
