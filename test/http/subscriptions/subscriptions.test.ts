/**
 * GET and DELETE /books/{slug}/notifications/subscriptions/…: listed by the
 * owner and admins (active and inactive rows), cancelled by them or by the
 * subscriber; another contributor's is 403; a repeat is already_inactive.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser, setGrace, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const url = (slug: string, id?: string) => `/api/v1/books/${slug}/notifications/subscriptions/${id ? `${id}/` : ''}`;
const FIELDS = ['channel', 'created_at', 'id', 'is_active', 'kind', 'updated_at', 'user_id'];

async function setting() {
  const owner = await newUser(t);
  const admin = await newUser(t);
  const contributor = await newUser(t);
  const other = await newUser(t);
  const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
  await addMember(t, slug, admin, 'admin');
  await addMember(t, slug, contributor, 'contributor');
  await addMember(t, slug, other, 'contributor');
  return { owner, admin, contributor, other, slug };
}
const subscribe = (slug: string, u: TestUser, kind: 'new_submission' | 'digest' = 'new_submission') =>
  t.services.subscriptions.createSubscription({ slug, email: u.email, kind });

describe('list', () => {
  it('owner and admin see every subscription, active and inactive, newest first, with exactly the documented fields', async () => {
    const { owner, admin, contributor, slug } = await setting();
    const a = await subscribe(slug, owner);
    const b = await subscribe(slug, contributor, 'digest');
    expect((await t.delete(url(slug, a.id), { token: owner.token })).status).toBe(200);
    for (const who of [owner, admin]) {
      const res = await t.get(url(slug), { token: who.token });
      expect(res.status).toBe(200);
      expect(res.headers['last-modified']).toBeTruthy();
      expect(res.body.has_more).toBe(false);
      expect(res.body.items.map((s: any) => [s.id, s.is_active])).toEqual([
        [b.id, true],
        [a.id, false],
      ]);
      expect(Object.keys(res.body.items[0]).sort()).toEqual(FIELDS);
      expect(res.body.items[0]).toMatchObject({ user_id: contributor.user.id, channel: 'email', kind: 'digest' });
    }
  });

  it('pages with a cursor, and updated_since brings a cancelled row back in a sync', async () => {
    const { owner, admin, contributor, other, slug } = await setting();
    for (const u of [owner, admin, contributor, other]) await subscribe(slug, u);
    const first = await t.get(url(slug), { token: owner.token, query: { limit: '3' } });
    expect(first.body).toMatchObject({ has_more: true });
    const second = await t.get(url(slug), { token: owner.token, query: { limit: '3', cursor: first.body.next_cursor } });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.items.length).toBe(1);

    const since = first.headers['last-modified'] as string;
    await new Promise((r) => setTimeout(r, 1100));
    const cancelled = first.body.items[1];
    await t.delete(url(slug, cancelled.id), { token: owner.token });
    const sync = await t.get(url(slug), { token: owner.token, query: { updated_since: since } });
    expect(sync.body.items.map((s: any) => s.id)).toContain(cancelled.id);
    expect(sync.body.items.find((s: any) => s.id === cancelled.id).is_active).toBe(false);
  });

  it('a contributor: 403; a non-member: 404; a bad query: 400', async () => {
    const { owner, contributor, slug } = await setting();
    const outsider = await newUser(t);
    expect((await t.get(url(slug), { token: contributor.token })).body.code).toBe('insufficient_role');
    expect((await t.get(url(slug), { token: outsider.token })).status).toBe(404);
    const bad = await t.get(url(slug), { token: owner.token, query: { limit: '0' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('query_param_invalid');
  });
});

describe('cancel', () => {
  it('the subscriber, a contributor, cancels their own: inactive, then already_inactive on repeat', async () => {
    const { owner, contributor, slug } = await setting();
    const s = await subscribe(slug, contributor);
    const res = await t.delete(url(slug, s.id), { token: contributor.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: s.id, user_id: contributor.user.id, is_active: false, already_inactive: false });
    expect(res.body.updated_at > s.updated_at).toBe(true);
    const again = await t.delete(url(slug, s.id), { token: contributor.token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ is_active: false, already_inactive: true, updated_at: res.body.updated_at });
    // The row stays listed.
    expect((await t.get(url(slug), { token: owner.token })).body.items.map((x: any) => [x.id, x.is_active])).toEqual([[s.id, false]]);
  });

  it("the owner and an admin cancel anyone's", async () => {
    const { owner, admin, contributor, other, slug } = await setting();
    const a = await subscribe(slug, contributor);
    const b = await subscribe(slug, other);
    expect((await t.delete(url(slug, a.id), { token: owner.token })).body).toMatchObject({ is_active: false, already_inactive: false });
    expect((await t.delete(url(slug, b.id), { token: admin.token })).body).toMatchObject({ is_active: false, already_inactive: false });
  });

  it("another contributor's: 403 insufficient_role, and it stays active", async () => {
    const { owner, contributor, other, slug } = await setting();
    const s = await subscribe(slug, other);
    const res = await t.delete(url(slug, s.id), { token: contributor.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_role');
    // The role answer comes before the Idempotency-Key is looked at.
    const noKey = await t.delete(url(slug, s.id), { token: contributor.token, idempotencyKey: false });
    expect(noKey.body.code).toBe('insufficient_role');
    expect((await t.get(url(slug), { token: owner.token })).body.items[0].is_active).toBe(true);
  });

  it('a replay with the same Idempotency-Key answers the first result; no key: 428', async () => {
    const { owner, contributor, slug } = await setting();
    const s = await subscribe(slug, contributor);
    const key = crypto.randomUUID();
    const first = await t.delete(url(slug, s.id), { token: owner.token, idempotencyKey: key });
    const replay = await t.delete(url(slug, s.id), { token: owner.token, idempotencyKey: key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(replay.body.already_inactive).toBe(false);
    const noKey = await t.delete(url(slug, s.id), { token: owner.token, idempotencyKey: false });
    expect(noKey.status).toBe(428);
    expect(noKey.body.code).toBe('idempotency_key_required');
  });

  it('unknown, malformed or another book\'s id: 404; a non-member: 404', async () => {
    const { owner, slug } = await setting();
    const elsewhere = await setting();
    const foreign = await subscribe(elsewhere.slug, elsewhere.owner);
    for (const id of [crypto.randomUUID(), 'not-an-id', foreign.id]) {
      const res = await t.delete(url(slug, id), { token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await t.delete(url(elsewhere.slug, foreign.id), { token: owner.token })).status).toBe(404);
  });

  it('in the grace period: 403 book_grace_period, like every write to a book', async () => {
    const { owner, contributor, slug } = await setting();
    const s = await subscribe(slug, contributor);
    await setGrace(t, slug, true);
    const res = await t.delete(url(slug, s.id), { token: contributor.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('book_grace_period');
    await setGrace(t, slug, false);
    expect((await t.delete(url(slug, s.id), { token: owner.token })).body.already_inactive).toBe(false);
  });
});
