/**
 * Traces as an operator's collector receives them: a local OTLP/HTTP receiver
 * (a plain node:http server taking POST /v1/traces, OTLP JSON) and the
 * service configured by the standard OTEL_* variables. Off by default: with
 * no variables, or with them switched off, nothing is sent and the SDK never
 * loads. On: one photo upload's trace links the request, the media.process
 * job it queued and the webhook delivery the job caused (parent chains
 * checked), with database, S3 and webhook spans along the way.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { newBook, newSubmission, newUser } from '../helpers/factories.js';
import { readFixture } from '../helpers/media-fixtures.js';
import { buildMediaApp, upload } from '../http/media/media-setup.js';
import { LOOPBACK_ALLOWED, startReceiver } from '../http/webhook-endpoints/receiver.js';
import { startTracing, tracingOn, tracingSettings, type Tracing } from '../../src/lib/tracing.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number };
  service: unknown;
}

/** A collector's OTLP/HTTP traces endpoint: every span it was sent, decoded from OTLP JSON. */
async function startOtlpReceiver() {
  const spans: OtlpSpan[] = [];
  const posts: { path: string; contentType: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) spans.push({ ...s, attributes: attributesOf(s.attributes), service: resource['service.name'] });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, posts, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** OTLP JSON's key/value list as a plain object. */
function attributesOf(list: { key: string; value: Record<string, unknown> }[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
    out[key] = typeof v === 'string' && 'intValue' in value ? Number(v) : v;
  }
  return out;
}

const OTEL_KEYS = ['OTEL_SDK_DISABLED', 'OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_BSP_SCHEDULE_DELAY'];
const saved = Object.fromEntries(OTEL_KEYS.map((k) => [k, process.env[k]]));
function setOtelEnv(vars: Record<string, string>) {
  for (const k of OTEL_KEYS) delete process.env[k];
  Object.assign(process.env, vars);
}
afterAll(() => setOtelEnv(Object.fromEntries(Object.entries(saved).filter(([, v]) => v !== undefined)) as Record<string, string>));

const log = { warn: () => {}, info: () => {} };
const sdkLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /@opentelemetry[/\\](sdk-trace|exporter-trace-otlp-http)/.test(k));

