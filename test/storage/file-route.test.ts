import type { InjectOptions } from 'fastify';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalObjectStore, localStoreOptions, type LocalObjectStore } from '../../src/storage/local-store.js';
import { deriveFileSigningKey, signLocalUrl } from '../../src/storage/local-url-signer.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

/**
 * GET/HEAD /files/<key>: the local store's signed URLs served by the real
 * app. These paths are not in the OpenAPI document, so requests go through
 * `app.inject` directly rather than the validating helper.
 */
describe('GET /files/* (local store signed URLs)', () => {
  let t: TestApp;
  let store: LocalObjectStore;
  const body = Buffer.from('0123456789abcdefghij');
  const key = 'media/book-1/media-1/original';

  const pathAndQuery = (url: string) => {
    const u = new URL(url);
    return u.pathname + u.search;
  };
  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const signed = async (k = key, opts: { ttlSeconds?: number; downloadName?: string; contentType?: string; now?: Date } = {}) =>
    pathAndQuery((await store.signedUrl(k, { ttlSeconds: 900, ...opts })).url);

  beforeAll(async () => {
    t = await buildTestApp();
    store = createLocalObjectStore(localStoreOptions(t.config));
    await store.put(key, Readable.from([body]), { contentType: 'image/jpeg' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the file with its stored type, length, validators and private caching for the remaining lifetime', async () => {
    const url = await signed();
    expect(url.startsWith(`/files/${key}?X-Amz-Algorithm=MB-HMAC-SHA256&X-Amz-Credential=local%2F`)).toBe(true);
    expect(url).toMatch(/%2Flocal%2Ffiles%2Fmb_request&X-Amz-Date=\d{8}T\d{6}Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=[0-9a-f]{64}$/);
    const res = await inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(body)).toBe(true);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['content-length']).toBe(String(body.length));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['etag']).toBeTruthy();
    expect(res.headers['last-modified']).toBeTruthy();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['x-request-id']).toBeTruthy();
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThan(890);
    expect(maxAge).toBeLessThanOrEqual(900);
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await inject({ method: 'HEAD', url: await signed() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(body.length));
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.rawPayload.length).toBe(0);
  });

  it('serves single ranges with 206 and Content-Range', async () => {
    const url = await signed();
    for (const [range, expected, contentRange] of [
      ['bytes=2-5', '2345', 'bytes 2-5/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=18-100', 'ij', 'bytes 18-19/20'],
    ]) {
      const res = await inject({ method: 'GET', url, headers: { range } });
      expect(res.statusCode, range).toBe(206);
      expect(res.body, range).toBe(expected);
      expect(res.headers['content-range'], range).toBe(contentRange);
      expect(res.headers['content-length'], range).toBe(String(expected.length));
    }
    const head = await inject({ method: 'HEAD', url, headers: { range: 'bytes=0-3' } });
    expect([head.statusCode, head.headers['content-length'], head.headers['content-range']]).toEqual([206, '4', 'bytes 0-3/20']);
  });

  it('answers an unsatisfiable range 416 with Content-Range and the error envelope; several ranges get the whole file', async () => {
    const url = await signed();
    const res = await inject({ method: 'GET', url, headers: { range: 'bytes=20-30' } });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */20');
    expect(res.json()).toMatchObject({ code: 'range_not_satisfiable', details: { size_bytes: 20 }, request_id: res.headers['x-request-id'] });
    const multi = await inject({ method: 'GET', url, headers: { range: 'bytes=0-1,5-6' } });
    expect(multi.statusCode).toBe(200);
    expect(multi.rawPayload.equals(body)).toBe(true);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const url = await signed();
    const first = await inject({ method: 'GET', url });
    const again = await inject({ method: 'GET', url, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('sends the signed Content-Disposition and content type', async () => {
    const res = await inject({ method: 'GET', url: await signed(key, { downloadName: 'Grandma’s 90th.jpg', contentType: 'application/octet-stream' }) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="Grandma_s 90th.jpg"; filename*=UTF-8''Grandma%E2%80%99s%2090th.jpg`);
    expect(res.headers['content-type']).toBe('application/octet-stream');
  });

  describe('refusals', () => {
    const forbidden = async (url: string, reason: string) => {
      const res = await inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json(), url).toMatchObject({ code: 'forbidden', details: { reason }, request_id: res.headers['x-request-id'] });
      expect(res.json().message).toBeTruthy();
      return res;
    };

    it('refuses a tampered signature, another key or altered parameters (403 mismatch)', async () => {
      const url = await signed();
      const sig = /X-Amz-Signature=([0-9a-f]+)/.exec(url)![1];
      await forbidden(url.replace(sig, sig.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))), 'mismatch');
      await forbidden(url.replace('X-Amz-Expires=900', 'X-Amz-Expires=901'), 'mismatch');
      await forbidden(url.replace('media-1', 'media-2'), 'mismatch');
      await forbidden(`${url}&response-content-type=text%2Fhtml`, 'mismatch');
    });

    it('refuses a missing, duplicated or unknown signing parameter (403 malformed)', async () => {
      const url = await signed();
      await forbidden(`/files/${key}`, 'malformed');
      await forbidden(url.replace(/&X-Amz-Signature=[0-9a-f]+/, ''), 'malformed');
      await forbidden(url.replace('X-Amz-Algorithm=MB-HMAC-SHA256', 'X-Amz-Algorithm=AWS4-HMAC-SHA256'), 'malformed');
      await forbidden(`${url}&X-Amz-Expires=900`, 'malformed');
      await forbidden(`${url}&X-Amz-Security-Token=x`, 'malformed');
      await forbidden(url.replace(/X-Amz-Date=\d{8}T/, 'X-Amz-Date=20261399T'), 'malformed');
      // Unrelated parameters are ignored.
      expect((await inject({ method: 'GET', url: `${url}&cachebust=1` })).statusCode).toBe(200);
    });

    it('refuses an expired URL (403 expired)', async () => {
      await forbidden(await signed(key, { ttlSeconds: 60, now: new Date(Date.now() - 61_000) }), 'expired');
      await forbidden(await signed(key, { ttlSeconds: 900, now: new Date(Date.now() + 3_600_000) }), 'expired');
    });

    it('answers 404 for a validly signed URL whose object is gone, or names a directory', async () => {
      const gone = 'media/book-1/media-2/original';
      await store.put(gone, Readable.from([Buffer.from('bye')]), { contentType: 'image/png' });
      const url = await signed(gone);
      await store.delete(gone);
      const res = await inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
      expect((await inject({ method: 'GET', url: await signed('media/book-1') })).statusCode).toBe(404);
    });

    it('never serves a file outside the store, even with a valid signature over a traversal path', async () => {
      const secretFile = path.join(t.config.dataDir, 'secret_key');
      writeFileSync(secretFile, 'TOP-SECRET-VALUE\n');
      mkdirSync(path.join(t.config.dataDir, 'objects', '.meta'), { recursive: true });
      const signingKey = deriveFileSigningKey(t.config.secretKey);
      const query = (k: string) => signLocalUrl(signingKey, k, { ttlSeconds: 900, now: new Date() }).query;
      const attempts = [
        `/files/../secret_key?${query('../secret_key')}`,
        `/files/%2e%2e/secret_key?${query('%2e%2e/secret_key')}`,
        `/files/%2E%2E%2Fsecret_key?${query('%2E%2E%2Fsecret_key')}`,
        `/files/media/../../secret_key?${query('media/../../secret_key')}`,
        `/files/.meta/${key}.json?${query(`.meta/${key}.json`)}`,
        `/files/..%5csecret_key?${query('..%5csecret_key')}`,
        `/files//etc/passwd?${query('/etc/passwd')}`,
        `/files/${key}%00?${query(`${key}%00`)}`,
      ];
      for (const url of attempts) {
        for (const method of ['GET', 'HEAD'] as const) {
          const res = await inject({ method, url });
          expect([403, 404], `${method} ${url}`).toContain(res.statusCode);
          expect(res.body).not.toContain('TOP-SECRET');
          expect(res.body).not.toContain('contentType');
        }
      }
    });

    it('serves nothing to other methods', async () => {
      // 405 with Allow, never a redirect towards another form of the URL.
      const url = await signed();
      const res = await inject({ method: 'POST', url, payload: {} });
      expect(res.statusCode).toBe(405);
      expect(String(res.headers.allow)).toBe('GET, HEAD');
      expect(res.json()).toMatchObject({ code: 'method_not_allowed' });
      const there = await inject({ method: 'DELETE', url: url.replace('?', '/?') });
      expect(there.statusCode).toBe(405);
      expect(String(there.headers.allow)).toBe('GET, HEAD');
    });
  });

  it('serves a large file as a stream with the right bytes', async () => {
    const big = 'media/book-1/media-3/original';
    const size = 12 * 1024 * 1024;
    async function* gen() {
      for (let i = 0; i < size / 65536; i++) yield Buffer.alloc(65536, i % 256);
    }
    await store.put(big, Readable.from(gen()), { contentType: 'video/mp4' });
    const res = await inject({ method: 'GET', url: await signed(big), headers: { range: `bytes=${size - 65536}-` } });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.length).toBe(65536);
    expect(res.rawPayload.every((b) => b === (size / 65536 - 1) % 256)).toBe(true);
  });
});

describe('GET /files/* on S3 storage', () => {
  it('does not exist: the URLs point at the bucket', async () => {
    const t = await buildTestApp({ env: { STORAGE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' } });
    try {
      const res = await t.get('/files/media/x/original?X-Amz-Signature=00');
      expect(res.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
