/**
 * What the media tests share: an app on either store (local disk, or a real
 * S3-compatible server started for the file), uploads as a client makes
 * them, and a look into the store itself.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import type { TestUser } from '../../helpers/factories.js';
import { fileUpload, multipart, type Part } from '../../helpers/multipart.js';
import { startS3Server, type TestS3Server } from '../../helpers/s3-server.js';
import type { ObjectStore } from '../../../src/storage/object-store.js';

export type StoreKind = 'local' | 's3';
export const STORES: StoreKind[] = ['local', 's3'];

export interface MediaTestApp extends TestApp {
  store: StoreKind;
  /** Every object key in the store (the local store's staging and sidecar folders are not objects). */
  storedKeys(): Promise<string[]>;
}

export async function buildMediaApp(
  store: StoreKind,
  o: { worker?: boolean; env?: Record<string, string>; wrapStore?: (real: ObjectStore) => ObjectStore } = {},
): Promise<MediaTestApp> {
  let s3: TestS3Server | undefined;
  if (store === 's3') s3 = await startS3Server();
  const t = await buildTestApp({ worker: o.worker ?? true, env: { ...(s3?.env ?? {}), ...(o.env ?? {}) }, wrapStore: o.wrapStore });
  const close = t.close;
  const client = s3
    ? new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
    : null;
  return Object.assign(t, {
    store,
    async storedKeys() {
      if (client && s3) {
        const out = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
        return (out.Contents ?? []).map((c) => c.Key!).sort();
      }
      const root = path.join(t.config.dataDir, 'objects');
      const all = (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) as import('node:fs').Dirent[];
      return all
        .filter((d) => d.isFile())
        .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
        .filter((k) => !k.startsWith('.'))
        .sort();
    },
    async close() {
      await close();
      client?.destroy();
      await s3?.close();
    },
  });
}

export const mediaPath = (slug: string, submissionId: string) => `/api/v1/books/${slug}/submissions/${submissionId}/media/`;

/** POST …/media/ with one `file` part, as a client sends it. */
export function upload(
  t: TestApp,
  user: Pick<TestUser, 'token'>,
  slug: string,
  submissionId: string,
  data: Buffer,
  o: { filename?: string; contentType?: string; key?: string; parts?: Part[] } = {},
) {
  const body = o.parts ? multipart(o.parts) : fileUpload(data, { filename: o.filename ?? 'upload.bin', contentType: o.contentType });
  return t.request('POST', mediaPath(slug, submissionId), {
    token: user.token,
    payload: body.payload,
    headers: { 'content-type': body.contentType, ...(o.key ? { 'idempotency-key': o.key } : {}) },
  });
}

/** Waits for background processing to finish (complete or failed) and answers the media read. */
export function processed(t: TestApp, user: Pick<TestUser, 'token'>, location: string) {
  return eventually(
    () => t.get(location, { token: user.token }),
    (r) => r.status === 200 && (r.body.processing_status === 'complete' || r.body.processing_status === 'failed'),
    60_000,
  );
}

/** Fetches a signed URL the way a browser would: through the app for the local store, over the network for S3. */
export async function fetchSigned(t: TestApp, url: string, headers: Record<string, string> = {}) {
  const local = url.startsWith(t.config.http.publicUrl);
  if (local) {
    const res = await t.app.inject({ method: 'GET', url: url.slice(t.config.http.publicUrl.length), headers });
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload };
  }
  const res = await fetch(url, { headers });
  return { status: res.status, headers: Object.fromEntries(res.headers) as Record<string, string>, body: Buffer.from(await res.arrayBuffer()) };
}

/** The counters storage quotas and billing read. */
export async function storageUsed(t: TestApp, slug: string): Promise<number> {
  const [row] = await t.db.query<{ storage_used_bytes: number }>(`SELECT storage_used_bytes FROM books WHERE slug = $1`, [slug]);
  return Number(row.storage_used_bytes);
}
