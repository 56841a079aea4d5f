/** POST /me/delete/: the step-up, the scrub inside the request, the purge on the queue, and replays. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newSession, newSubmission, newToken, newUser } from '../../helpers/factories.js';
import { grantFor } from './account-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ worker: true });
});

const DELETE = '/api/v1/me/delete/';
const userRow = (id: string) =>
  t.db.query<Record<string, any>>(`SELECT email, password_hash, first_name, last_name, phone_number, telegram_chat_id, telegram_username,
     imessage_identifier, is_active, deleted_at FROM users WHERE id = $1`, [id]).then((r) => r[0]);

describe('POST /me/delete/ step-up', () => {
  it('a bearer key alone is 403 reauth_required', async () => {
    const u = await newUser(t);
    for (const body of [{}, { password: u.password }]) {
      const res = await t.post(DELETE, body, { token: u.token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('reauth_required');
    }
    expect((await t.get('/api/v1/me/', { token: u.token })).status).toBe(200);
  });

  it("another user's grant is 403 reauth_required, and stays good for its owner", async () => {
    const a = await newUser(t);
    const b = await newUser(t);
    const grant = await grantFor(t, a);
    const res = await t.post(DELETE, { reauth_token: grant }, { token: b.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('reauth_required');
    expect((await t.get('/api/v1/me/', { token: b.token })).status).toBe(200);
    expect((await t.post(DELETE, { reauth_token: grant }, { token: a.token })).status).toBe(200);
  });

  it('an expired grant, a spent grant and a made-up one are 403 reauth_required', async () => {
    const u = await newUser(t);
    const expired = await grantFor(t, u);
    await t.db.query(`UPDATE reauth_grants SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [u.user.id]);
    expect((await t.post(DELETE, { reauth_token: expired }, { token: u.token })).body.code).toBe('reauth_required');
    expect((await t.post(DELETE, { reauth_token: `reauth_${'A'.repeat(40)}` }, { token: u.token })).body.code).toBe('reauth_required');

    // Spent by a request that succeeded: a second account's attempt to reuse it fails like any other.
    const other = await newUser(t);
    const grant = await grantFor(t, other);
    await t.db.query(`UPDATE reauth_grants SET used_at = now() WHERE user_id = $1`, [other.user.id]);
    expect((await t.post(DELETE, { reauth_token: grant }, { token: other.token })).body.code).toBe('reauth_required');
  });

  it('a browser session may send its password; a wrong one is 403 invalid_credentials', async () => {
    const u = await newUser(t);
    const session = await newSession(t, u);
    const wrong = await t.post(DELETE, { password: 'not it' }, { session });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('invalid_credentials');
    const ok = await t.post(DELETE, { password: u.password }, { session });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: 'deleted' });
    expect((await t.get('/api/v1/me/', { session })).status).toBe(401);
  });

  it('limits the route to five requests per 15 minutes per user', async () => {
    const u = await newUser(t);
    for (let i = 0; i < 5; i++) expect((await t.post(DELETE, {}, { token: u.token })).status).toBe(403);
    const res = await t.post(DELETE, {}, { token: u.token });
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('takes one of reauth_token and password (422 for both or unknown fields)', async () => {
    const u = await newUser(t);
    expect((await t.post(DELETE, { reauth_token: 'x', password: 'y' }, { token: u.token })).status).toBe(422);
    expect((await t.post(DELETE, { grant: 'x' }, { token: u.token })).status).toBe(422);
  });
});

describe('POST /me/delete/ with a grant', () => {
  it('scrubs the account and ends every key and session at once; the old key is 401', async () => {
    const u = await newUser(t, { firstName: 'Ada', lastName: 'Lovelace' });
    await t.db.query(`UPDATE users SET phone_number = '+15551234567', telegram_chat_id = '42', telegram_username = 'ada', imessage_identifier = 'ada@icloud.test' WHERE id = $1`, [u.user.id]);
    const second = await newToken(t, u);
    const session = await newSession(t, u);
    const res = await t.post(DELETE, { reauth_token: await grantFor(t, u) }, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'deleted' });

    const row = await userRow(u.user.id);
    expect(row).toMatchObject({
      email: `deleted-${u.user.id}@invalid`,
      password_hash: null,
      first_name: '',
      last_name: '',
      phone_number: null,
      telegram_chat_id: null,
      telegram_username: null,
      imessage_identifier: null,
      is_active: false,
    });
    expect(row.deleted_at).not.toBeNull();
    for (const token of [u.token, second]) {
      const after = await t.get('/api/v1/me/', { token });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('unauthorized');
    }
    expect((await t.get('/api/v1/me/', { session })).status).toBe(401);
    // The address is free again.
    expect((await newUser(t, { email: u.email })).user.id).not.toBe(u.user.id);
  });

  it('a replay with the same key answers the stored 200 without a new grant (and spends nothing)', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const body = { reauth_token: await grantFor(t, u) };
    const first = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    expect(first.status).toBe(200);
    const replay = await t.post(DELETE, body, { token: u.token, idempotencyKey: key });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ status: 'deleted' });
    // A new key with the same (spent) grant is a new request: the revoked key is refused.
    expect((await t.post(DELETE, body, { token: u.token })).status).toBe(401);
    // The replay is still there once the purge has run.
    await eventually(async () => (await t.db.query(`SELECT 1 FROM web_sessions WHERE user_id = $1`, [u.user.id])).length === 0 && (await purged(u.user.id)));
    expect((await t.post(DELETE, body, { token: u.token, idempotencyKey: key })).status).toBe(200);
  });

  it('a replay on a live account does not need a new grant either', async () => {
    // A failed request's answer is replayed too: the grant it named was foreign, and the retry is not run again.
    const a = await newUser(t);
    const b = await newUser(t);
    const key = crypto.randomUUID();
    const foreign = { reauth_token: await grantFor(t, a) };
    expect((await t.post(DELETE, foreign, { token: b.token, idempotencyKey: key })).status).toBe(403);
    const replay = await t.post(DELETE, foreign, { token: b.token, idempotencyKey: key });
    expect(replay.status).toBe(403);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('queues the rest: owned books, memories written in other books, history; keeps memories of others in its books until the book goes', async () => {
    const u = await newUser(t);
    const friend = await newUser(t);
    const own = await newBook(t, u);
    const friendsBook = await newBook(t, friend);
    await addMember(t, friendsBook.slug, u, 'contributor');
    await addMember(t, own.slug, friend, 'admin');
    const written = await newSubmission(t, friendsBook.slug, u);
    const friendsOwn = await newSubmission(t, friendsBook.slug, friend);
    await t.patch('/api/v1/me/', { first_name: 'Before' }, { token: u.token });

    expect((await t.post(DELETE, { reauth_token: await grantFor(t, u) }, { token: u.token })).status).toBe(200);

    await eventually(() => purged(u.user.id));
    // Each owned book is deleted by a job of its own (its backup erasure first), queued by the purge.
    await eventually(async () => (await t.get(`/api/v1/books/${own.slug}/`, { token: friend.token })).status === 404);
    await eventually(async () => (await t.db.query(`SELECT 1 FROM books WHERE slug = $1`, [own.slug])).length === 0);
    expect(await t.db.query(`SELECT 1 FROM submissions WHERE id = $1`, [written.id])).toEqual([]);
    expect(await t.db.query(`SELECT 1 FROM submissions WHERE id = $1`, [friendsOwn.id])).toHaveLength(1);
    expect(await t.db.query(`SELECT 1 FROM book_members WHERE user_id = $1`, [u.user.id])).toEqual([]);
    const audit = await t.db.query<{ event: string }>(`SELECT event FROM audit_events WHERE user_id = $1`, [u.user.id]);
    expect(audit.map((a) => a.event)).toEqual(['account_deleted']);
    // Only the deletion's own stored answer is left (for its replay).
    expect(await t.db.query(`SELECT 1 FROM idempotency_keys WHERE user_id = $1`, [u.user.id])).toHaveLength(1);
    expect(await t.db.query(`SELECT name FROM api_tokens WHERE user_id = $1 AND name <> 'deleted'`, [u.user.id])).toEqual([]);
  });
});

describe('what the owners of other books see', () => {
  it("the account leaves their member lists at once, as member.removed events ({id}); its own webhook endpoints are gone", async () => {
    const u = await newUser(t);
    const owner = await newUser(t);
    const administered = await newBook(t, owner, { plan: 'plus' });
    const contributed = await newBook(t, owner, { plan: 'plus' });
    await addMember(t, administered.slug, u, 'admin');
    await addMember(t, contributed.slug, u, 'contributor');
    // An IP literal: no lookup; and a type that nothing here sends, so no delivery is tried.
    const endpoint = await t.post('/api/v1/webhook_endpoints/', { url: 'https://1.1.1.1/hooks', event_types: ['export.completed'] }, { token: u.token });
    expect(endpoint.status).toBe(201);

    expect((await t.post(DELETE, { reauth_token: await grantFor(t, u) }, { token: u.token })).status).toBe(200);

    for (const { slug } of [administered, contributed]) {
      const members = (await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token })).body.items as any[];
      expect(members.map((m) => m.user_id)).toEqual([owner.user.id]);
      const events = (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'member.removed', book_slug: slug } })).body.items as any[];
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'member.removed', book_slug: slug, data: { object: { id: u.user.id } } });
    }
    expect(await t.db.query(`SELECT 1 FROM webhook_endpoints WHERE user_id = $1`, [u.user.id])).toEqual([]);
    // The purge that follows removes the rows and records nothing twice.
    await eventually(() => purged(u.user.id));
    const again = (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'member.removed' } })).body.items as any[];
    expect(again).toHaveLength(2);
  });
});

describe('before the purge has run', () => {
  let q: TestApp;
  beforeAll(async () => {
    // No worker: the account's membership rows wait for a purge that does not come.
    q = await buildTestApp();
  });

  it('removing the deleted account from a book by hand answers 204 and records no second member.removed', async () => {
    const u = await newUser(q);
    const owner = await newUser(q);
    const book = await newBook(q, owner, { plan: 'plus' });
    await addMember(q, book.slug, u, 'contributor');
    expect((await q.post(DELETE, { reauth_token: await grantFor(q, u) }, { token: u.token })).status).toBe(200);
    expect(await q.db.query(`SELECT 1 FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1 AND m.user_id = $2`, [book.slug, u.user.id])).toHaveLength(1);

    expect((await q.delete(`/api/v1/books/${book.slug}/members/${u.user.id}/`, { token: owner.token })).status).toBe(204);
    const events = (await q.get('/api/v1/events/', { token: owner.token, query: { type: 'member.removed', book_slug: book.slug } })).body.items as any[];
    expect(events).toHaveLength(1);
  });
});

/** The purge has finished. */
async function purged(userId: string): Promise<boolean> {
  return (await t.db.query(`SELECT 1 FROM users WHERE id = $1 AND purged_at IS NOT NULL`, [userId])).length === 1;
}
