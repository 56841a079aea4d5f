/**
 * memorybook-client's cover helpers against the real service: mb.cover.put
 * uploads a photo as the book's cover, mb.update moves its focus, and
 * mb.cover.delete returns to the automatic choice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type Book, type MemorybookClient } from '../../packages/client/src/index.js';
import { newUser } from '../helpers/factories.js';
import { fixture } from '../helpers/media-fixtures.js';
import { serveTestApp, type ServedApp } from './client-setup.js';

let t: ServedApp;
let mb: MemorybookClient;
beforeAll(async () => {
  t = await serveTestApp({ worker: false });
  mb = t.client((await newUser(t)).token);
}, 120_000);
afterAll(() => t?.close());

describe('mb.cover', () => {
  it('put, a focus moved through mb.update, delete', async () => {
    const slug = ok(await mb.POST('/api/v1/books/', { body: { title: 'Covered' } })).slug;
    const book: Book = await mb.cover.put({ slug, file: await fixture('jpeg') });
    expect(book.cover).toMatchObject({ media_id: expect.any(String), url: expect.any(String), focal_point: { x: expect.any(Number), y: expect.any(Number) } });
    const moved = await mb.update('/api/v1/books/{slug}/', { params: { path: { slug } } }, () => ({ cover_focal_point: { x: 0.25, y: 0.75 } }));
    expect(moved.cover?.focal_point).toEqual({ x: 0.25, y: 0.75 });
    const back = await mb.cover.delete({ slug });
    expect(back.cover).toBeNull();
  });
});
