import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small round-robin HTTP load balancer in front of memorybook processes,
 * doing what nginx (`proxy_next_upstream error`), HAProxy (`retry-on
 * conn-failure empty-response`) or Envoy (`retry_on: reset,connect-failure`)
 * do during a rolling restart:
 *
 * - a refused connection sent nothing, so any request goes to the next upstream;
 * - a connection reset (or closed) before any response byte, on a keep-alive
 *   socket the upstream was closing as the request went out, is retried only
 *   when repeating it is safe: an idempotent method, or a request carrying an
 *   Idempotency-Key (the server answers a repeat with the stored response);
 * - once a response has started nothing is retried: the client sees what the
 *   upstream sent, or its socket is cut.
 *
 * Upstream connections are kept alive and reused, so the race between the
 * server closing an idle socket and the balancer sending on it really happens.
 */
export interface LoadBalancer {
  url: string;
  /** Replaces the upstream at `index` (a process restarted on a new port). */
  setUpstream(index: number, url: string): void;
  /** Requests sent to each upstream and not yet answered, by upstream URL. */
  inFlight(url: string): number;
  stats: LoadBalancerStats;
  close(): Promise<void>;
}

export interface LoadBalancerStats {
  /** Requests the clients sent. */
  requests: number;
  /** Attempts sent again to another upstream, by the error that made the balancer move on. */
  retries: Record<string, number>;
  /** Of those, the resets (the request had gone out), by method. */
  resetRetries: Record<string, number>;
  /** Requests the balancer could not get an answer for (answered 502 to the client). */
  gaveUp: number;
  /** Requests whose response was cut after it had started. */
  cutResponses: number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Errors that mean the connection was never made: nothing reached the upstream. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Errors of a connection that ended before any response byte. */
const RESET = new Set(['ECONNRESET', 'EPIPE']);
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];
const MAX_ATTEMPTS = 20;

export async function startLoadBalancer(upstreams: string[]): Promise<LoadBalancer> {
  const targets = [...upstreams];
  // Idle upstream sockets are dropped before the server's keep-alive timeout (5 s), as balancers are told to.
  const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  const stats: LoadBalancerStats = { requests: 0, retries: {}, resetRetries: {}, gaveUp: 0, cutResponses: 0 };
  const pending = new Map<string, number>();
  let next = 0;

  const server = createServer(async (req, res) => {
    stats.requests++;
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const replayable = IDEMPOTENT.has(method) || req.headers['idempotency-key'] !== undefined;
    for (let attempt = 1; ; attempt++) {
      const target = targets[next++ % targets.length];
      const outcome = await forward(target, req, body, res);
      if (outcome === 'answered') return;
      const retry = NOT_CONNECTED.has(outcome) || (RESET.has(outcome) && replayable);
      if (!retry || attempt >= MAX_ATTEMPTS) {
        stats.gaveUp++;
        res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `upstream failed: ${outcome}` }));
        return;
      }
      stats.retries[outcome] = (stats.retries[outcome] ?? 0) + 1;
      if (RESET.has(outcome)) stats.resetRetries[method] = (stats.resetRetries[method] ?? 0) + 1;
      // Every upstream refusing (one restarting, the other not up yet) would spin: back off a little.
      if (attempt % targets.length === 0) await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  });
  // The clients' sockets to the balancer stay open as long as the test runs: no race of its own here.
  server.keepAliveTimeout = 60_000;

  /** Sends one attempt; resolves 'answered' once the client got the response, or the error code of an attempt that got no byte back. */
  function forward(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<string> {
    return new Promise((resolve) => {
      const u = new URL(target);
      const headers: IncomingHttpHeaders = { ...req.headers, host: u.host, 'content-length': String(body.length) };
      for (const h of HOP_BY_HOP) delete headers[h];
      pending.set(target, (pending.get(target) ?? 0) + 1);
      let settled = false;
      const settle = (outcome: string) => {
        if (settled) return;
        settled = true;
        pending.set(target, pending.get(target)! - 1);
        resolve(outcome);
      };
      const up = httpRequest({ hostname: u.hostname, port: u.port, method: req.method, path: req.url, headers, agent }, (upRes) => {
        const out = { ...upRes.headers };
        for (const h of HOP_BY_HOP) delete out[h];
        res.writeHead(upRes.statusCode ?? 502, out);
        upRes.pipe(res);
        upRes.on('end', () => settle('answered'));
        // The response had started: the client's socket is cut, as a balancer would.
        upRes.on('error', () => {
          stats.cutResponses++;
          res.destroy();
          settle('answered');
        });
        upRes.on('aborted', () => {
          stats.cutResponses++;
          res.destroy();
          settle('answered');
        });
      });
      up.on('error', (err: NodeJS.ErrnoException) => {
        if (res.headersSent) {
          stats.cutResponses++;
          res.destroy();
          settle('answered');
        } else settle(err.code ?? 'ERROR');
      });
      up.end(body);
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setUpstream(index, url) {
      targets[index] = url;
    },
    inFlight: (url) => pending.get(url) ?? 0,
    stats,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
