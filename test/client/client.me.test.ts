/**
 * memorybook-client's /me helpers against the real service over a socket:
 * a contributor walks every page of their memberships, memories and
 * subscriptions with `for await`, filtered as asked, and sees nobody else's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Membership, MySubmission, MySubscription } from '../../packages/client/src/index.js';
import { addMember, newBook, newSubmission, newUser } from '../helpers/factories.js';
import { serveTestApp, type ServedApp } from './client-setup.js';

let t: ServedApp;
beforeAll(async () => {
  t = await serveTestApp();
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe('mb.me', () => {
  it('iterates every page of the caller’s own lists', async () => {
    const owner = await newUser(t);
    const writer = await newUser(t);
    const other = await newUser(t);
    const slugs = [];
    for (const title of ['One', 'Two', 'Three']) {
      const slug = (await newBook(t, owner, { title })).slug;
      await addMember(t, slug, writer, 'contributor');
      await addMember(t, slug, other, 'contributor');
      for (let i = 0; i < 3; i++) {
        await newSubmission(t, slug, writer, { text: `${title} ${i}` });
        await newSubmission(t, slug, other, { text: `not mine ${i}` });
      }
      await t.services.subscriptions.createSubscription({ slug, email: writer.email, kind: 'digest' });
      slugs.push(slug);
    }
    const mb = t.client(writer.token);
    const memberships: Membership[] = [];
    for await (const m of mb.me.memberships({ limit: 1 })) memberships.push(m);
    expect(memberships.map((m) => [m.book.slug, m.role])).toEqual(slugs.reverse().map((s) => [s, 'contributor']));
    const memories: MySubmission[] = [];
    for await (const s of mb.me.submissions({ limit: 2 })) memories.push(s);
    expect(memories.length).toBe(9);
    expect(memories.every((s) => s.contributor_user?.id === writer.user.id)).toBe(true);
    const inOne: string[] = [];
    for await (const s of mb.me.submissions({ book: slugs[0], status: 'pending', limit: 1 })) inOne.push(s.book.slug);
    expect(inOne).toEqual([slugs[0], slugs[0], slugs[0]]);
    const subscriptions: MySubscription[] = [];
    for await (const s of mb.me.subscriptions({ limit: 2 })) subscriptions.push(s);
    expect(subscriptions.map((s) => s.book.slug)).toEqual(slugs);
    // Pages of 1 and 2: the helper followed the cursors (one request per page).
    expect(t.attempts.filter((a) => a.path.startsWith('/api/v1/me/memberships/')).length).toBe(3);
    expect(t.attempts.filter((a) => a.path.startsWith('/api/v1/me/submissions/') && a.path.includes('limit=2')).length).toBe(5);
  });
});
