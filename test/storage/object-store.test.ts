import { CreateMultipartUploadCommand, AbortMultipartUploadCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { readdir } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createObjectStore } from '../../src/storage/index.js';
import { createS3ObjectStore } from '../../src/storage/s3-store.js';
import { SigningError } from '../../src/storage/object-store.js';
import { buildTestApp, TEST_SECRET } from '../helpers/build-test-app.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { objectStoreContract } from './object-store-contract.js';

/** Every file under `dir`, relative, recursively (a missing dir is empty). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

// The local driver, its signed URLs served by the real app listening on a loopback port.
objectStoreContract('local disk', async () => {
  const t = await buildTestApp();
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const config: Config = { ...t.config, http: { ...t.config.http, publicUrl: address } };
  const store = createObjectStore(config);
  expect(store.kind).toBe('local');
  const objects = path.join(t.config.dataDir, 'objects');
  return {
    store,
    leftovers: () => filesUnder(path.join(objects, '.staging')),
    async close() {
      await store.close();
      await t.close();
    },
  };
});

// The S3 driver against a real S3 API (s3rver; see test/helpers/s3-server.ts for what is added in front of it).
objectStoreContract('S3 (s3rver)', async () => {
  const s3 = await startS3Server();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-s3-test-'));
  const config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: dataDir, ...s3.env });
  const store = createObjectStore(config);
  expect(store.kind).toBe('s3');
  const client = s3Client(s3);
  return {
    store,
    async leftovers() {
      const out = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
      return (out.Uploads ?? []).map((u) => `pending multipart upload ${u.UploadId} of ${u.Key}`);
    },
    async close() {
      client.destroy();
      await store.close();
      await s3.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

function s3Client(s3: TestS3Server) {
  return new S3Client({
    region: s3.env.S3_REGION,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.env.S3_ACCESS_KEY_ID, secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY },
  });
}

describe('S3 driver specifics', () => {
  let s3: TestS3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('the test server lists and aborts pending multipart uploads (so the contract’s leftover check is not vacuous)', async () => {
    const client = s3Client(s3);
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: 'pending/x' }));
    const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
    expect(listed.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual([['pending/x', UploadId]]);
    await client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: 'pending/x', UploadId }));
    expect((await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }))).Uploads ?? []).toEqual([]);
    client.destroy();
  });

  it('a URL that cannot be signed (the credentials provider fails) is a SigningError', async () => {
    const config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: tmpdir(), ...s3.env });
    const store = createS3ObjectStore({
      ...config.storage.s3!,
      credentials: async () => {
        throw new Error('the instance role is gone');
      },
    });
    const err = await store.signedUrl('media/x/original', { ttlSeconds: 900 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SigningError);
    expect((err as SigningError).cause).toMatchObject({ message: 'the instance role is gone' });
    await store.close();
  });

  it('presigns media URLs with X-Amz-Expires=900 for the bucket, path style', async () => {
    const config = loadConfig({ NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: tmpdir(), ...s3.env });
    const store = createObjectStore(config);
    await store.put('media/b/m/original', Readable.from([Buffer.from('x')]), { contentType: 'image/jpeg' });
    const { url } = await store.signedUrl('media/b/m/original', { ttlSeconds: 900 });
    const u = new URL(url);
    expect(u.origin + u.pathname).toBe(`${s3.endpoint}/${s3.bucket}/media/b/m/original`);
    expect(u.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(u.searchParams.get('X-Amz-Expires')).toBe('900');
    await store.close();
  });
});
