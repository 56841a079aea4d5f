/**
 * Every event type, produced by its change through each path that makes it
 * (API, web form, inbound channel, invitation link, CLI, jobs), with
 * data.object equal to what the resource's GET (or list) answers right
 * after; GET /events/ and /events/{id}/ (who sees what, filters, paging);
 * and a change rolled back leaves no event.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { readFixture, ensureFixtures } from '../../helpers/media-fixtures.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { fileUpload } from '../../helpers/multipart.js';

/** Signed URLs are minted afresh on every read: the same resource read twice differs only in them. */
function unsigned(o: any): any {
  if (Array.isArray(o)) return o.map(unsigned);
  if (!o || typeof o !== 'object') return o;
  return Object.fromEntries(Object.entries(o).filter(([k]) => !k.endsWith('_url') && k !== 'urls_expire_at').map(([k, v]) => [k, unsigned(v)]));
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

async function events(u: TestUser, query: Record<string, string> = {}) {
  const res = await t.get('/api/v1/events/', { token: u.token, query });
  expect(res.status).toBe(200);
  return res.body.items as any[];
}
async function latest(u: TestUser, type: string, bookSlug: string) {
  const [e] = await events(u, { type, book_slug: bookSlug, limit: '1' });
  expect(e, `no ${type} event`).toBeDefined();
  expect(e).toMatchObject({ type, book_slug: bookSlug });
  return e;
}
const subPath = (slug: string, id = '') => `/api/v1/books/${slug}/submissions/${id ? `${id}/` : ''}`;

describe('events of submissions', () => {
  it('created (API, web form, inbound), updated, approved, pinned, unpinned, rejected, deleted: each with the GET answer', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus', isPublic: true });
    const created = await t.post(subPath(slug), { text_content: 'first' }, { token: owner.token });
    const id = created.body.id;
    let e = await latest(owner, 'submission.created', slug);
    expect(e.data.object).toEqual((await t.get(subPath(slug, id), { token: owner.token })).body);
    expect(e.data.object).toEqual(created.body);

    const updated = await t.patch(subPath(slug, id), { text_content: 'edited' }, { token: owner.token });
    e = await latest(owner, 'submission.updated', slug);
    expect(e.data.object).toEqual(updated.body);
    expect(e.data.object).toEqual((await t.get(subPath(slug, id), { token: owner.token })).body);

    for (const [action, type] of [
      ['approve', 'submission.approved'],
      ['pin', 'submission.pinned'],
      ['unpin', 'submission.unpinned'],
      ['reject', 'submission.rejected'],
    ]) {
      const moved = await t.post(`${subPath(slug, id)}${action}/`, action === 'reject' ? { reason: 'no' } : undefined, { token: owner.token });
      expect(moved.status, moved.text).toBe(200);
      e = await latest(owner, type, slug);
      expect(unsigned(e.data.object)).toEqual(unsigned((await t.get(subPath(slug, id), { token: owner.token })).body));
    }
    // A move to the state already held is no change: no event.
    const before = (await events(owner, { book_slug: slug })).length;
    await t.post(`${subPath(slug, id)}reject/`, { reason: 'no' }, { token: owner.token });
    expect(await events(owner, { book_slug: slug })).toHaveLength(before);

    // The web form (no account) and an inbound channel (a member's SMS).
    const web = await t.services.submissions.createWebSubmission(slug, { text: 'from the form', name: 'Ann' });
    e = await latest(owner, 'submission.created', slug);
    expect(e.data.object).toEqual((await t.get(subPath(slug, web.id), { token: owner.token })).body);
    expect(e.data.object.source).toBe('web');
    const sms = await t.db.transaction((tx) => t.services.submissions.receiveInbound(tx, { slug, userId: owner.user.id, text: 'by sms', source: 'sms', contributorName: null }));
    if (!('submission' in sms)) throw new Error(`refused: ${sms.refused}`);
    e = await latest(owner, 'submission.created', slug);
    expect(e.data.object).toEqual((await t.get(subPath(slug, sms.submission.id), { token: owner.token })).body);

    expect((await t.delete(subPath(slug, id), { token: owner.token })).status).toBe(204);
    e = await latest(owner, 'submission.deleted', slug);
    expect(e.data.object).toEqual({ id });
  });

  it('media.processed: the Media as GET answers it once processed (by the job)', async () => {
    await ensureFixtures(['jpeg']);
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const sub = await t.post(subPath(slug), { text_content: 'with a photo' }, { token: owner.token });
    const body = fileUpload(await readFixture('jpeg'), { filename: 'p.jpg', contentType: 'image/jpeg' });
    const up = await t.request('POST', `${subPath(slug, sub.body.id)}media/`, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType } });
    expect(up.status, up.text).toBe(201);
    await t.services.mediaProcessing.process(up.body.id, { signal: new AbortController().signal, lastAttempt: true });
    const e = await latest(owner, 'media.processed', slug);
    const media = await t.get(String(up.headers.location), { token: owner.token });
    expect(media.body.processing_status).toBe('complete');
    expect(unsigned(e.data.object)).toEqual(unsigned(media.body));
    expect(e.data.object.download_url).toEqual(expect.any(String));
  });

  it('submission.updated when a file is added to or removed from a memory (an approved one goes back to pending)', async () => {
    await ensureFixtures(['jpeg']);
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const id = (await t.post(subPath(slug), { text_content: 'a photo comes later' }, { token: owner.token })).body.id;
    const approved = await t.post(`${subPath(slug, id)}approve/`, undefined, { token: owner.token });
    expect(approved.body.submission.status, approved.text).toBe('approved');
    const body = fileUpload(await readFixture('jpeg'), { filename: 'p.jpg', contentType: 'image/jpeg' });
    const up = await t.request('POST', `${subPath(slug, id)}media/`, { token: owner.token, payload: body.payload, headers: { 'content-type': body.contentType } });
    expect(up.status, up.text).toBe(201);
    let e = await latest(owner, 'submission.updated', slug);
    let now = (await t.get(subPath(slug, id), { token: owner.token })).body;
    expect(now.status).toBe('pending');
    expect(now.media.map((m: any) => m.id)).toEqual([up.body.id]);
    expect(unsigned(e.data.object)).toEqual(unsigned(now));

    expect((await t.delete(`${subPath(slug, id)}media/${up.body.id}/`, { token: owner.token })).status).toBe(204);
    e = await latest(owner, 'submission.updated', slug);
    now = (await t.get(subPath(slug, id), { token: owner.token })).body;
    expect(now.media).toEqual([]);
    expect(e.data.object).toEqual(now);
    expect(await events(owner, { type: 'submission.updated', book_slug: slug })).toHaveLength(2);
  });
});

