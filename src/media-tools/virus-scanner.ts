import { createReadStream } from 'node:fs';
import { connect, type Socket } from 'node:net';

export interface ScanResult {
  result: 'clean' | 'infected';
  /** The matched signature's name when infected. */
  signature: string | null;
}

/** Scans one file. Anything but a clear verdict (scanner down, timeout, scanner error) throws: never "clean" by default. */
export interface VirusScanner {
  scan(path: string, signal?: AbortSignal): Promise<ScanResult>;
}

export class VirusScanError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VirusScanError';
  }
}

export interface ClamavOptions {
  host: string;
  port: number;
  /** For one whole scan: connecting, sending the file, waiting for the verdict. */
  timeoutMs: number;
}

export interface ClamavScanner extends VirusScanner {
  /** Resolves when clamd answers PING with PONG. */
  ping(signal?: AbortSignal): Promise<void>;
}

const CHUNK = 64 * 1024;

/**
 * A scanner speaking clamd's INSTREAM over TCP: the file goes in chunks, each
 * prefixed with its length as 4 bytes big-endian, ended by a zero length;
 * clamd answers `stream: OK`, `stream: <signature> FOUND` or `<reason> ERROR`
 * (e.g. when the file passes its StreamMaxLength). The `z` command form ends
 * every message with a NUL.
 */
export function createClamavScanner(options: ClamavOptions): ClamavScanner {
  return {
    async scan(path, signal) {
      const reply = await converse(options, 'zINSTREAM\0', signal, async (socket) => {
        const header = Buffer.alloc(4);
        for await (const chunk of createReadStream(path, { highWaterMark: CHUNK, signal })) {
          header.writeUInt32BE((chunk as Buffer).length);
          // A failed write means clamd hung up (size limit): its reply, or the closed connection, says why.
          if (!(await write(socket, Buffer.concat([header, chunk as Buffer])))) return;
        }
        await write(socket, Buffer.alloc(4));
      });
      return parseReply(reply);
    },
    async ping(signal) {
      const reply = await converse(options, 'zPING\0', signal);
      if (reply !== 'PONG') throw new VirusScanError(`clamd answered PING with ${JSON.stringify(reply)}`);
    },
  };
}

/** Parses clamd's INSTREAM reply; exported for tests. */
export function parseReply(reply: string): ScanResult {
  if (reply === 'stream: OK') return { result: 'clean', signature: null };
  const found = /^stream: (.+) FOUND$/.exec(reply);
  if (found) return { result: 'infected', signature: found[1]! };
  throw new VirusScanError(`clamd could not scan the file: ${reply || 'no answer'}`);
}

/** Resolves false instead of failing when the connection is gone: the socket's own events report that. */
function write(socket: Socket, data: Buffer): Promise<boolean> {
  if (socket.destroyed || socket.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    socket.write(data, (err) => resolve(!err));
  });
}

/** One command on a fresh connection; resolves with clamd's reply (up to the NUL), under one deadline. */
function converse(options: ClamavOptions, command: string, signal: AbortSignal | undefined, send?: (socket: Socket) => Promise<void>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    signal?.throwIfAborted();
    const where = `${options.host}:${options.port}`;
    const socket = connect({ host: options.host, port: options.port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (err: Error | null, reply?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(reply!);
    };
    const replyText = () => Buffer.concat(chunks).toString('utf8').replace(/\0[\s\S]*$/, '').trim();
    const onAbort = () => finish(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
    const timer = setTimeout(() => finish(new VirusScanError(`clamd at ${where} gave no verdict within ${options.timeoutMs} ms`)), options.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    socket.on('data', (data: Buffer) => {
      chunks.push(data);
      if (data.includes(0)) finish(null, replyText());
    });
    socket.on('end', () => {
      // clamd may close right after an error reply (e.g. size limit) while we still send.
      if (chunks.length) finish(null, replyText());
      else finish(new VirusScanError(`clamd at ${where} closed the connection without a reply`));
    });
    socket.on('error', (err) => {
      if (chunks.length) finish(null, replyText());
      else finish(new VirusScanError(`connection to clamd at ${where} failed: ${err.message}`, { cause: err }));
    });
    socket.once('connect', () => {
      // Only reading the file can fail here (missing, unreadable, aborted): socket trouble arrives as events.
      write(socket, Buffer.from(command, 'latin1'))
        .then((ok) => (ok ? send?.(socket) : undefined))
        .catch((err: unknown) => finish(err instanceof Error ? err : new Error(String(err))));
    });
  });
}
