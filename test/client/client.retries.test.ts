/**
 * The client's retries against the real service: a dropped connection is
 * retried with the same Idempotency-Key and creates one row, 429 waits out
 * Retry-After, 5xx backs off, a 4xx that needs fixing is never sent twice.
 * The rate limit here is 2 creates per 2 s, so a 429 comes quickly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { freePort } from '../helpers/spawn-server.js';
import {
  backoffMs,
  createMemorybookClient,
  ExportFailedError,
  MemorybookApiError,
  MemorybookConnectionError,
  MemorybookError,
  ok,
  retryDelayMs,
  WaitTimeoutError,
  type MemorybookClient,
} from '../../packages/client/src/index.js';
import { newUser, type TestUser } from '../helpers/factories.js';
import { serveTestApp, startCuttingProxy, type CuttingProxy, type ServedApp } from './client-setup.js';

let t: ServedApp;
let proxy: CuttingProxy;
beforeAll(async () => {
  t = await serveTestApp({ env: { SUBMISSION_RATE_LIMIT: '2', SUBMISSION_RATE_WINDOW_SECONDS: '2' } });
  proxy = await startCuttingProxy(t.url);
});
afterAll(async () => {
  await proxy.close();
  await t.close();
});

/** A user with a book whose plan allows API submissions, and a client of it. */
async function ownerWithBook(): Promise<{ owner: TestUser; slug: string; mb: MemorybookClient }> {
  const owner = await newUser(t);
  await t.services.quotas.grantSlots(owner.user.id, 'plus', 1);
  const mb = t.client(owner.token);
  const book = ok(await mb.POST('/api/v1/books/', { body: { title: `Retries ${owner.user.id.slice(-6)}`, plan: 'plus' } }));
  return { owner, slug: book.slug, mb };
}

const attemptsTo = (path: string) => t.attempts.filter((a) => a.path === path);

describe('memorybook-client retries', () => {
  it('retries a write whose response was cut off with the same Idempotency-Key: one row, the first answer replayed', async () => {
    const { owner, slug } = await ownerWithBook();
    const mb = t.client(owner.token, { baseUrl: proxy.url, retry: { baseDelayMs: 200 } });
    const path = `/api/v1/books/${slug}/submissions/`;
    proxy.cutResponseTo(new RegExp(`^POST ${path} `));

    const created = await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: 'Sent once, heard never' } });
    const s = ok(created);
    expect(proxy.cuts).toBe(1);
    const attempts = attemptsTo(path).filter((a) => a.method === 'POST');
    expect(attempts.map((a) => a.status)).toEqual(['network', 201]);
    expect(attempts[0].idempotencyKey).toBeTruthy();
    expect(attempts[1].idempotencyKey).toBe(attempts[0].idempotencyKey);
    // The first attempt did create the row; the retry was answered from it.
    expect(created.response.headers.get('idempotent-replayed')).toBe('true');

    const all = [];
    for await (const row of mb.items('/api/v1/books/{slug}/submissions/', { path: { slug } })) all.push(row);
    expect(all.map((r) => r.id)).toEqual([s.id]);
  });

  it('retries a GET after a dropped connection', async () => {
    const { owner, slug } = await ownerWithBook();
    const mb = t.client(owner.token, { baseUrl: proxy.url, retry: { baseDelayMs: 100 } });
    proxy.cutResponseTo(new RegExp(`^GET /api/v1/books/${slug}/ `));
    const book = ok(await mb.GET('/api/v1/books/{slug}/', { params: { path: { slug } } }));
    expect(book.slug).toBe(slug);
    expect(attemptsTo(`/api/v1/books/${slug}/`).map((a) => a.status)).toEqual(['network', 200]);
  });

  it('waits out Retry-After on 429, then succeeds with the same key', async () => {
    const { slug, mb } = await ownerWithBook();
    const path = `/api/v1/books/${slug}/submissions/`;
    const create = (text: string) => mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: text } }).then(ok);
    await create('one');
    await create('two');
    const started = Date.now();
    await create('three');
    const elapsed = Date.now() - started;

    const third = attemptsTo(path).filter((a) => a.method === 'POST').slice(2);
    expect(third.map((a) => a.status)).toEqual([429, 201]);
    expect(third[1].idempotencyKey).toBe(third[0].idempotencyKey);
    expect(elapsed).toBeGreaterThanOrEqual(1000); // Retry-After is whole seconds, at least 1
  });

  it('hands back a 429 whose Retry-After is longer than it is willing to wait', async () => {
    const { owner, slug, mb } = await ownerWithBook();
    const create = (client: MemorybookClient, text: string) => client.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: text } });
    await create(mb, 'one').then(ok);
    await create(mb, 'two').then(ok);
    const impatient = t.client(owner.token, { retry: { maxRetryAfterMs: 500 } });
    const before = t.attempts.length;
    const limited = await create(impatient, 'three').then(ok).catch((e: unknown) => e);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((limited as MemorybookApiError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(t.attempts.length - before).toBe(1);
  });

  it('never retries a 4xx that needs fixing', async () => {
    const { slug, mb } = await ownerWithBook();
    const before = t.attempts.length;
    const cases = [
      () => mb.GET('/api/v1/books/{slug}/', { params: { path: { slug: 'missing-book' } } }),
      () => mb.GET('/api/v1/books/{slug}/submissions/', { params: { path: { slug }, query: { limit: 0 } } }),
      () => mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text: 'wrong field' } as never }),
      () => mb.PATCH('/api/v1/books/{slug}/', { params: { path: { slug }, header: { 'If-Match': '"1999-01-01T00:00:00.000000Z"' } }, body: { title: 'x' } }),
      () => t.client('svc_live_not_a_real_key_000000000000000000').GET('/api/v1/books/'),
    ];
    const statuses = [];
    for (const c of cases) statuses.push((await c()).response.status);
    expect(statuses).toEqual([404, 400, 422, 412, 401]);
    expect(t.attempts.length - before).toBe(cases.length);
  });

  it('retries a 5xx with backoff and the same key; the request runs once', async () => {
    const { owner, slug } = await ownerWithBook();
    let failures = 1;
    // A gateway in front answers 503 once, as a load balancer does while the service restarts.
    const flaky = t.client(owner.token, {
      retry: { baseDelayMs: 50 },
      fetch: async (input: Request, init?: RequestInit) => {
        if (failures-- <= 0) return t.fetch(input, init);
        const request = new Request(input, init);
        t.attempts.push({ method: request.method, path: new URL(request.url).pathname, idempotencyKey: request.headers.get('idempotency-key'), status: 503 });
        return new Response('<html>503 Service Unavailable</html>', { status: 503, headers: { 'content-type': 'text/html' } });
      },
    });
    const s = ok(await flaky.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: 'after a restart' } }));
    const posts = attemptsTo(`/api/v1/books/${slug}/submissions/`).filter((a) => a.method === 'POST');
    expect(posts.map((a) => a.status)).toEqual([503, 201]);
    expect(posts[1].idempotencyKey).toBe(posts[0].idempotencyKey);
    expect(s.text_content).toBe('after a restart');
  });
});