describe('events of books, members, invitations and exports', () => {
  it('book.updated, book.archived, book.restored, book.deleted', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'new' }, { token: owner.token });
    let e = await latest(owner, 'book.updated', slug);
    expect(e.data.object).toEqual((await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body);
    await t.post(`/api/v1/books/${slug}/archive/`, undefined, { token: owner.token });
    e = await latest(owner, 'book.archived', slug);
    expect(e.data.object).toEqual((await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body);
    await t.post(`/api/v1/books/${slug}/restore/`, undefined, { token: owner.token });
    e = await latest(owner, 'book.restored', slug);
    expect(e.data.object).toEqual((await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body);
    expect((await t.delete(`/api/v1/books/${slug}/`, { token: owner.token })).status).toBe(204);
    e = await latest(owner, 'book.deleted', slug);
    expect(e.data.object).toEqual({ slug });
  });

  it("book.updated when the operator moves the book to another plan or into its grace period (the book's plan and updated_at change)", async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const before = (await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body;
    await t.services.billing.setPlan(slug, 'plus');
    let e = await latest(owner, 'book.updated', slug);
    const after = (await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body;
    expect(after).toMatchObject({ plan: 'plus' });
    expect(after.etag).not.toBe(before.etag);
    expect(e.data.object).toEqual(after);
    await t.services.billing.setGracePeriod(slug, new Date(Date.now() + 86_400_000).toISOString());
    e = await latest(owner, 'book.updated', slug);
    expect(e.data.object).toEqual((await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).body);
    expect((await events(owner, { type: 'book.updated', book_slug: slug })).length).toBe(2);
  });

  it('member.added (API, CLI, invitation), invitation.accepted (eager and by link), member.removed; who receives is decided when it happens', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const members = async () => (await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token })).body.items as any[];
    // API
    await t.post(`/api/v1/books/${slug}/members/`, { user_id: admin.user.id, role: 'admin' }, { token: owner.token });
    let e = await latest(owner, 'member.added', slug);
    expect(e.data.object).toEqual((await members()).find((m) => m.user_id === admin.user.id));
    // The admin hears of what happens from now on.
    await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'seen by the admin' }, { token: owner.token });
    const seen = await latest(admin, 'book.updated', slug);
    // CLI
    const cliUser = await newUser(t);
    await t.services.members.addMemberAsOwner(slug, { userId: cliUser.user.id }, 'contributor');
    e = await latest(owner, 'member.added', slug);
    expect(e.data.object).toEqual((await members()).find((m) => m.user_id === cliUser.user.id));
    // An invitation to an existing account joins at once: member.added and invitation.accepted.
    const invitee = await newUser(t);
    const inv = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: invitee.email }, { token: owner.token });
    expect(inv.body.status).toBe('accepted');
    e = await latest(owner, 'invitation.accepted', slug);
    const invitations = (await t.get(`/api/v1/books/${slug}/invitations/`, { token: owner.token })).body.items as any[];
    expect(e.data.object).toEqual(invitations.find((i) => i.id === inv.body.id));
    // By link: a new address, accepted by the account that signs up with it.
    const later = `later-${crypto.randomUUID().slice(0, 6)}@example.test`;
    const pending = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: later }, { token: owner.token });
    const [job] = await t.db.query<{ data: { text: string } }>(`SELECT data FROM ${t.queue.schema}.job WHERE name = 'mail.send' AND data->>'to' = $1`, [later]);
    const token = /\/invitations\/([A-Za-z0-9_-]{43})\//.exec(job.data.text)![1];
    const joiner = await newUser(t, { email: later });
    await t.services.invitations.acceptInvitationLink(joiner.user, token);
    e = await latest(owner, 'invitation.accepted', slug);
    const afterLink = (await t.get(`/api/v1/books/${slug}/invitations/`, { token: owner.token })).body.items as any[];
    expect(e.data.object).toEqual(afterLink.find((i) => i.id === pending.body.id));
    expect(e.data.object.status).toBe('accepted');
    e = await latest(owner, 'member.added', slug);
    expect(e.data.object.user_id).toBe(joiner.user.id);

    // Removed: the event goes to the owner, not to the admin removed by it; their older events stay theirs.
    await t.delete(`/api/v1/books/${slug}/members/${admin.user.id}/`, { token: owner.token });
    e = await latest(owner, 'member.removed', slug);
    // Named by user_id as member.added's Member names it (id kept for receivers written before).
    expect(e.data.object).toEqual({ id: admin.user.id, user_id: admin.user.id });
    expect(await events(admin, { type: 'member.removed' })).toEqual([]);
    await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'after' }, { token: owner.token });
    expect((await events(admin, { type: 'book.updated' })).map((x) => x.id)).toEqual([seen.id]);
  });

  it('export.completed and export.failed (the render job), with the ExportJob as GET answers it', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const made = await t.post(`/api/v1/books/${slug}/exports/`, { theme: 'storybook', export_format: 'json' }, { token: owner.token });
    expect(made.status, made.text).toBe(202);
    await t.services.exportPipeline.run(made.body.id, { signal: new AbortController().signal, attempt: 1, attempts: 4 });
    let e = await latest(owner, 'export.completed', slug);
    expect(e.data.object).toEqual((await t.get(`/api/v1/books/${slug}/exports/${made.body.id}/`, { token: owner.token })).body);
    expect(e.data.object.status).toBe('complete');
    const other = await t.post(`/api/v1/books/${slug}/exports/`, { theme: 'storybook', export_format: 'json' }, { token: owner.token });
    await t.services.exportPipeline.run(other.body.id, { signal: new AbortController().signal, attempt: 5, attempts: 4 });
    e = await latest(owner, 'export.failed', slug);
    expect(e.data.object).toEqual((await t.get(`/api/v1/books/${slug}/exports/${other.body.id}/`, { token: owner.token })).body);
    expect(e.data.object.status).toBe('failed');
  });
});

