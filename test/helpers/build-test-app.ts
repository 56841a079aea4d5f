import type { FastifyInstance, InjectOptions } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Db } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from './test-db.js';
import { createQueue, queueSchemaName, type Queue } from '../../src/jobs/queue.js';
import { createJobHandlers } from '../../src/job-handlers.js';
import { createResponseValidator } from './openapi-validator.js';
import { createServices, type ServiceDeps, type Services } from '../../src/services/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import type { ObjectStore } from '../../src/storage/object-store.js';
import { onTestFinished } from 'vitest';
import { getCurrentTest } from 'vitest/suite';

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** An API key to send as the bearer credential. */
  token?: string;
  /** A browser session (cookies and CSRF) to send. */
  session?: SessionCredentials;
  body?: unknown;
  /** Raw payload instead of JSON `body`. */
  payload?: string | Buffer;
  /** Adds a fresh Idempotency-Key on unsafe methods unless one is given or this is false. */
  idempotencyKey?: string | false;
  query?: Record<string, string>;
}

export interface SessionCredentials {
  cookie: string;
  csrf: string;
  origin: string;
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  config: Config;
  database: TestDatabase;
  queue: Queue;
  /** The services the API and its worker run on (built here, so a wrapped store reaches both). */
  services: Services;
  request<T = any>(method: string, url: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  get<T = any>(url: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  post<T = any>(url: string, body?: unknown, opts?: RequestOptions): Promise<TestResponse<T>>;
  patch<T = any>(url: string, body?: unknown, opts?: RequestOptions): Promise<TestResponse<T>>;
  delete<T = any>(url: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  /** Closes everything the app opened; idempotent, and done on its own when the test or the file ends (see `buildTestApp`). */
  close(): Promise<void>;
}

export const TEST_SECRET = 'test-secret-key-0123456789-abcdefghijklmnop';

export function testConfig(overrides: Record<string, string> = {}): Config {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-test-'));
  // A run through a pooler (npm run test:pgbouncer) reaches it with the run's DATABASE_POOLER.
  const pooler = process.env.DATABASE_POOLER ? { DATABASE_POOLER: process.env.DATABASE_POOLER } : {};
  return loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir, PUBLIC_URL: 'http://localhost:8000', ...pooler, ...overrides });
}

/**
 * Apps built outside a test (in `beforeAll`) and not yet closed. per-file-setup.ts
 * closes them after the file's own hooks; it finds them on globalThis, so the
 * files that never build an app do not import this module.
 */
const OPEN_APPS = Symbol.for('memorybook.test.openApps');
const openApps: Set<TestApp> = ((globalThis as Record<symbol, unknown>)[OPEN_APPS] as Set<TestApp> | undefined) ?? new Set();
(globalThis as Record<symbol, unknown>)[OPEN_APPS] = openApps;

/** The served document and its compiled validator, once per worker (every app serves the same document). */
let validatorCache: ReturnType<typeof createResponseValidator> | undefined;

/**
 * The real app on a fresh migrated schema (PGlite, or PostgreSQL when
 * TEST_DATABASE_URL is set), its job queue in `<schema>_pgboss`. Every
 * response is checked against the served OpenAPI document and for
 * X-Request-Id; a mismatch fails the test.
 *
 * It cleans up after itself: built inside a test (or its `beforeEach`), it is
 * closed when that test finishes; built in `beforeAll`, when the file ends.
 * An explicit `close()` earlier is fine (closing twice is a no-op).
 */
export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    worker?: boolean;
    /** Wraps the configured object store, for a test that makes it fail on purpose; the API and the worker both use the wrapper. */
    wrapStore?: (real: ObjectStore) => ObjectStore;
    /** Outbound webhooks' resolver and dispatcher options (ServiceDeps.webhooks). */
    webhooks?: ServiceDeps['webhooks'];
  } = {},
): Promise<TestApp> {
  const config = testConfig(options.env);
  const database = await createTestDatabase();
  const store = options.wrapStore ? options.wrapStore(createObjectStore(config)) : createObjectStore(config);
  // The real job queue in the test's own schema; handlers run only when the test asks for a worker
  // (schedules never: a test runs the scheduled job it is about).
  const queue = createQueue({ db: database.db, config, schema: queueSchemaName(database.schema), pollIntervalMs: 200 });
  const services = createServices({ config, db: database.db, queue, store, webhooks: options.webhooks });
  await queue.start();
  if (options.worker) queue.work(createJobHandlers({ services, config, db: database.db }));
  const app = await buildApp({ config, db: database.db, queue, services }, { logger: process.env.TEST_LOG_LEVEL ? { level: process.env.TEST_LOG_LEVEL } : false });
  await app.ready();
  const validate = (validatorCache ??= createResponseValidator((await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()));

  async function request<T>(method: string, url: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.session) {
      headers.cookie = [headers.cookie, opts.session.cookie].filter(Boolean).join('; ');
      if (!('x-csrftoken' in headers)) headers['x-csrftoken'] = opts.session.csrf;
      if (!('referer' in headers)) headers.referer = `${opts.session.origin}/settings/tokens/`;
    }
    const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
    if (unsafe && opts.idempotencyKey !== false && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) {
      headers['idempotency-key'] = opts.idempotencyKey ?? crypto.randomUUID();
    }
    const inject: InjectOptions = { method: method as InjectOptions['method'], url, headers, query: opts.query };
    if (opts.payload !== undefined) inject.payload = opts.payload;
    else if (opts.body !== undefined) {
      inject.payload = JSON.stringify(opts.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const res = await app.inject(inject);
    const problems = validate(method, url, res.statusCode, res.headers['content-type'] as string | undefined, res.body, res.headers);
    if (!res.headers['x-request-id']) problems.push('no X-Request-Id header');
    const ct = String(res.headers['content-type'] ?? '');
    let body: any = res.body;
    if (ct.includes('json') && res.body) {
      body = JSON.parse(res.body);
      if (res.statusCode >= 400 && body && 'request_id' in body && body.request_id !== res.headers['x-request-id'] && !res.headers['idempotent-replayed']) {
        problems.push(`request_id ${body.request_id} differs from X-Request-Id ${res.headers['x-request-id']}`);
      }
    }
    if (problems.length) {
      throw new Error(`Response does not match the OpenAPI document: ${method} ${url} → ${res.statusCode}\n  ${problems.join('\n  ')}\n  body: ${res.body.slice(0, 500)}`);
    }
    return { status: res.statusCode, headers: res.headers as TestResponse['headers'], body, text: res.body };
  }

  let closing: Promise<void> | undefined;
  const t: TestApp = {
    app,
    db: database.db,
    config,
    database,
    queue,
    services,
    request,
    get: (url, opts) => request('GET', url, opts),
    post: (url, body, opts) => request('POST', url, { ...opts, body: body ?? opts?.body }),
    patch: (url, body, opts) => request('PATCH', url, { ...opts, body: body ?? opts?.body }),
    delete: (url, opts) => request('DELETE', url, opts),
    close() {
      openApps.delete(t);
      return (closing ??= (async () => {
        await app.close();
        await services.webhookDispatcher.stop();
        await queue.stop({ timeoutMs: 5000 });
        await database.drop();
        await store.close();
        rmSync(config.dataDir, { recursive: true, force: true });
      })());
    },
  };
  // t.close, not the close above: a helper may wrap it (media-setup.ts closes its S3 server too); skipped once closed.
  if (getCurrentTest()) onTestFinished(() => (closing ? undefined : t.close()));
  else openApps.add(t);
  return t;
}
