/**
 * A video of several megabytes over a real socket, on both stores: it is
 * stored whole (the bytes in the store are the bytes sent, and the row's
 * sha256 is theirs), past the points where the local store starts flushing
 * to disk and the S3 store begins a multipart upload; and a client that goes
 * away half way leaves nothing: no object, no staging file or open multipart
 * upload, no pending entry, no row.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../../src/storage/object-store.js';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { startPartialUpload, until, uploadFile } from './media-processes.js';
import { buildMediaApp, mediaPath, STORES, type MediaTestApp } from './media-setup.js';

const MiB = 1024 * 1024;
/** Past two 5 MiB S3 parts and three of the local store's 4 MiB flushes, with a short last part. */
const VIDEO_BYTES = 13 * MiB + 12_345;
/** The photo cap (20 MB), passed mid-stream: after four S3 parts and several local flushes. */
const PHOTO_CAP = 20 * MiB;

async function sha256Of(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe.each(STORES)('a video streamed over a socket to the %s store', (store) => {
  let t: MediaTestApp;
  let objects: ObjectStore;
  let owner: TestUser;
  let baseUrl: string;
  let dir: string;
  let video: string;
  let bigPhoto: string;

  beforeAll(async () => {
    t = await buildMediaApp(store, {
      worker: false,
      wrapStore: (real) => {
        objects = real;
        return real;
      },
    });
    owner = await newUser(t);
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
    // A real MP4 head, then bytes that differ everywhere, so a part stored out of place would show.
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-streaming-'));
    video = path.join(dir, 'video.mp4');
    const head = await readFixture('mp4');
    async function* content() {
      yield head;
      for (let left = VIDEO_BYTES - head.length; left > 0; left -= MiB) yield randomBytes(Math.min(MiB, left));
    }
    await pipeline(content, createWriteStream(video));
    // A real JPEG head, then filler: one byte over the 20 MB photo cap, which only the running count can see.
    bigPhoto = path.join(dir, 'big.jpg');
    const jpeg = await readFixture('jpeg');
    async function* photo() {
      yield jpeg;
      for (let left = PHOTO_CAP + 1 - jpeg.length; left > 0; left -= MiB) yield Buffer.alloc(Math.min(MiB, left), 7);
    }
    await pipeline(photo, createWriteStream(bigPhoto));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function premiumSubmission() {
    const book = await newBook(t, owner, { plan: 'premium' });
    const sub = await newSubmission(t, book.slug, owner);
    return { slug: book.slug, sub };
  }

  async function pendingObjects(): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_objects`);
    return n;
  }

  /** What an upload in progress has in the store besides objects: staging files, or open S3 multipart uploads. */
  async function inProgress(): Promise<string[]> {
    if (store === 'local') return (await readdir(path.join(t.config.dataDir, 'objects', '.staging')).catch(() => [])).sort();
    const s3 = t.config.storage.s3!;
    const res = await fetch(`${s3.endpoint}/${s3.bucket}?uploads`);
    return [...(await res.text()).matchAll(/<UploadId>([^<]*)<\/UploadId>/g)].map((m) => m[1]).sort();
  }

  /** Waits until no staging file, open multipart upload, pending entry or new object is left, then checks no media row was written. */
  async function nothingLeft(submissionId: string, keysBefore: string[], what: string) {
    await until(
      async () => ({ open: await inProgress(), pending: await pendingObjects(), keys: await t.storedKeys() }),
      (s) => s.open.length === 0 && s.pending === 0 && JSON.stringify(s.keys) === JSON.stringify(keysBefore),
      30_000,
      `nothing left of ${what}`,
    );
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media WHERE submission_id = $1`, [submissionId]);
    expect(n).toBe(0);
  }

  it('is stored whole: the stored bytes are the bytes sent, and the row has their sha256', async () => {
    const { slug, sub } = await premiumSubmission();
    const sent = await sha256Of(createReadStream(video));
    const res = await uploadFile(baseUrl, mediaPath(slug, sub.id), owner.token, video, { contentType: 'video/mp4' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ kind: 'video', mime_type: 'video/mp4', size_bytes: VIDEO_BYTES });

    const [row] = await t.db.query<{ sha256: string; storage_key: string }>(`SELECT sha256, storage_key FROM media WHERE id = $1`, [res.json.id]);
    expect(row.sha256).toBe(sent);
    expect(await objects.head(row.storage_key)).toMatchObject({ sizeBytes: VIDEO_BYTES, contentType: 'video/mp4' });
    expect(await sha256Of(await objects.get(row.storage_key))).toBe(sent);
    if (store === 'local') expect((await stat(path.join(t.config.dataDir, 'objects', ...row.storage_key.split('/')))).size).toBe(VIDEO_BYTES);
    expect(await inProgress()).toEqual([]);
    expect(await pendingObjects()).toBe(0);
  });

  it('leaves nothing when the client goes away half way, and the server takes the next upload', async () => {
    const { slug, sub } = await premiumSubmission();
    const keysBefore = await t.storedKeys();
    const partial = await startPartialUpload(baseUrl, mediaPath(slug, sub.id), owner.token, video, {
      key: crypto.randomUUID(),
      sendBytes: 9 * MiB,
      contentType: 'video/mp4',
    });
    // Cut off only once the store is taking it: a staging file, or a multipart upload with its first part.
    await until(inProgress, (open) => open.length === 1, 30_000, 'the upload reaching the store');
    expect(await pendingObjects()).toBe(1);
    partial.close();

    await nothingLeft(sub.id, keysBefore, 'the cut-off upload');

    const next = await uploadFile(baseUrl, mediaPath(slug, sub.id), owner.token, video, { contentType: 'video/mp4' });
    expect(next.status, next.text).toBe(201);
  });

  it('answers a photo over its cap mid-stream with 413 and leaves nothing: no object, staging file, multipart upload, entry or row', async () => {
    const { slug, sub } = await premiumSubmission();
    const keysBefore = await t.storedKeys();
    const res = await uploadFile(baseUrl, mediaPath(slug, sub.id), owner.token, bigPhoto, { contentType: 'image/jpeg' });
    expect(res.status, res.text).toBe(413);
    expect(res.json).toMatchObject({ code: 'payload_too_large', details: { limit_bytes: PHOTO_CAP, kind: 'image' } });
    // The refusal cleans up before it answers (the staging file after it, once the request is over).
    await nothingLeft(sub.id, keysBefore, 'the refused upload');

    const next = await uploadFile(baseUrl, mediaPath(slug, sub.id), owner.token, video, { contentType: 'video/mp4' });
    expect(next.status, next.text).toBe(201);
  });
});
