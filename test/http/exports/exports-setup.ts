/**
 * What the export tests share: the real app on either store (local disk, or
 * a real S3-compatible server), its real job queue and worker, and a store
 * a test can make fail on purpose (signing, lookups, writes of export files)
 * to see the answers the contract gives then (buildTestApp's `wrapStore`
 * reaches the API and the worker alike). Every response is still checked
 * against the served document.
 */
import type { Services } from '../../../src/services/index.js';
import { SigningError, type ObjectStore } from '../../../src/storage/object-store.js';
import type { TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newBook, newSubmission, type TestUser } from '../../helpers/factories.js';
import { buildMediaApp, type MediaTestApp, type StoreKind } from '../media/media-setup.js';

export { STORES, type StoreKind } from '../media/media-setup.js';

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

export interface ExportTestApp extends MediaTestApp {
  kind: StoreKind;
  faults: Faults;
  /** The services the API and the worker run on. */
  services: Services;
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

/** The media harness (either store, a real worker) with a store the test can make fail. */
export async function buildExportApp(kind: StoreKind, o: { worker?: boolean; env?: Record<string, string> } = {}): Promise<ExportTestApp> {
  const faults: Faults = {};
  const t = await buildMediaApp(kind, { ...o, wrapStore: (real) => faulty(real, faults) });
  return Object.assign(t, { kind, faults });
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
