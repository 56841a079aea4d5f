/**
 * What the export tests share: the real app on either store (local disk, or
 * a real S3-compatible server), its real job queue and worker, and a store
 * a test can make fail on purpose (signing, lookups, writes of export files)
 * to see the answers the contract gives then. It is buildTestApp's harness
 * with one difference: the API and the worker share services built on that
 * store. Every response is still checked against the served document.
 */
import type { InjectOptions } from 'fastify';
import { rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { buildApp } from '../../../src/app.js';
import { createQueue, queueSchemaName } from '../../../src/jobs/queue.js';
import { jobs } from '../../../src/jobs/registry.js';
import { createServices, type Services } from '../../../src/services/index.js';
import { createObjectStore } from '../../../src/storage/index.js';
import { SigningError, type ObjectStore } from '../../../src/storage/object-store.js';
import { testConfig, type RequestOptions, type TestApp, type TestResponse } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newBook, newSubmission, type TestUser } from '../../helpers/factories.js';
import { createResponseValidator } from '../../helpers/openapi-validator.js';
import { startS3Server, type TestS3Server } from '../../helpers/s3-server.js';
import { createTestDatabase } from '../../helpers/test-db.js';

export type StoreKind = 'local' | 's3';
export const STORES: StoreKind[] = ['local', 's3'];

/** Failures a test switches on; each applies to the API and the worker alike. */
export interface Faults {
  /** signedUrl throws SigningError. */
  sign?: boolean;
  /** head rejects as if the store could not be reached. */
  head?: boolean;
  /** put of a key under exports/ rejects. */
  putExports?: boolean;
  /** The next this many puts under exports/ reject (then they work again). */
  failExportPuts?: number;
  /** Puts under exports/ wait for this before they start (a render held mid-way). */
  holdExports?: Promise<void>;
}

export interface ExportTestApp extends TestApp {
  kind: StoreKind;
  faults: Faults;
  /** The services the API and the worker run on. */
  services: Services;
  /** Every object key in the store. */
  storedKeys(): Promise<string[]>;
}

