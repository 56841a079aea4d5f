import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import type { Services } from '../services/index.js';

/**
 * The operator's commands beside a running embedded server. PGlite is one
 * process's database: while `memorybook serve` holds DATA_DIR no other
 * process may open it. So `serve` (on the embedded database only) listens on
 * a Unix socket in the data folder, `DATA_DIR/admin.sock`, mode 0600 (only
 * the account that runs the server, which can read the database files
 * anyway, can connect); a command such as `memorybook slots grant` finds it,
 * sends its arguments, and the server runs the command in-process through
 * its own database and services, answering what the command would have
 * printed and its exit code. No network port, no credential: the socket's
 * file permissions are the access control.
 *
 * Protocol: one JSON line each way, `{"argv": [...]}` then
 * `{"code": n, "stdout": "...", "stderr": "..."}`.
 */

/** Commands that may run through the socket: the operator's, not the long-running or file-writing ones. */
export const FORWARDED_COMMANDS = new Set(['user', 'token', 'slots', 'member', 'subscription', 'book', 'audit', 'jobs']);

/** What a command runs against when the server runs it for the socket: its database and services, and where its output goes. */
export interface CommandContext {
  db: Db;
  services: Services;
  stdout(text: string): void;
  stderr(text: string): void;
}

export function adminSocketPath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'admin.sock');
}

interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/** Longest request line taken (a command's arguments). */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * Listens on DATA_DIR/admin.sock for the running server; `run` is the CLI's
 * own entry point, handed the CommandContext. A socket file left by a
 * server that died is replaced (the data folder's lock says this process
 * owns the folder).
 */
export async function startAdminSocket(o: {
  config: Pick<Config, 'dataDir'>;
  db: Db;
  services: Services;
  run: (argv: string[], server: CommandContext) => Promise<number>;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}): Promise<{ path: string; close(): Promise<void> }> {
  const file = adminSocketPath(o.config);
  if (existsSync(file)) unlinkSync(file);
  const server = net.createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REQUEST_BYTES) {
        socket.end(JSON.stringify({ code: 2, stdout: '', stderr: 'memorybook: request too long\n' }) + '\n');
        return;
      }
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      socket.pause();
      void answer(buffered.slice(0, newline)).then((a) => socket.end(JSON.stringify(a) + '\n'));
    });
  });

  async function answer(line: string): Promise<Answer> {
    let argv: unknown;
    try {
      argv = (JSON.parse(line) as { argv?: unknown }).argv;
    } catch {
      return { code: 2, stdout: '', stderr: 'memorybook: the admin socket takes one JSON line {"argv": [...]}\n' };
    }
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string') || !FORWARDED_COMMANDS.has(argv[0] as string)) {
      return { code: 2, stdout: '', stderr: `memorybook: not a command the admin socket runs (${[...FORWARDED_COMMANDS].join(', ')})\n` };
    }
    let stdout = '';
    let stderr = '';
    const ctx: CommandContext = { db: o.db, services: o.services, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) };
    try {
      const code = await o.run(argv as string[], ctx);
      o.log?.info({ command: (argv as string[]).slice(0, 2).join(' '), code }, 'operator command run through the admin socket');
      return { code, stdout, stderr };
    } catch (err) {
      o.log?.warn({ err }, 'operator command through the admin socket failed');
      return { code: 1, stdout, stderr: stderr + `memorybook: ${(err as Error).message}\n` };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  chmodSync(file, 0o600);
  return {
    path: file,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      }),
  };
}

/**
 * Sends a command to the running server's admin socket; null when none
 * listens (no file, or one left by a server that is gone), so the command
 * opens the database itself.
 */
export async function forwardToAdminSocket(config: Pick<Config, 'dataDir'>, argv: string[]): Promise<Answer | null> {
  const file = adminSocketPath(config);
  if (!existsSync(file)) return null;
  return new Promise<Answer | null>((resolve, reject) => {
    const socket = net.createConnection(file);
    let connected = false;
    let received = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(JSON.stringify({ argv }) + '\n');
    });
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(received.trim()) as Answer);
      } catch {
        reject(new Error('the running server answered the admin socket with something unreadable'));
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected && (err.code === 'ECONNREFUSED' || err.code === 'ENOENT')) resolve(null);
      else reject(err);
    });
  });
}
