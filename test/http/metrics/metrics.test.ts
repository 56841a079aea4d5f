import { Type } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startMetricsListener } from '../../../src/http/plugins/metrics.js';
import { defineJob } from '../../../src/jobs/queue.js';
import { startWorker } from '../../../src/worker.js';
import { buildTestApp, testConfig, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-db.js';
import { RETRY_SCHEDULE_SECONDS } from '../../../src/services/webhook-endpoints/dispatcher.js';
import { startReceiver } from '../webhook-endpoints/receiver.js';
import { fakeClock, ownerWithEndpoint, webhookApp } from '../webhook-endpoints/webhook-setup.js';
import { deliver, inboundEnv, MAIL_DOMAIN, mailAddressOf, rawMessage, signBody, startReceiver as startMailReceiver } from '../../mail/inbound-email-helpers.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A scrape parsed by parse-prometheus-text-format (which fails on a malformed one), and its text. */
type Families = ReturnType<typeof parsePrometheusTextFormat> & { text: string };
const parse = (text: string): Families => Object.assign(parsePrometheusTextFormat(text), { text });

/**
 * The value of one series (a counter or gauge), or of a histogram's count; 0
 * when it is absent. The parser keeps no labels of a histogram's series, so
 * its `_count` line is read from the text.
 */
function value(families: Families, name: string, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === name);
  const matches = (l: Record<string, string> | undefined) => Object.entries(labels).every(([k, v]) => l?.[k] === v);
  if (family?.type === 'HISTOGRAM') {
    for (const line of families.text.split('\n')) {
      const m = new RegExp(`^${name}_count(?:\\{(.*)\\})? (\\S+)$`).exec(line);
      if (!m) continue;
      const l = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
      if (matches(l)) return Number(m[2]);
    }
    return 0;
  }
  const sample = family?.metrics.find((m) => matches(m.labels));
  return sample ? Number(sample.value) : 0;
}

async function scrapeApp(t: TestApp): Promise<Families> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(res.body);
}