function faulty(real: ObjectStore, faults: Faults): ObjectStore {
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'signedUrl' && faults.sign) return async () => Promise.reject(new SigningError('test: signing switched off'));
      if (prop === 'head' && faults.head) return async () => Promise.reject(Object.assign(new Error('test: store unreachable'), { code: 'ECONNREFUSED' }));
      if (prop === 'put') {
        return async (key: string, body: NodeJS.ReadableStream & { destroy?(): void }, o: unknown) => {
          if (key.startsWith('exports/')) {
            if (faults.holdExports) await faults.holdExports;
            if (faults.putExports || (faults.failExportPuts ?? 0) > 0) {
              if (faults.failExportPuts) faults.failExportPuts--;
              body.destroy?.();
              throw Object.assign(new Error('test: store refused the write'), { code: 'ECONNRESET' });
            }
          }
          return target.put(key, body as never, o as never);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

let validatorCache: ReturnType<typeof createResponseValidator> | undefined;

export async function buildExportApp(kind: StoreKind, o: { worker?: boolean; env?: Record<string, string> } = {}): Promise<ExportTestApp> {
  let s3: TestS3Server | undefined;
  if (kind === 's3') s3 = await startS3Server();
  const config = testConfig({ ...(s3?.env ?? {}), ...(o.env ?? {}) });
  const database = await createTestDatabase();
  const faults: Faults = {};
  const store = faulty(createObjectStore(config), faults);
  let services: Services | undefined;
  const queue = createQueue({ db: database.db, config, jobs, schema: queueSchemaName(database.schema), pollIntervalMs: 200, services: () => services! });
  services = createServices({ config, db: database.db, queue, store });
  await queue.start();
  if (o.worker ?? true) queue.work();
  const app = await buildApp({ config, db: database.db, queue, services }, { logger: process.env.TEST_LOG_LEVEL ? { level: process.env.TEST_LOG_LEVEL } : false });
  await app.ready();
  const validate = (validatorCache ??= createResponseValidator((await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()));
  const client = s3
    ? new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
    : null;

  async function request<T>(method: string, url: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
    if (unsafe && opts.idempotencyKey !== false && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) {
      headers['idempotency-key'] = opts.idempotencyKey ?? crypto.randomUUID();
    }
    const inject: InjectOptions = { method: method as InjectOptions['method'], url, headers, query: opts.query };
    if (opts.payload !== undefined) inject.payload = opts.payload;
    else if (opts.body !== undefined) {
      inject.payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject(inject);
    const problems = validate(method, url, res.statusCode, res.headers['content-type'] as string | undefined, res.body, res.headers);
    if (!res.headers['x-request-id']) problems.push('no X-Request-Id header');
    let body: any = res.body;
    if (String(res.headers['content-type'] ?? '').includes('json') && res.body) body = JSON.parse(res.body);
    if (problems.length) throw new Error(`Response does not match the OpenAPI document: ${method} ${url} → ${res.statusCode}\n  ${problems.join('\n  ')}\n  body: ${res.body.slice(0, 500)}`);
    return { status: res.statusCode, headers: res.headers as TestResponse['headers'], body, text: res.body };
  }

  return {
    kind,
    faults,
    services,
    app,
    db: database.db,
    config,
    database,
    queue,
    request,
    get: (url, opts) => request('GET', url, opts),
    post: (url, body, opts) => request('POST', url, { ...opts, body: body ?? opts?.body }),
    patch: (url, body, opts) => request('PATCH', url, { ...opts, body: body ?? opts?.body }),
    delete: (url, opts) => request('DELETE', url, opts),
    async storedKeys() {
      if (client && s3) {
        const out = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
        return (out.Contents ?? []).map((c) => c.Key!).sort();
      }
      const root = path.join(config.dataDir, 'objects');
      const all = (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) as import('node:fs').Dirent[];
      return all
        .filter((d) => d.isFile())
        .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
        .filter((k) => !k.startsWith('.'))
        .sort();
    },
    async close() {
      await app.close();
      await queue.stop({ timeoutMs: 5000 });
      await database.drop();
      await store.close();
      client?.destroy();
      await s3?.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export const exportsPath = (slug: string) => `/api/v1/books/${slug}/exports/`;

/** Polls the job until it is complete or failed. */
export function settled(t: TestApp, user: Pick<TestUser, 'token'>, slug: string, id: string, timeoutMs = 90_000) {
  return eventually(
    () => t.get(`${exportsPath(slug)}${id}/`, { token: user.token }),
    (r) => r.status === 200 && (r.body.status === 'complete' || r.body.status === 'failed'),
    timeoutMs,
  );
}

/** Fetches a signed URL as a browser would: through the app for the local store, over the network for S3. */
export async function fetchSigned(t: TestApp, url: string) {
  if (url.startsWith(t.config.http.publicUrl)) {
    const res = await t.app.inject({ method: 'GET', url: url.slice(t.config.http.publicUrl.length) });
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload };
  }
  const res = await fetch(url);
  return { status: res.status, headers: Object.fromEntries(res.headers) as Record<string, string>, body: Buffer.from(await res.arrayBuffer()) };
}

/** An approved (optionally pinned) memory, written and moderated through the services as the API would. */
export async function approvedMemory(t: ExportTestApp, owner: TestUser, slug: string, o: { text?: string; name?: string; pin?: boolean } = {}) {
  const s = await newSubmission(t, slug, owner, { text: o.text, name: o.name });
  const approve = await t.post(`/api/v1/books/${slug}/submissions/${s.id}/approve/`, undefined, { token: owner.token });
  if (approve.status !== 200) throw new Error(`approve failed: ${approve.status} ${approve.text}`);
  if (o.pin) {
    const pin = await t.post(`/api/v1/books/${slug}/submissions/${s.id}/pin/`, undefined, { token: owner.token });
    if (pin.status !== 200) throw new Error(`pin failed: ${pin.status} ${pin.text}`);
  }
  return s;
}

/** A book on a plan (premium has every export format). */
export async function exportBook(t: ExportTestApp, owner: TestUser, o: { plan?: string; title?: string } = {}) {
  return newBook(t, owner, { plan: o.plan ?? 'premium', title: o.title });
}

/** Lets the jobs waiting for a retry run now instead of after their backoff. */
export async function hurryRetries(t: TestApp, name: string) {
  await t.db.query(`UPDATE ${t.queue.schema}.job SET start_after = now() WHERE name = $1 AND state = 'retry'`, [name]);
}
