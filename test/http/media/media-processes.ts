/**
 * What the multi-process media tests share: real `memorybook` processes from
 * the built CLI (`npx tsc -p tsconfig.build.json` first), uploads sent over a
 * real socket and streamed from disk, and an upload cut off half way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createReadStream } from 'node:fs';
import { TEST_SECRET } from '../../helpers/build-test-app.js';
import { freePort } from '../../helpers/spawn-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = path.join(ROOT, 'bin/memorybook.js');

export interface MemorybookProcess {
  /** Set for API processes. */
  url: string | null;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `memorybook <args>` as a child process. An API process (`serve`) is
 * ready once /readyz answers; a worker once it logs that it runs.
 */
export async function spawnMemorybook(args: string[], env: Record<string, string>, o: { api: boolean } = { api: args[0] === 'serve' }): Promise<MemorybookProcess> {
  const port = await freePort();
  const fullEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    SECRET_KEY: TEST_SECRET,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // A worker logs each job it completes at debug.
    LOG_LEVEL: o.api ? 'warn' : 'debug',
    ...env,
  };
  const child = spawn(process.execPath, [BIN, ...args], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = o.api ? `http://127.0.0.1:${port}` : null;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`memorybook ${args.join(' ')} exited ${child.exitCode}: ${output}`);
    if (url) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) break;
      } catch {
        /* not listening yet */
      }
    } else if (output.includes('memorybook worker running')) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`memorybook ${args.join(' ')} did not become ready: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}

/** Runs a CLI command to its end: exit code and output. */
export function runMemorybook(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...(process.env as Record<string, string>), NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The store settings of an app's config, as the environment a spawned process reads. */
export function storeEnv(storage: { kind: 'local' | 's3'; s3: { endpoint: string | null; bucket: string; region: string; accessKeyId: string | null; secretAccessKey: string | null; forcePathStyle: boolean } | null }): Record<string, string> {
  if (storage.kind !== 's3' || !storage.s3) return { STORAGE: 'local' };
  const s3 = storage.s3;
  return {
    STORAGE: 's3',
    S3_ENDPOINT: s3.endpoint ?? '',
    S3_BUCKET: s3.bucket,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId ?? '',
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey ?? '',
    S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
  };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * POSTs the file at `file` as the one `file` part, over a real connection,
 * read from disk as it goes (a file-backed Blob in a FormData).
 */
export async function uploadFile(
  baseUrl: string,
  urlPath: string,
  token: string,
  file: string,
  o: { key?: string; filename?: string; contentType?: string } = {},
): Promise<HttpAnswer> {
  const form = new FormData();
  form.append('file', await openAsBlob(file, { type: o.contentType ?? 'application/octet-stream' }), o.filename ?? path.basename(file));
  const res = await fetch(`${baseUrl}${urlPath}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'idempotency-key': o.key ?? crypto.randomUUID() },
    body: form,
  });
  return answer(res);
}

export async function answer(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  let json: unknown = null;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json };
}

/** An upload cut off part way: headers and the first bytes sent, the socket left open. */
export interface PartialUpload {
  socket: Socket;
  /** Bytes of the file sent so far. */
  sent: number;
  /** Anything the server answered (normally nothing: it waits for the rest). */
  received(): string;
  close(): void;
}

/**
 * Starts a multipart upload of `file` over a raw socket, announcing the whole
 * body's Content-Length, and sends only the first `sendBytes` bytes of the
 * file (read from disk), then stops: the server is left mid-stream.
 */
export async function startPartialUpload(
  baseUrl: string,
  urlPath: string,
  token: string,
  file: string,
  o: { key: string; sendBytes: number; filename?: string; contentType?: string },
): Promise<PartialUpload> {
  const { hostname, port } = new URL(baseUrl);
  const size = (await stat(file)).size;
  const boundary = `----memorybook${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${o.filename ?? path.basename(file)}"\r\n` +
      `Content-Type: ${o.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {}); // the server dies under it
  socket.write(
    `POST ${urlPath} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: ${o.key}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + size + tail.length}\r\n\r\n`,
  );
  socket.write(head);
  let sent = 0;
  for await (const chunk of createReadStream(file, { start: 0, end: Math.min(o.sendBytes, size) - 1 })) {
    sent += (chunk as Buffer).length;
    if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
  }
  return { socket, sent, received: () => received, close: () => socket.destroy() };
}

export async function until<T>(get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms (last: ${JSON.stringify(v)?.slice(0, 300)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