describe('memorybook-client failures', () => {
  it('answers a refused connection, after a few quick retries, as a MemorybookConnectionError within 3 s (default options)', async () => {
    const port = await freePort(); // nothing listens there
    const mb = createMemorybookClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'svc_live_example' });
    const started = Date.now();
    const err = await mb.GET('/api/v1/books/').catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(MemorybookError);
    expect(err).toBeInstanceOf(MemorybookConnectionError);
    expect(err).toMatchObject({ code: 'connection_refused', status: null, attempts: 4, method: 'GET', url: `http://127.0.0.1:${port}/api/v1/books/` });
    expect((err as Error).message).toMatch(/refused/);
    expect(elapsed).toBeLessThan(3000);
    expect(elapsed).toBeGreaterThanOrEqual(1500); // 0.25 + 0.5 + 1 s of retries
    // A write too: the same key on every attempt, and the same error.
    const write = await mb.POST('/api/v1/books/', { body: { title: 'x' } }).catch((e: unknown) => e);
    expect(MemorybookError.is(write, 'connection_refused')).toBe(true);
  });

  it('gives every failure one base class, and prints an API error in a few lines without its Response', async () => {
    const owner = await newUser(t);
    const err = await t.client(owner.token).GET('/api/v1/books/{slug}/', { params: { path: { slug: 'no-such-book' } } }).then(ok).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemorybookApiError);
    expect(err).toBeInstanceOf(MemorybookError);
    for (const other of [new ExportFailedError({ id: 'j', status: 'failed' }), new WaitTimeoutError('slow')]) expect(other).toBeInstanceOf(MemorybookError);
    const api = err as MemorybookApiError;
    expect(api.response.status).toBe(404);
    expect(Object.keys(api)).not.toContain('response');
    const printed = inspect(api);
    expect(printed).toContain('not_found');
    expect(printed).toContain(api.requestId!);
    expect(printed).not.toMatch(/Response|Headers|bodyUsed/);
    expect(printed.split('\n').length).toBeLessThan(20);
  });
});

describe('memorybook-client retry policy', () => {
  const answer = (status: number, retryAfter?: string) => ({ status, headers: new Headers(retryAfter ? { 'retry-after': retryAfter } : {}) });
  const noJitter = { jitter: 0 };

  it('backs off 1, 2, 4, 8 s on a 502 (the artifact advice), capped at 60 s, then gives up', () => {
    expect([0, 1, 2, 3].map((n) => retryDelayMs(answer(502), n, noJitter))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(answer(502), 4, noJitter)).toBeNull();
    expect(retryDelayMs(answer(503), 9, { ...noJitter, retries: 20 })).toBe(60_000);
    for (let i = 0; i < 50; i++) {
      const wait = backoffMs(2);
      expect(wait).toBeGreaterThanOrEqual(4000);
      expect(wait).toBeLessThanOrEqual(4400); // jitter adds up to 10 %
    }
  });

  it('takes Retry-After as the minimum wait, in seconds or as an HTTP-date, and does not wait out a long one', () => {
    expect(retryDelayMs(answer(429, '3'), 0, noJitter)).toBe(3000);
    expect(retryDelayMs(answer(429, '1'), 2, noJitter)).toBe(4000);
    const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
    expect(retryDelayMs(answer(503, inFiveSeconds), 0, noJitter)).toBeGreaterThanOrEqual(4000);
    expect(retryDelayMs(answer(429, '86400'), 0, noJitter)).toBeNull();
    expect(retryDelayMs(answer(409, '1'), 0, noJitter)).toBe(1000); // idempotency_key_in_use
    expect(retryDelayMs(answer(408), 0, noJitter)).toBe(1000);
  });

  it('does not retry what needs fixing', () => {
    for (const status of [400, 401, 402, 403, 404, 405, 409, 410, 412, 413, 415, 422, 423, 428]) expect(retryDelayMs(answer(status), 0)).toBeNull();
    expect(MemorybookError.is(new Error('x'))).toBe(false);
  });
});
