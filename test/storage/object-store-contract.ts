import { createHash, randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectNotFoundError, type ObjectStore } from '../../src/storage/object-store.js';

export interface ContractSubject {
  store: ObjectStore;
  /** What a failed put may have left behind anywhere in the store (staging files, pending multipart uploads), as names. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** `total` bytes of a repeatable pattern, in `chunk`-sized pieces, never all in memory. */
async function* pattern(total: number, chunk = MiB): AsyncGenerator<Buffer> {
  for (let sent = 0; sent < total; sent += chunk) {
    const n = Math.min(chunk, total - sent);
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = (sent + i) % 251;
    yield b;
  }
}

async function* failingAfter(bytes: number, error: Error): AsyncGenerator<Buffer> {
  yield* pattern(bytes);
  await new Promise((r) => setTimeout(r, 20));
  throw error;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The behaviour every ObjectStore driver owes its callers. `setup` builds a
 * fresh subject; signed URLs are fetched for real with fetch().
 */
export function objectStoreContract(name: string, setup: () => Promise<ContractSubject>) {
  describe(`ObjectStore contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: ObjectStore;
    const key = (what: string) => `test/${randomUUID()}/${what}`;
    const put = (k: string, data: Buffer | string, contentType = 'application/octet-stream') =>
      store.put(k, Readable.from([Buffer.from(data)]), { contentType });

    beforeAll(async () => {
      subject = await setup();
      store = subject.store;
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('puts, reads, heads and deletes an object; deleting twice is fine', async () => {
      const k = key('original');
      await expect(put(k, 'hello object store', 'text/plain')).resolves.toEqual({ sizeBytes: 18 });
      expect(await store.head(k)).toEqual({ sizeBytes: 18, contentType: 'text/plain' });
      expect((await readAll(await store.get(k))).toString()).toBe('hello object store');
      await store.delete(k);
      await store.delete(k);
      expect(await store.head(k)).toBeNull();
      await expect(store.get(k)).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('answers a missing object: head null, get ObjectNotFoundError, localCopy ObjectNotFoundError', async () => {
      const k = key('missing');
      expect(await store.head(k)).toBeNull();
      await expect(store.get(k)).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(store.localCopy(k)).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('stores an empty object', async () => {
      const k = key('empty');
      await expect(put(k, '')).resolves.toEqual({ sizeBytes: 0 });
      expect(await store.head(k)).toEqual({ sizeBytes: 0, contentType: 'application/octet-stream' });
      expect((await readAll(await store.get(k))).length).toBe(0);
    });

    it('replaces an object put again under the same key', async () => {
      const k = key('replaced');
      await put(k, 'first', 'text/plain');
      await put(k, 'second version', 'text/markdown');
      expect(await store.head(k)).toEqual({ sizeBytes: 14, contentType: 'text/markdown' });
      expect((await readAll(await store.get(k))).toString()).toBe('second version');
    });

    it('reads inclusive byte ranges, clamping the end; a start past the end is a RangeError', async () => {
      const k = key('ranged');
      await put(k, '0123456789');
      expect((await readAll(await store.get(k, { start: 2, end: 5 }))).toString()).toBe('2345');
      expect((await readAll(await store.get(k, { start: 9, end: 9 }))).toString()).toBe('9');
      expect((await readAll(await store.get(k, { start: 7, end: 100 }))).toString()).toBe('789');
      await expect(store.get(k, { start: 10, end: 12 })).rejects.toBeInstanceOf(RangeError);
      await expect(store.get(k, { start: 5, end: 4 })).rejects.toBeInstanceOf(RangeError);
    });

    it('refuses keys that could escape the store', async () => {
      for (const bad of ['../x', 'a/../../x', '/abs', 'a//b', '.staging/x', 'a/.meta', 'sp ace', '']) {
        await expect(store.put(bad, Readable.from([Buffer.from('x')]), { contentType: 'text/plain' }), bad).rejects.toThrow(/Invalid object key/);
        await expect(store.signedUrl(bad, { ttlSeconds: 60 }), bad).rejects.toThrow(/Invalid object key/);
      }
    });

    it('streams a 30 MB body from a generator and reads back the same bytes', async () => {
      const k = key('large');
      const total = 30 * MiB;
      const expected = createHash('sha256');
      for await (const b of pattern(total)) expected.update(b);
      await expect(store.put(k, Readable.from(pattern(total)), { contentType: 'video/mp4' })).resolves.toEqual({ sizeBytes: total });
      expect(await store.head(k)).toEqual({ sizeBytes: total, contentType: 'video/mp4' });
      const actual = createHash('sha256');
      for await (const c of await store.get(k)) actual.update(c as Buffer);
      expect(actual.digest('hex')).toBe(expected.digest('hex'));
      expect(await subject.leftovers()).toEqual([]);
    });

    it('stores a body that arrives in many small, odd-sized chunks byte for byte', async () => {
      const k = key('trickle');
      const total = 11 * MiB + 7;
      const expected = createHash('sha256');
      for await (const b of pattern(total, 4099)) expected.update(b);
      await expect(store.put(k, Readable.from(pattern(total, 4099)), { contentType: 'video/mp4' })).resolves.toEqual({ sizeBytes: total });
      expect(await store.head(k)).toEqual({ sizeBytes: total, contentType: 'video/mp4' });
      const actual = createHash('sha256');
      for await (const c of await store.get(k)) actual.update(c as Buffer);
      expect(actual.digest('hex')).toBe(expected.digest('hex'));
      expect(await subject.leftovers()).toEqual([]);
    });

    it('stores bodies at the edge of a 5 MiB part (exactly one, one byte more) and one that comes as a single 12 MiB chunk', async () => {
      for (const [total, chunk] of [
        [5 * MiB, 3 * MiB],
        [5 * MiB + 1, 3 * MiB],
        [12 * MiB, 12 * MiB],
      ]) {
        const k = key(`edge-${total}`);
        const expected = createHash('sha256');
        for await (const b of pattern(total, chunk)) expected.update(b);
        await expect(store.put(k, Readable.from(pattern(total, chunk)), { contentType: 'video/mp4' })).resolves.toEqual({ sizeBytes: total });
        const actual = createHash('sha256');
        for await (const c of await store.get(k)) actual.update(c as Buffer);
        expect(actual.digest('hex'), `${total} bytes in chunks of ${chunk}`).toBe(expected.digest('hex'));
      }
      expect(await subject.leftovers()).toEqual([]);
    });

    for (const [label, bytes] of [
      ['a small body (single request)', 64 * 1024],
      ['a large body (past the first 5 MiB part)', 12 * MiB],
    ] as const) {
      it(`leaves nothing when ${label} errors half way`, async () => {
        const k = key('broken');
        const boom = new Error('client went away');
        await expect(store.put(k, Readable.from(failingAfter(bytes, boom)), { contentType: 'image/jpeg' })).rejects.toThrow('client went away');
        expect(await store.head(k)).toBeNull();
        await expect(store.get(k)).rejects.toBeInstanceOf(ObjectNotFoundError);
        expect(await subject.leftovers()).toEqual([]);
      });
    }

    it('leaves nothing when the signal aborts half way', async () => {
      const k = key('aborted');
      const controller = new AbortController();
      async function* body() {
        yield* pattern(12 * MiB);
        controller.abort();
        // A client that keeps sending after the abort: the store must not wait for it.
        for (;;) {
          await new Promise((r) => setTimeout(r, 10));
          yield Buffer.alloc(1024);
        }
      }
      const started = Date.now();
      await expect(store.put(k, Readable.from(body()), { contentType: 'video/mp4', signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await store.head(k)).toBeNull();
      expect(await subject.leftovers()).toEqual([]);
    });

    it('writes nothing for an already aborted signal, and keeps the previous object when a replacement fails', async () => {
      const k = key('kept');
      await put(k, 'the original', 'text/plain');
      await expect(
        store.put(k, Readable.from([Buffer.from('never')]), { contentType: 'text/plain', signal: AbortSignal.abort() }),
      ).rejects.toMatchObject({ name: 'AbortError' });
      await expect(store.put(k, Readable.from(failingAfter(6 * MiB, new Error('half'))), { contentType: 'image/png' })).rejects.toThrow('half');
      expect(await store.head(k)).toEqual({ sizeBytes: 12, contentType: 'text/plain' });
      expect((await readAll(await store.get(k))).toString()).toBe('the original');
      expect(await subject.leftovers()).toEqual([]);
    });

    it('gives a local path with the bytes for tools that need a file', async () => {
      const k = key('for-ffprobe');
      await put(k, 'probe me');
      const copy = await store.localCopy(k);
      expect(await readFile(copy.path, 'utf8')).toBe('probe me');
      await copy.release();
      await copy.release();
      if (store.kind === 's3') await expect(stat(copy.path)).rejects.toMatchObject({ code: 'ENOENT' });
      else expect((await readAll(await store.get(k))).toString()).toBe('probe me');
    });

    describe('signed URLs, fetched for real', () => {
      const body = Buffer.from('The quick brown fox jumps over the lazy dog.');
      let k: string;
      beforeAll(async () => {
        k = key('original');
        await put(k, body, 'image/jpeg');
      });

      it('serves the exact bytes with the stored type until expiresAt (X-Amz-Expires = ttl)', async () => {
        const now = new Date();
        const { url, expiresAt } = await store.signedUrl(k, { ttlSeconds: 900 });
        const u = new URL(url);
        expect(u.searchParams.get('X-Amz-Expires')).toBe('900');
        for (const p of ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-SignedHeaders', 'X-Amz-Signature']) expect(u.searchParams.get(p), p).toBeTruthy();
        expect(Math.abs(expiresAt.getTime() - (now.getTime() + 900_000))).toBeLessThan(2000);
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/jpeg');
        expect(res.headers.get('content-disposition')).toBeNull();
        expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
      });

      it('answers a Range request with 206 and Content-Range', async () => {
        const { url } = await store.signedUrl(k, { ttlSeconds: 900 });
        const res = await fetch(url, { headers: { range: 'bytes=4-8' } });
        expect(res.status).toBe(206);
        expect(res.headers.get('content-range')).toBe(`bytes 4-8/${body.length}`);
        expect(await res.text()).toBe('quick');
      });

      it('sets Content-Disposition for a download name, and the signed content type', async () => {
        const { url } = await store.signedUrl(k, { ttlSeconds: 900, downloadName: 'Grandma 90 – é.jpg', contentType: 'image/png' });
        const res = await fetch(url);
        expect(res.status).toBe(200);
        // The name ends in the extension of the type served: a .jpg name on PNG bytes gains .png.
        expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Grandma 90 _ e.jpg.png"; filename*=UTF-8''Grandma%2090%20%E2%80%93%20%C3%A9.jpg.png`);
        expect(res.headers.get('content-type')).toBe('image/png');
        expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(body));
      });

      it('refuses a tampered signature, another key, or an altered parameter with 403', async () => {
        const { url } = await store.signedUrl(k, { ttlSeconds: 900, downloadName: 'a.jpg' });
        const u = new URL(url);
        const sig = u.searchParams.get('X-Amz-Signature')!;
        const tampered = new URL(url);
        tampered.searchParams.set('X-Amz-Signature', (sig[0] === '0' ? '1' : '0') + sig.slice(1));
        expect((await fetch(tampered)).status).toBe(403);
        const longer = new URL(url);
        longer.searchParams.set('X-Amz-Expires', '3600');
        expect((await fetch(longer)).status).toBe(403);
        const renamed = new URL(url);
        renamed.searchParams.set('response-content-disposition', 'attachment; filename="evil.html"');
        expect((await fetch(renamed)).status).toBe(403);
        const other = key('other');
        await put(other, 'other');
        expect((await fetch(url.replace(k, other))).status).toBe(403);
      });

      it('refuses an expired URL with 403: signed in the past, or past a 1 s lifetime', async () => {
        const past = await store.signedUrl(k, { ttlSeconds: 60, now: new Date(Date.now() - 120_000) });
        expect(past.expiresAt.getTime()).toBeLessThan(Date.now());
        expect((await fetch(past.url)).status).toBe(403);
        const short = await store.signedUrl(k, { ttlSeconds: 1 });
        await new Promise((r) => setTimeout(r, Math.max(0, short.expiresAt.getTime() - Date.now()) + 1100));
        expect((await fetch(short.url)).status).toBe(403);
      });

      it('refuses a lifetime outside 1 s to 7 days', async () => {
        for (const ttlSeconds of [0, -1, 1.5, 604_801]) await expect(store.signedUrl(k, { ttlSeconds })).rejects.toBeInstanceOf(RangeError);
      });
    });
  });
}
