/**
 * One user's exports cannot crowd out everyone else's: at most 4 unfinished
 * per book and 10 per user (429 rate_limited with Retry-After beyond), and
 * the worker takes every user's first waiting export before anyone's second,
 * so another user's export waits for at most the render under way.
 */
import { describe, expect, it } from 'vitest';
import { createJobHandlers } from '../../../src/job-handlers.js';
import { THEMES } from '../../../src/services/books/book-types.js';
import { newUser } from '../../helpers/factories.js';
import { approvedMemory, buildExportApp, exportBook, exportsPath, settled } from './exports-setup.js';

const combos = THEMES.flatMap((theme) => (['screen', 'home', 'shop'] as const).map((intent) => ({ theme, intent })));

describe('limits on unfinished exports, and fair rendering across users', () => {
  it('refuses a fifth on a book and an eleventh of a user; another user’s export waits for one render at most', async () => {
    // No worker yet: everything is queued first, so the order the worker takes them in is the queue's alone.
    const t = await buildExportApp('local', { worker: false });
    const hog = await newUser(t);
    const books = [];
    for (let i = 0; i < 3; i++) {
      const { slug } = await exportBook(t, hog);
      await approvedMemory(t, hog, slug, { text: `Memory of book ${i}` });
      books.push(slug);
    }
    let next = 0;
    const ask = (slug: string) => t.post(exportsPath(slug), { ...combos[next++], export_format: 'pdf' }, { token: hog.token });

    const hogJobs: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await ask(books[0]);
      expect(res.status).toBe(202);
      hogJobs.push(res.body.id);
    }
    const fifth = await ask(books[0]);
    expect(fifth.status).toBe(429);
    expect(fifth.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(fifth.body).toMatchObject({ code: 'rate_limited', details: { scope: 'book', limit: 4 } });
    expect(fifth.headers['x-ratelimit-limit']).toBe('4');
    expect(fifth.headers['x-ratelimit-remaining']).toBe('0');
    expect(typeof fifth.body.message).toBe('string');
    expect(fifth.body.request_id).toBe(fifth.headers['x-request-id']);

    // An identical request still answers the job it repeats, even at the limit.
    const twin = await t.post(exportsPath(books[0]), { ...combos[0], export_format: 'pdf' }, { token: hog.token });
    expect(twin.status).toBe(202);
    expect(twin.body.id).toBe(hogJobs[0]);

    for (let i = 0; i < 4; i++) hogJobs.push((await ask(books[1])).body.id);
    for (let i = 0; i < 2; i++) hogJobs.push((await ask(books[2])).body.id);
    expect(new Set(hogJobs).size).toBe(10);
    const eleventh = await ask(books[2]);
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(eleventh.body).toMatchObject({ code: 'rate_limited', details: { scope: 'user', limit: 10 } });
    expect(eleventh.headers['x-ratelimit-limit']).toBe('10');
    const [{ count }] = await t.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM exports WHERE requested_by = $1`, [hog.user.id]);
    expect(Number(count)).toBe(10);

    // Another user asks for a JSON export of their own book, behind the hog's ten PDFs.
    const other = await newUser(t);
    const { slug: otherSlug } = await exportBook(t, other);
    await approvedMemory(t, other, otherSlug, { text: 'Just one memory' });
    const theirs = await t.post(exportsPath(otherSlug), { theme: 'storybook', export_format: 'json' }, { token: other.token });
    expect(theirs.status).toBe(202);

    // One worker, one render at a time.
    t.queue.work(createJobHandlers({ services: t.services, config: t.config, db: t.db }));
    expect((await settled(t, other, otherSlug, theirs.body.id)).body.status).toBe('complete');
    const [{ started_at: theirsStarted }] = await t.db.query<{ started_at: string }>(`SELECT started_at FROM exports WHERE id = $1`, [theirs.body.id]);
    const before = await t.db.query<{ id: string }>(`SELECT id FROM exports WHERE requested_by = $1 AND started_at < $2`, [hog.user.id, theirsStarted]);
    expect(before.map((r) => r.id)).toEqual([hogJobs[0]]);

    // A finished export frees its place: the hog may ask again on that book.
    expect((await settled(t, hog, books[0], hogJobs[0])).body.status).toBe('complete');
    const again = await ask(books[0]);
    expect(again.status).toBe(202);
  }, 120_000);
});
