/**
 * memorybook-client's media helpers against the real service and its job
 * worker: uploads from a path, a Blob and a stream, the wait for processing,
 * URLs refetched when they lapse, the file itself, and an upload whose
 * response was cut off attached once.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type Media, type MemorybookClient } from '../../packages/client/src/index.js';
import { newUser, type TestUser } from '../helpers/factories.js';
import { FIXTURES, fixture } from '../helpers/media-fixtures.js';
import { serveTestApp, startCuttingProxy, type CuttingProxy, type ServedApp } from './client-setup.js';

let t: ServedApp;
let proxy: CuttingProxy;
let owner: TestUser;
let mb: MemorybookClient;
let slug: string;
let photoPath: string;
let photo: Buffer;
beforeAll(async () => {
  t = await serveTestApp({ worker: true });
  proxy = await startCuttingProxy(t.url);
  owner = await newUser(t);
  await t.services.quotas.grantSlots(owner.user.id, 'premium', 1);
  mb = t.client(owner.token);
  slug = ok(await mb.POST('/api/v1/books/', { body: { title: 'Photos', plan: 'premium' } })).slug;
  photoPath = await fixture('jpeg');
  photo = await readFile(photoPath);
}, 120_000);
afterAll(async () => {
  await proxy.close();
  await t.close();
});

async function newMemory(text = 'With a photo') {
  return ok(await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: text } })).id;
}

function expectProcessedPhoto(m: Media) {
  expect(m).toMatchObject({ kind: 'image', mime_type: 'image/jpeg', processing_status: 'complete', width: FIXTURES.jpeg.width, height: FIXTURES.jpeg.height, download_status: 'available' });
  expect(m.download_url).toMatch(/^http/);
}

describe('memorybook-client media', () => {
  it('uploads from a file path and waits until processing is complete', async () => {
    const submissionId = await newMemory();
    const m = await mb.media.upload({ slug, submissionId, file: photoPath });
    expectProcessedPhoto(m);
    const upload = t.attempts.find((a) => a.method === 'POST' && a.path.endsWith(`/${submissionId}/media/`));
    expect(upload).toMatchObject({ status: 201, idempotencyKey: expect.any(String) });
    const s = ok(await mb.GET('/api/v1/books/{slug}/submissions/{id}/', { params: { path: { slug, id: submissionId } } }));
    expect(s.media.map((x) => x.id)).toEqual([m.id]);
  });

  it('uploads a Blob and a Node stream; without waiting it answers the pending file', async () => {
    const submissionId = await newMemory();
    const pending = await mb.media.upload({ slug, submissionId, file: new Blob([new Uint8Array(photo)]), filename: 'garden.jpg', wait: false });
    expect(['pending', 'processing', 'complete']).toContain(pending.processing_status);
    expectProcessedPhoto(await mb.media.waitUntilProcessed({ slug, submissionId, mediaId: pending.id }));

    const fromStream = await mb.media.upload({ slug, submissionId, file: createReadStream(photoPath), filename: 'garden-2.jpg' });
    expectProcessedPhoto(fromStream);
  });

  it('refetches URLs that have lapsed, keeps ones that have not, and downloads the file itself', async () => {
    const submissionId = await newMemory();
    const m = await mb.media.upload({ slug, submissionId, file: photoPath });
    const ref = { slug, submissionId, mediaId: m.id };

    expect(await mb.media.fresh(ref, m)).toBe(m);
    const lapsed = { ...m, urls_expire_at: new Date(Date.now() - 1000).toISOString() };
    const reads = t.attempts.length;
    const renewed = await mb.media.fresh(ref, lapsed);
    expect(t.attempts.length).toBe(reads + 1);
    expect(Date.parse(renewed.urls_expire_at!)).toBeGreaterThan(Date.now() + 10 * 60_000);

    // A URL that lapsed on the way is refused by the store (403): download reads again and fetches the new one.
    const expiredUrl = new URL(m.download_url!);
    expiredUrl.searchParams.set('X-Amz-Expires', '1');
    const res = await mb.media.download(ref, { current: { ...m, download_url: expiredUrl.href, urls_expire_at: new Date(Date.now() + 3_600_000).toISOString() } });
    expect(Buffer.from(await res.arrayBuffer()).equals(photo)).toBe(true);
    const files = t.attempts.filter((a) => a.path.startsWith('/files/'));
    expect(files.slice(-2).map((a) => a.status)).toEqual([403, 200]);
    expect(files.every((a) => a.idempotencyKey === null)).toBe(true);
  });

  it('retries an upload whose response was cut off: the file is attached once', async () => {
    const submissionId = await newMemory();
    const viaProxy = t.client(owner.token, { baseUrl: proxy.url, retry: { baseDelayMs: 200 } });
    proxy.cutResponseTo(new RegExp(`^POST /api/v1/books/${slug}/submissions/${submissionId}/media/ `));
    const m = await viaProxy.media.upload({ slug, submissionId, file: photoPath, wait: false });
    expect(proxy.cuts).toBe(1);
    const posts = t.attempts.filter((a) => a.method === 'POST' && a.path.endsWith(`/${submissionId}/media/`));
    expect(posts.map((a) => a.status)).toEqual(['network', 201]);
    expect(posts[1].idempotencyKey).toBe(posts[0].idempotencyKey);
    const s = ok(await mb.GET('/api/v1/books/{slug}/submissions/{id}/', { params: { path: { slug, id: submissionId } } }));
    expect(s.media.map((x) => x.id)).toEqual([m.id]);
  });
});
