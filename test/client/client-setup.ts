/**
 * The client's tests run against the real service over a real socket: the
 * test app listening on a port, PUBLIC_URL pointing at it (signed file URLs
 * lead back to it), and every API answer the client receives checked against
 * the served OpenAPI document, as build-test-app does for inject.
 */
import net from 'node:net';
import { createMemorybookClient, type MemorybookClient, type MemorybookClientOptions } from '../../packages/client/src/index.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { createResponseValidator } from '../helpers/openapi-validator.js';
import { freePort } from '../helpers/spawn-server.js';

export interface Attempt {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** The status, or `network` when the connection failed. */
  status: number | 'network';
}

export interface ServedApp extends TestApp {
  url: string;
  /** Every request the clients made of this app, in order. */
  attempts: Attempt[];
  /** The fetch under every test client: records each attempt, checks each API answer against the document. */
  fetch(input: Request, init?: RequestInit): Promise<Response>;
  /** A client of this app with this key; more options (a proxy's baseUrl, retry settings) on top. */
  client(apiKey: string, options?: Partial<MemorybookClientOptions>): MemorybookClient;
}

export async function serveTestApp(o: { env?: Record<string, string>; worker?: boolean } = {}): Promise<ServedApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ worker: o.worker, env: { PUBLIC_URL: url, ...o.env } });
  await t.app.listen({ host: '127.0.0.1', port });
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  const validate = createResponseValidator(doc);
  const attempts: Attempt[] = [];

  /** The fetch under every test client: records each attempt and checks each API answer against the document. */
  async function checkedFetch(input: Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const { pathname, search } = new URL(request.url);
    const attempt: Attempt = { method: request.method, path: pathname + search, idempotencyKey: request.headers.get('idempotency-key'), status: 'network' };
    attempts.push(attempt);
    const response = await fetch(request);
    attempt.status = response.status;
    if (pathname.startsWith('/api/v1/')) {
      const text = await response.clone().text();
      const problems = validate(request.method, pathname, response.status, response.headers.get('content-type') ?? undefined, text, Object.fromEntries(response.headers));
      if (!response.headers.get('x-request-id')) problems.push('no X-Request-Id header');
      if (problems.length) throw new Error(`Response does not match the OpenAPI document: ${request.method} ${pathname} → ${response.status}\n  ${problems.join('\n  ')}\n  body: ${text.slice(0, 500)}`);
    }
    return response;
  }

  return Object.assign(t, {
    url,
    attempts,
    fetch: checkedFetch,
    client: (apiKey: string, options: Partial<MemorybookClientOptions> = {}) =>
      createMemorybookClient({ baseUrl: url, apiKey, fetch: checkedFetch, ...options }),
  });
}

export interface CuttingProxy {
  url: string;
  /** Requests whose response the proxy cut off, so far. */
  cuts: number;
  /**
   * Cut the connection as soon as the response to the next request whose
   * head matches starts to arrive: the server has done the work and
   * committed it, the client never hears of it.
   */
  cutResponseTo(match: RegExp): void;
  close(): Promise<void>;
}

/** A TCP proxy in front of the app that can drop a connection at the worst moment. */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  let armed: RegExp | null = null;
  const sockets = new Set<net.Socket>();
  const proxy: CuttingProxy = {
    url: '',
    cuts: 0,
    cutResponseTo(match) {
      armed = match;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let cutThisResponse = false;
    client.on('data', (chunk) => {
      if (armed && armed.test(chunk.toString('latin1').split('\r\n', 1)[0])) {
        armed = null;
        cutThisResponse = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (cutThisResponse) {
        proxy.cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}
