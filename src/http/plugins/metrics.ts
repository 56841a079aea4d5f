/**
 * The Prometheus face of src/metrics: request counts and latencies by route
 * template, `GET /metrics` on the API port behind METRICS_TOKEN, and the
 * separate listener of METRICS_PORT (only /metrics, for a private network).
 * Without either, nothing is recorded or served. /metrics is outside
 * /api/v1 and not in the OpenAPI document.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/client.js';
import { safeEqual } from '../../lib/secrets.js';
import { httpDuration, httpRequests, scrape, startMetrics, watchPool, watchQueue, type QueueSource } from '../../metrics/metrics.js';

export function metricsEnabled(config: Config): boolean {
  return config.metrics.token !== null || config.metrics.port !== null;
}

/** Whether an Authorization header carries the metrics token (constant time; no token configured: no header is enough). */
function authorized(config: Config, header: string | undefined): boolean {
  const token = config.metrics.token;
  if (token === null) return true;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return safeEqual(m?.[1] ?? '', token);
}

/**
 * What the scrape reads from this process: the database pool, and the job
 * queue when the process has one. Returns the function that stops watching them.
 */
export function watchProcess(db: Db, queue: unknown): () => void {
  startMetrics();
  const stops = [watchPool(db, { stats: () => db.poolStats() })];
  const q = queue as Partial<QueueSource> | undefined;
  if (typeof q?.depths === 'function') stops.push(watchQueue(q, q as QueueSource));
  return () => stops.forEach((stop) => stop());
}

/**
 * Records every answered request (route template, never the raw URL: a
 * request no route matched counts as `unmatched`) and, with METRICS_TOKEN,
 * serves GET /metrics on this app.
 */
export function installMetrics(app: FastifyInstance, deps: { config: Config; db: Db; queue?: unknown }) {
  const { config } = deps;
  if (!metricsEnabled(config)) return;
  const stop = watchProcess(deps.db, deps.queue);
  app.addHook('onClose', async () => stop());
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  if (config.metrics.token === null) return;
  app.get('/metrics', { schema: { hide: true }, config: { internal: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!authorized(config, request.headers.authorization)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send({ code: 'unauthorized', message: 'A valid metrics token is required.', details: null, request_id: String(request.id) });
    }
    const { body, contentType } = await scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}

export interface MetricsListener {
  address: string;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: a second listener that serves only GET /metrics (still
 * behind METRICS_TOKEN when one is set), for Prometheus on a private
 * network. Everything else answers 404. `watch` is what the scrape reads.
 */
export async function startMetricsListener(config: Config, watch: { db: Db; queue?: unknown }): Promise<MetricsListener | null> {
  const port = config.metrics.port;
  if (port === null) return null;
  const stop = watchProcess(watch.db, watch.queue);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== '/metrics') return send(404, 'Not found.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'Method not allowed.\n', { allow: 'GET, HEAD' });
    if (!authorized(config, req.headers.authorization)) return send(401, 'A valid metrics token is required.\n', { 'www-authenticate': 'Bearer realm="metrics"' });
    scrape().then(
      ({ body, contentType }) => send(200, body, { 'content-type': contentType }),
      () => send(500, 'The metrics could not be collected.\n'),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, config.metrics.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    stop();
    throw err;
  }
  const a = server.address() as AddressInfo;
  return {
    address: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