describe('GET /events/', () => {
  it('newest first, cursor paging, type and book_slug filters; another user sees none of them (404 for one)', async () => {
    const owner = await newUser(t);
    const a = await newBook(t, owner);
    const b = await newBook(t, owner);
    for (const s of ['one', 'two', 'three']) await t.patch(`/api/v1/books/${a.slug}/`, { subtitle: s }, { token: owner.token });
    await t.post(`/api/v1/books/${b.slug}/archive/`, undefined, { token: owner.token });
    const all = await events(owner);
    expect(all.map((e) => e.type)).toEqual(['book.archived', 'book.updated', 'book.updated', 'book.updated', 'book.created', 'book.created']);
    expect(all.map((e) => e.data.object.subtitle).slice(1, 4)).toEqual(['three', 'two', 'one']);
    // Each book's events numbered in order: b created (1) and archived (2); a created (1), then three updates.
    expect(all.map((e) => e.sequence)).toEqual([2, 4, 3, 2, 1, 1]);
    const p1 = await t.get('/api/v1/events/', { token: owner.token, query: { limit: '3' } });
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.get('/api/v1/events/', { token: owner.token, query: { limit: '3', cursor: p1.body.next_cursor } });
    expect([...p1.body.items, ...p2.body.items].map((e: any) => e.id)).toEqual(all.map((e) => e.id));
    expect(p2.body.has_more).toBe(false);
    expect((await events(owner, { book_slug: b.slug })).map((e) => e.type)).toEqual(['book.archived', 'book.created']);
    expect(await events(owner, { type: 'book.deleted' })).toEqual([]);
    const bad = await t.get('/api/v1/events/', { token: owner.token, query: { type: 'nope' } });
    expect(bad.status).toBe(400);
    const one = await t.get(`/api/v1/events/${all[0].id}/`, { token: owner.token });
    expect(one.body).toEqual(all[0]);

    const stranger = await newUser(t);
    expect(await events(stranger)).toEqual([]);
    const hidden = await t.get(`/api/v1/events/${all[0].id}/`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect((await t.get('/api/v1/events/x/', { token: stranger.token })).status).toBe(404);
    expect((await t.get('/api/v1/events/')).status).toBe(401);
  });

  it('a change rolled back emits nothing; events past 30 days are gone (housekeeping)', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const before = await events(owner, { book_slug: slug });
    await expect(
      t.db.transaction(async (tx) => {
        await t.services.submissions.createSubmission(tx, owner.user, slug, { text_content: 'never' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A request that fails after the change (412 on a stale If-Match) also leaves none.
    await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'x' }, { token: owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(await events(owner, { book_slug: slug })).toEqual(before);

    await t.patch(`/api/v1/books/${slug}/`, { subtitle: 'old news' }, { token: owner.token });
    const [old] = await events(owner, { book_slug: slug, limit: '1' });
    await t.db.query(`UPDATE events SET created_at = created_at - interval '31 days' WHERE id = $1`, [old.id]);
    await t.db.query(`UPDATE event_recipients SET created_at = created_at - interval '31 days' WHERE event_id = $1`, [old.id]);
    expect((await t.get(`/api/v1/events/${old.id}/`, { token: owner.token })).status).toBe(404);
    expect(await t.services.events.removeExpired()).toBeGreaterThanOrEqual(1);
    expect(await t.db.query(`SELECT id FROM events WHERE id = $1`, [old.id])).toEqual([]);
  });
});
