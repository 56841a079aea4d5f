/**
 * A real HTTP receiver for webhook tests: a plain node:http server on
 * 127.0.0.1 that records every request (headers and raw body) and answers
 * what the test says: a status, or 'hang' (never answers).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** When the answer was sent (answers with a delay). */
  answeredAt?: number;
}

export type Answer = number | 'hang' | { status: number; body?: string; delayMs?: number };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The parsed bodies received so far. */
  events(): any[];
  /** Resolves once `n` requests have come in (or rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (n: number, r: Received) => Answer = () => 200, path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
      const a = answer(received.length, r);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      if (typeof a === 'number') {
        res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      const send = () => {
        r.answeredAt = Date.now();
        res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? 'ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  const r: Receiver = {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    events: () => received.map((x) => JSON.parse(x.body)),
    waitFor(n, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(received)) });
      });
    },
    close() {
      return (closed ??= new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }));
    },
  };
  try {
    onTestFinished(() => r.close());
  } catch {
    // started outside a test: the caller closes it
  }
  return r;
}

/** The env that lets the test's receivers on 127.0.0.1 (plain http) through the SSRF guard. */
export const LOOPBACK_ALLOWED = { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' };