describe('GET /metrics on the API port', () => {
  it('is not there without METRICS_TOKEN', async () => {
    const t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
    // With only METRICS_PORT, the API port still has no /metrics: it is never open there without a token.
    const portOnly = await buildTestApp({ env: { METRICS_PORT: '9464' } });
    expect((await portOnly.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('refuses a scrape without the token or with another one (401)', async () => {
    const t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.json()).toMatchObject({ code: 'unauthorized' });
      expect(res.body).not.toContain('memorybook_');
    }
  });

  it('answers a scrape that parses; requests count under their route template, method and status', async () => {
    const t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
    const u = await newUser(t);
    const book = await newBook(t, u);
    const before = await scrapeApp(t);
    const route = { method: 'GET', route: '/api/v1/books/:slug/', status_code: '200' };
    const missing = { method: 'GET', route: '/api/v1/books/:slug/', status_code: '404' };
    for (let i = 0; i < 3; i++) expect((await t.get(`/api/v1/books/${book.slug}/`, { token: u.token })).status).toBe(200);
    expect((await t.get(`/api/v1/books/no-such-book/`, { token: u.token })).status).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/no/such/path' })).statusCode).toBe(404);
    const after = await scrapeApp(t);

    expect(value(after, 'memorybook_http_requests_total', route) - value(before, 'memorybook_http_requests_total', route)).toBe(3);
    expect(value(after, 'memorybook_http_request_duration_seconds', route) - value(before, 'memorybook_http_request_duration_seconds', route)).toBe(3);
    expect(value(after, 'memorybook_http_requests_total', missing) - value(before, 'memorybook_http_requests_total', missing)).toBe(1);
    // Raw paths never become labels: an unrouted request counts as `unmatched`.
    const routes = after.find((f) => f.name === 'memorybook_http_requests_total')!.metrics.map((m) => m.labels!.route);
    expect(routes).not.toContain(`/api/v1/books/${book.slug}/`);
    expect(routes).not.toContain('/no/such/path');
    expect(routes).toContain('unmatched');
    const histogram = after.find((f) => f.name === 'memorybook_http_request_duration_seconds')!;
    expect(histogram.type).toBe('HISTOGRAM');
    expect(Object.keys(histogram.metrics[0].buckets!)).toContain('+Inf');
    expect(after.text).toMatch(/^memorybook_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/books\/:slug\/",status_code="200"\} \d+$/m);

    // The pool, and the queue read at scrape.
    const maxConnections = value(after, 'memorybook_db_pool_max_connections', {});
    expect(maxConnections).toBe(TEST_DATABASE_URL ? 8 : 1);
    expect(value(after, 'memorybook_db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(after.find((f) => f.name === 'memorybook_db_pool_waiting')?.metrics).toHaveLength(1);
    expect(after.find((f) => f.name === 'memorybook_process_resident_memory_bytes')).toBeDefined();
    // /metrics is outside the API: not in its document.
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).some((p) => p.includes('metrics'))).toBe(false);
  });

  it('shows each queue\'s depth and its oldest ready job\'s age, read from the queue at scrape', async () => {
    const t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
    const queueLabel = { queue: 'storage.delete-objects' };
    const before = await scrapeApp(t);
    expect(value(before, 'memorybook_job_queue_depth', queueLabel)).toBe(0);
    expect(before.find((f) => f.name === 'memorybook_job_queue_depth')!.metrics.length).toBeGreaterThan(10);
    // No worker runs in this app: the jobs wait.
    await t.queue.send('storage.delete-objects', { keys: ['a'] });
    await t.queue.send('storage.delete-objects', { keys: ['b'] });
    await new Promise((r) => setTimeout(r, 1100));
    const after = await scrapeApp(t);
    expect(value(after, 'memorybook_job_queue_depth', queueLabel)).toBe(2);
    expect(value(after, 'memorybook_job_queue_oldest_age_seconds', queueLabel)).toBeGreaterThanOrEqual(1);
  });
});

describe('METRICS_PORT: a listener of its own', () => {
  it('serves only /metrics, without a token, and the token when one is set', async () => {
    const t = await buildTestApp();
    const open = await startMetricsListener(testConfig({ METRICS_PORT: '0' }), { db: t.db, queue: t.queue });
    cleanups.push(() => open!.close());
    const res = await fetch(`${open!.address}/metrics`);
    expect(res.status).toBe(200);
    const families = parse(await res.text());
    expect(families.find((f) => f.name === 'memorybook_job_queue_depth')).toBeDefined();
    expect((await fetch(`${open!.address}/api/v1/books/`)).status).toBe(404);
    expect((await fetch(`${open!.address}/metrics`, { method: 'POST' })).status).toBe(405);

    const guarded = await startMetricsListener(testConfig({ METRICS_PORT: '0', METRICS_TOKEN: TOKEN }), { db: t.db, queue: t.queue });
    cleanups.push(() => guarded!.close());
    expect((await fetch(`${guarded!.address}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${guarded!.address}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    // Two listeners watch the one pool: it counts once.
    expect(value(parse(await scraped.text()), 'memorybook_db_pool_max_connections', {})).toBe(TEST_DATABASE_URL ? 8 : 1);
  });

  it('without METRICS_TOKEN listens on 127.0.0.1 whatever HOST the API has, and refuses a non-loopback METRICS_HOST at start', async () => {
    const t = await buildTestApp();
    const config = testConfig({ METRICS_PORT: '0', HOST: '0.0.0.0' });
    expect(config.metrics.host).toBe('127.0.0.1');
    const local = await startMetricsListener(config, { db: t.db, queue: t.queue });
    cleanups.push(() => local!.close());
    expect(local!.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${local!.address}/metrics`)).status).toBe(200);
    expect(() => testConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' })).toThrow(/METRICS_HOST: "0\.0\.0\.0" is not a loopback address; set METRICS_TOKEN/);
    expect(testConfig({ METRICS_PORT: '0', METRICS_HOST: '::1' }).metrics.host).toBe('::1');
    // With a token it follows HOST (or METRICS_HOST), as the token guards it.
    expect(testConfig({ METRICS_PORT: '0', HOST: '0.0.0.0', METRICS_TOKEN: TOKEN }).metrics.host).toBe('0.0.0.0');
    expect(testConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0', METRICS_TOKEN: TOKEN }).metrics.host).toBe('0.0.0.0');
  });

  it('is refused at start when it would share the API port', () => {
    expect(() => testConfig({ PORT: '8123', METRICS_PORT: '8123' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => testConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });

  it('`memorybook worker` alone serves its job metrics there: completions, failures and durations by queue', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const env: Record<string, string> = { METRICS_PORT: '0', HOST: '127.0.0.1' };
    if (TEST_DATABASE_URL) Object.assign(env, { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema!, DATABASE_POOL_SIZE: '3' });
    const ok = defineJob({ name: 'test.metrics-ok', payload: Type.Object({}), handle: async () => {} });
    const doomed = defineJob({ name: 'test.metrics-doomed', payload: Type.Object({}), options: { retryLimit: 0 }, handle: async () => Promise.reject(new Error('refused')) });
    const worker = await startWorker(testConfig(env), { log: pino({ level: 'silent' }), jobs: [ok, doomed], pollIntervalMs: 100, scheduleTickMs: 3_600_000, firstTickAfterMs: 3_600_000 });
    cleanups.push(() => worker.close({ timeoutMs: 5000 }));
    expect(worker.metricsAddress).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const scrape = async () => parse(await (await fetch(`${worker.metricsAddress}/metrics`)).text());

    const before = await scrape();
    const queue = worker.queue as unknown as { send(name: string, payload: object): Promise<string> };
    await queue.send('test.metrics-ok', {});
    await queue.send('test.metrics-ok', {});
    await queue.send('test.metrics-doomed', {});
    const delta = (f: Families, name: string, labels: Record<string, string>) => value(f, name, labels) - value(before, name, labels);
    let after = before;
    for (let i = 0; i < 100; i++) {
      after = await scrape();
      if (delta(after, 'memorybook_jobs_completed_total', { queue: 'test.metrics-ok' }) >= 2 && delta(after, 'memorybook_jobs_failed_total', { queue: 'test.metrics-doomed' }) >= 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(delta(after, 'memorybook_jobs_completed_total', { queue: 'test.metrics-ok' })).toBe(2);
    expect(delta(after, 'memorybook_jobs_failed_total', { queue: 'test.metrics-doomed', final: 'true' })).toBe(1);
    expect(delta(after, 'memorybook_job_duration_seconds', { queue: 'test.metrics-ok', outcome: 'completed' })).toBe(2);
    expect(delta(after, 'memorybook_job_duration_seconds', { queue: 'test.metrics-doomed', outcome: 'failed' })).toBe(1);
    expect(value(after, 'memorybook_job_queue_depth', { queue: 'test.metrics-ok' })).toBe(0);
  });
});

describe('deliveries out and messages in', () => {
  it('webhook delivery attempts count by outcome; inbound channel messages by provider and outcome', async () => {
    const clock = fakeClock();
    const t = await webhookApp({ now: clock.now, env: { METRICS_TOKEN: TOKEN } });
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    const { owner, slug } = await ownerWithEndpoint(t, receiver.url);
    const before = await scrapeApp(t);
    expect((await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'A memory' }, { token: owner.token })).status).toBe(201);
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    clock.advance(RETRY_SCHEDULE_SECONDS[0]);
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    await receiver.waitFor(2);
    // Status callbacks and the like: signed deliveries the service records and ignores.
    await t.services.inbound.ignore('twilio', `SM${randomUUID().replace(/-/g, '')}`, 'status');
    await t.services.inbound.ignore('telegram', null, 'update');
    const after = await scrapeApp(t);
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(delta('memorybook_webhook_delivery_attempts_total', { outcome: 'retry' })).toBe(1);
    expect(delta('memorybook_webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(delta('memorybook_inbound_messages_total', { provider: 'twilio', outcome: 'ignored_status' })).toBe(1);
    expect(delta('memorybook_inbound_messages_total', { provider: 'telegram', outcome: 'ignored_update' })).toBe(1);
  });

  it('inbound email counts there too, by what came of it: over SMTP and through the webhook', async () => {
    const t = await buildTestApp({ env: inboundEnv({ METRICS_TOKEN: TOKEN }) });
    const receiver = await startMailReceiver(t);
    cleanups.push(() => receiver.close());
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const before = await scrapeApp(t);
    expect((await deliver(receiver, { from: 'ann@family.test', to, subject: 'By SMTP', text: 'Over the wire.' })).response).toMatch(/^250 /);
    await deliver(receiver, { from: 'ann@family.test', to: `no-such-book-${randomUUID().slice(0, 6)}@${MAIL_DOMAIN}`, subject: 'Lost', text: 'To nobody.' }).catch(() => null);
    const raw = await rawMessage({ from: 'ann@family.test', to, subject: 'By webhook', text: 'Posted.', messageId: `<${randomUUID()}@family.test>` });
    const post = (signature: string) =>
      t.app.inject({ method: 'POST', url: '/webhooks/email/', headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signature }, payload: raw });
    expect((await post(signBody(raw))).statusCode).toBe(202);
    expect((await post(signBody(raw))).statusCode).toBe(202);
    expect((await post(signBody(raw, 'not-the-secret-0123456789abcdef'))).statusCode).toBe(403);
    const after = await scrapeApp(t);
    const delta = (outcome: string) => value(after, 'memorybook_inbound_messages_total', { provider: 'email', outcome }) - value(before, 'memorybook_inbound_messages_total', { provider: 'email', outcome });
    expect(delta('accepted')).toBe(2);
    expect(delta('duplicate')).toBe(1);
    expect(delta('refused_no_book')).toBe(1);
    expect(delta('refused_signature')).toBe(1);
  });
});