describe('tracing', () => {
  let tracing: Tracing | null = null;
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = null;
  });

  it('is off unless OTEL_* asks: nothing is exported and the SDK never loads', async () => {
    const otlp = await startOtlpReceiver();
    const endpoint = `${otlp.url}/v1/traces`;
    // The spec's meanings: no endpoint and no exporter named is off here (never a send to localhost by surprise);
    // OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none switch a configured endpoint off.
    expect(tracingSettings({})).toBeNull();
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })).toEqual({ exporter: 'otlp', warnings: [] });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ exporter: 'otlp', warnings: [] });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })?.warnings).toHaveLength(1);

    for (const vars of [{}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_SDK_DISABLED: "true" }] as Record<string, string>[]) {
      setOtelEnv(vars);
      expect(await startTracing(process.env, log)).toBeNull();
      expect(tracingOn()).toBe(false);
    }
    // A whole photo upload and its processing, with the receiver's address configured but tracing switched off.
    const t = await buildMediaApp('local', { worker: true });
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const sub = await newSubmission(t, slug, owner);
    const up = await upload(t, owner, slug, sub.id, await readFixture('jpeg'), { filename: 'a.jpg' });
    expect(up.status).toBe(201);
    expect((await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).status).toBe(200);
    await eventually(() => t.get(up.headers.location as string, { token: owner.token }), (r) => r.body.processing_status === 'complete');
    // The payload stored for the job carries no trace context.
    const [job] = await t.db.query<{ data: object }>(`SELECT data FROM ${t.queue.schema}.job WHERE name = 'media.process'`);
    expect(Object.keys(job.data)).toEqual(['mediaId']);
    await new Promise((r) => setTimeout(r, 300));
    expect(otlp.posts).toEqual([]);
    expect(sdkLoaded()).toBe(false);
    await t.close();
    await otlp.close();
  });

  it.each(['local', 's3'] as const)(
    'a photo upload on the %s store: one trace links the request, its media.process job and the webhook delivery the job caused',
    async (store) => {
      const otlp = await startOtlpReceiver();
      setOtelEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`, OTEL_SERVICE_NAME: 'memorybook-test', OTEL_BSP_SCHEDULE_DELAY: '100' });
      tracing = await startTracing(process.env, log);
      expect(tracing).not.toBeNull();
      expect(sdkLoaded()).toBe(true);

      const hooks = await startReceiver();
      const t = await buildMediaApp(store, { worker: true, env: LOOPBACK_ALLOWED });
      const owner = await newUser(t);
      const { slug } = await newBook(t, owner, { plan: 'plus' });
      const ep = await t.post('/api/v1/webhook_endpoints/', { url: hooks.url }, { token: owner.token });
      expect(ep.status).toBe(201);
      // POST …/submissions/, then its photo.
      const created = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'A memory with a photo' }, { token: owner.token });
      expect(created.status).toBe(201);
      const sub = created.body;
      const up = await upload(t, owner, slug, sub.id, await readFixture('jpeg'), { filename: 'a.jpg' });
      expect(up.status).toBe(201);
      const requestId = String(up.headers['x-request-id']);
      // The job processes the photo; the dispatcher then sends media.processed (and the earlier submission.created).
      await eventually(
        async () => {
          await t.services.webhookDispatcher.runDue();
          return hooks.events().map((e) => e.type as string);
        },
        (types) => types.includes('media.processed'),
        60_000,
      );
      await t.close();
      await tracing!.shutdown(); // flushes what is buffered
      tracing = null;
      const spans = otlp.spans;
      expect(otlp.posts.every((p) => p.path === '/v1/traces' && p.contentType === 'application/json')).toBe(true);
      expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['memorybook-test']));

      if (process.env.TRACE_DEBUG) console.log(spans.map((s) => `${s.name} ${s.kind} ${s.traceId.slice(0, 6)} ${s.spanId} <- ${s.parentSpanId}`).join("\n"));
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const ancestors = (s: OtlpSpan) => {
        const chain: OtlpSpan[] = [];
        for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) chain.push(p);
        return chain;
      };
      // The request: a server span by the HTTP conventions, with the request id.
      const request = spans.find((s) => s.kind === 2 && s.attributes['memorybook.request_id'] === requestId)!;
      expect(request).toBeDefined();
      expect(request.name).toBe('POST /api/v1/books/:slug/submissions/:id/media/');
      expect(request.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/api/v1/books/:slug/submissions/:id/media/',
        'http.response.status_code': 201,
        'url.path': `/api/v1/books/${slug}/submissions/${sub.id}/media/`,
      });
      expect(request.parentSpanId || undefined).toBeUndefined();
      // Its database work: statement and transaction spans under it, no parameter values.
      const dbUnder = spans.filter((s) => s.attributes['db.system'] === 'postgresql' && ancestors(s).includes(request));
      expect(dbUnder.length).toBeGreaterThan(0);
      expect(JSON.stringify(dbUnder)).not.toContain(owner.token);
      // The job it queued: sent under the request, run as a child of that send (the traceparent in the payload).
      const send = spans.find((s) => s.name === 'send media.process')!;
      expect(send.kind).toBe(4); // PRODUCER
      expect(ancestors(send)).toContain(request);
      const run = spans.find((s) => s.name === 'process media.process')!;
      expect(run.kind).toBe(5); // CONSUMER
      expect(run.traceId).toBe(request.traceId);
      expect(run.parentSpanId).toBe(send.spanId);
      expect(run.attributes).toMatchObject({ 'messaging.system': 'pg-boss', 'messaging.operation.type': 'process', 'messaging.destination.name': 'media.process' });
      expect(run.attributes['messaging.message.id']).toBe(send.attributes['messaging.message.id']);
      // The webhook delivery the job caused (media.processed): a client span in the same trace, under the job's run.
      const delivery = spans.find((s) => s.attributes['memorybook.webhook.event_type'] === 'media.processed')!;
      expect(delivery.kind).toBe(3); // CLIENT
      expect(delivery.traceId).toBe(request.traceId);
      expect(ancestors(delivery)).toEqual(expect.arrayContaining([run, send, request]));
      expect(delivery.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200, 'server.address': '127.0.0.1' });
      // The submission's own creation: its request's trace holds its submission.created delivery.
      const createdDelivery = spans.find((s) => s.attributes['memorybook.webhook.event_type'] === 'submission.created')!;
      const createRequest = ancestors(createdDelivery).at(-1)!;
      expect(createRequest.attributes).toMatchObject({
        'http.route': '/api/v1/books/:slug/submissions/',
        'http.response.status_code': 201,
        'memorybook.request_id': String(created.headers['x-request-id']),
      });
      if (store === 's3') {
        // The job's store calls: S3 client spans under the run.
        const s3 = spans.filter((s) => s.attributes['rpc.service'] === 'S3' && ancestors(s).includes(run));
        expect(s3.map((s) => s.attributes['rpc.method'])).toContain('GetObject');
      }
      await hooks.close();
      await otlp.close();
    },
    120_000,
  );
});
