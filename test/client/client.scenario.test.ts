/**
 * memorybook-client against the real service over a socket: an integrator's
 * scenario (book, memories, paging, moderation, sync by Last-Modified,
 * If-Match updates) and the typed errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorybookError, ok, SCHEMA_VALIDATION_CODE, type Book, type MemorybookClient, type Submission } from '../../packages/client/src/index.js';
import { newUser, type TestUser } from '../helpers/factories.js';
import { serveTestApp, type ServedApp } from './client-setup.js';

let t: ServedApp;
let owner: TestUser;
let mb: MemorybookClient;
beforeAll(async () => {
  t = await serveTestApp();
  owner = await newUser(t);
  await t.services.quotas.grantSlots(owner.user.id, 'premium', 1);
  mb = t.client(owner.token);
});
afterAll(() => t.close());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('memorybook-client: a scenario against the real service', () => {
  let book: Book;
  const ids: string[] = [];

  it('creates a book and memories; every write carries an Idempotency-Key of its own', async () => {
    const created = await mb.POST('/api/v1/books/', { body: { title: 'Grandma turns 90', plan: 'premium', theme: 'storybook' } });
    book = ok(created);
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('location')).toBe(`/api/v1/books/${book.slug}/`);
    expect(book).toMatchObject({ title: 'Grandma turns 90', plan: 'premium', role: 'owner' });

    for (let i = 1; i <= 5; i++) {
      const s = ok(await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug: book.slug } }, body: { text_content: `Memory ${i}`, contributor_name: `Cousin ${i}` } }));
      ids.push(s.id);
    }
    const writes = t.attempts.filter((a) => a.method === 'POST');
    expect(writes).toHaveLength(6);
    expect(writes.every((a) => a.idempotencyKey && a.status === 201)).toBe(true);
    expect(new Set(writes.map((a) => a.idempotencyKey)).size).toBe(6);
  });

  it('pages through a list with an async iterator, following next_cursor', async () => {
    const before = t.attempts.length;
    const texts: string[] = [];
    for await (const s of mb.items('/api/v1/books/{slug}/submissions/', { path: { slug: book.slug }, query: { limit: 2 } })) texts.push(s.text_content);
    expect(texts).toEqual(['Memory 5', 'Memory 4', 'Memory 3', 'Memory 2', 'Memory 1']);
    expect(t.attempts.length - before).toBe(3);

    const pages = [];
    for await (const page of mb.pages('/api/v1/books/', { query: { limit: 1 } })) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0].items.map((b) => b.slug)).toEqual([book.slug]);
    expect(pages[0].lastModified).toMatch(/GMT$/);
  });

  it('moderates: approve and pin without a body, reject with a reason', async () => {
    const approved = ok(await mb.POST('/api/v1/books/{slug}/submissions/{id}/approve/', { params: { path: { slug: book.slug, id: ids[0] } } }));
    expect(approved).toMatchObject({ action: 'approve', changed: true, submission: { status: 'approved' } });
    const pinned = ok(await mb.POST('/api/v1/books/{slug}/submissions/{id}/pin/', { params: { path: { slug: book.slug, id: ids[0] } } }));
    expect(pinned.submission.is_pinned).toBe(true);
    const rejected = ok(await mb.POST('/api/v1/books/{slug}/submissions/{id}/reject/', { params: { path: { slug: book.slug, id: ids[1] } }, body: { reason: 'Off topic' } }));
    expect(rejected.submission).toMatchObject({ status: 'rejected', rejection_reason: 'Off topic' });
    const again = ok(await mb.POST('/api/v1/books/{slug}/submissions/{id}/approve/', { params: { path: { slug: book.slug, id: ids[0] } } }));
    expect(again.changed).toBe(false);
  });

  it('syncs: the first sync reads every row, the next only what changed since its Last-Modified', async () => {
    const first = await mb.sync('/api/v1/books/{slug}/submissions/', { path: { slug: book.slug }, query: { limit: 2 } });
    expect(first.items.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(first.since).toMatch(/GMT$/);

    await pause(1100); // the watermark is rounded down to the second
    ok(await mb.PATCH('/api/v1/books/{slug}/submissions/{id}/', { params: { path: { slug: book.slug, id: ids[2] } }, body: { text_content: 'Memory 3, retold' } }));
    const added = ok(await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug: book.slug } }, body: { text_content: 'Memory 6' } }));

    const second = await mb.sync('/api/v1/books/{slug}/submissions/', { path: { slug: book.slug }, since: first.since, query: { limit: 2 } });
    const changed = second.items.map((s) => s.id);
    // Seen twice is allowed, missed never: the two changed rows are there, and nothing older than the watermark.
    expect(changed).toEqual(expect.arrayContaining([ids[2], added.id]));
    for (const s of second.items) expect(Date.parse(s.updated_at)).toBeGreaterThanOrEqual(Date.parse(first.since));
    expect(second.items.find((s) => s.id === ids[2])?.text_content).toBe('Memory 3, retold');
    expect(Date.parse(second.since)).toBeGreaterThanOrEqual(Date.parse(first.since));
  });

  it('updates with If-Match: a write in between (412) makes it read again and apply the change to the new version', async () => {
    let calls = 0;
    const updated = await mb.update('/api/v1/books/{slug}/', { path: { slug: book.slug } }, async (current) => {
      calls++;
      if (calls === 1) {
        // Someone else edits the book after we read it: our If-Match is stale now.
        await pause(5);
        ok(await mb.PATCH('/api/v1/books/{slug}/', { params: { path: { slug: book.slug } }, body: { title: 'Grandma turns ninety' } }));
      }
      return { subtitle: `${current.title}: the stories` };
    });
    expect(calls).toBe(2);
    expect(updated).toMatchObject({ title: 'Grandma turns ninety', subtitle: 'Grandma turns ninety: the stories' });
    const patches = t.attempts.filter((a) => a.method === 'PATCH' && a.path === `/api/v1/books/${book.slug}/`);
    expect(patches.map((a) => a.status)).toEqual([200, 412, 200]);

    const profile = await mb.update('/api/v1/me/', {}, (me) => ({ first_name: `${me.first_name}!` }));
    expect(profile.first_name).toBe('Test!');
  });

  it('answers errors as MemorybookError with code, details and request_id, and the 422 {detail} form', async () => {
    const missing = await mb.GET('/api/v1/books/{slug}/', { params: { path: { slug: 'no-such-book' } } });
    const notFound = (() => {
      try {
        ok(missing);
      } catch (err) {
        return err;
      }
    })();
    expect(MemorybookError.is(notFound, 'not_found')).toBe(true);
    expect(notFound).toMatchObject({ status: 404, code: 'not_found', details: null, requestId: missing.response.headers.get('x-request-id') });

    const stale = await mb
      .PATCH('/api/v1/books/{slug}/', { params: { path: { slug: book.slug }, header: { 'If-Match': '"2001-01-01T00:00:00.000000Z"' } }, body: { subtitle: 'x' } })
      .then(ok)
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed' });
    // The details are typed by the code: no cast.
    if (!(stale instanceof MemorybookError && stale.code === 'precondition_failed')) throw new Error('expected precondition_failed');
    const currentEtag: string = stale.details.current_etag;
    expect(currentEtag).toMatch(/^"/);

    const invalid = await mb
      .POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug: book.slug } }, body: { text_content: 'x', mood: 'happy' } as never })
      .then(ok)
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(MemorybookError);
    expect(invalid).toMatchObject({ status: 422, code: SCHEMA_VALIDATION_CODE, details: null });
    if (!MemorybookError.is(invalid, SCHEMA_VALIDATION_CODE)) throw new Error('expected a schema failure');
    expect(invalid.detail).toEqual([expect.objectContaining({ loc: ['body', 'mood'] })]);
    expect(invalid.requestId).toMatch(/.+/);

    const helperError = await (async () => {
      for await (const s of mb.items('/api/v1/books/{slug}/submissions/', { params: { path: { slug: book.slug }, query: { limit: 500 } } })) void s;
    })().catch((e: unknown) => e);
    expect(helperError).toMatchObject({ status: 400, code: 'query_param_invalid', details: { param: 'limit' } });
  });

  it('reads a submission typed from the document', async () => {
    const s: Submission = ok(await mb.GET('/api/v1/books/{slug}/submissions/{id}/', { params: { path: { slug: book.slug, id: ids[0] } } }));
    expect(s).toMatchObject({ id: ids[0], status: 'approved', is_pinned: true, book_slug: book.slug });
  });
});
