/** Invitations: create (normalised, eager or pending), list with a status filter, revoke, expiry. */
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHousekeeping } from '../../../src/housekeeping.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { INVITATION_PHONE_REGION: 'GB' } });
});

const url = (slug: string) => `/api/v1/books/${slug}/invitations/`;
const DAY_MS = 24 * 3600 * 1000;

async function queued(name: string): Promise<any[]> {
  return t.db.query<{ data: any }>(`SELECT data FROM ${t.queue.schema}.job WHERE name = $1 ORDER BY created_on`, [name]).then((rows) => rows.map((r) => r.data));
}

describe('POST /books/{slug}/invitations/', () => {
  it('an unknown email: 201 pending for 14 days, lower-cased, with Location; the mail is queued, not sent in the request', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { title: 'Lake House' })).slug;
    const res = await t.post(url(slug), { identifier_type: 'email', identifier: '  Grace.Hopper@Example.COM ' }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/books/${slug}/invitations/${res.body.id}/`);
    expect(res.body).toMatchObject({
      identifier_type: 'email',
      identifier: 'grace.hopper@example.com',
      role: 'contributor',
      status: 'pending',
      invited_by: owner.user.id,
      accepted_at: null,
      revoked_at: null,
      deep_link: null,
    });
    const ttl = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(ttl).toBe(14 * DAY_MS);
    const mails = (await queued('mail.send')).filter((m) => m.to === 'grace.hopper@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain('Lake House');
    expect(mails[0].text).toMatch(/http:\/\/localhost:8000\/invitations\/[A-Za-z0-9_-]{43}\/\n/);
  });

  it('phones become E.164 (national numbers in the configured region), Telegram handles lose @ and case', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const cases: [string, string, string][] = [
      ['phone', '020 7946 0958', '+442079460958'],
      ['phone', '+1 (415) 555-2671', '+14155552671'],
      ['telegram', '@Grace_Hopper', 'grace_hopper'],
      ['telegram', 'ADA_Lovelace', 'ada_lovelace'],
    ];
    for (const [identifier_type, identifier, normalised] of cases) {
      const res = await t.post(url(slug), { identifier_type, identifier, role: 'admin' }, { token: owner.token });
      expect(res.status, identifier).toBe(201);
      expect(res.body).toMatchObject({ identifier_type, identifier: normalised, role: 'admin', status: 'pending' });
    }
    // The same person written another way is the same invitation.
    const again = await t.post(url(slug), { identifier_type: 'phone', identifier: '+44 20 7946 0958' }, { token: owner.token });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'invitation_pending' });
    // No SMS provider is configured here: nothing is queued for it.
    expect(await queued('sms.send')).toEqual([]);
  });

  it('an existing user: a member at once, status accepted', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const u = await newUser(t);
    const res = await t.post(url(slug), { identifier_type: 'email', identifier: u.email.toUpperCase(), role: 'admin' }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'accepted', role: 'admin', accepted_at: expect.any(String), deep_link: null });
    const members = await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token });
    expect(members.body.items).toContainEqual(expect.objectContaining({ user_id: u.user.id, role: 'admin' }));
    expect((await t.get(`/api/v1/books/${slug}/`, { token: u.token })).status).toBe(200);
    // They are told, by the "you were added" mail (no acceptance link).
    const mail = (await queued('mail.send')).find((m) => m.to === u.email);
    expect(mail.subject).toMatch(/added/);
    expect(mail.text).not.toMatch(/\/invitations\//);
  });

  it('an existing user by phone or Telegram handle is found too', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const [byPhone, byHandle] = [await newUser(t), await newUser(t)];
    await t.db.query(`UPDATE users SET phone_number = '+442079460001' WHERE id = $1`, [byPhone.user.id]);
    await t.db.query(`UPDATE users SET telegram_username = '@Known_Person' WHERE id = $1`, [byHandle.user.id]);
    const p = await t.post(url(slug), { identifier_type: 'phone', identifier: '020 7946 0001' }, { token: owner.token });
    expect(p.body).toMatchObject({ status: 'accepted', identifier: '+442079460001' });
    const h = await t.post(url(slug), { identifier_type: 'telegram', identifier: 'known_person' }, { token: owner.token });
    expect(h.body).toMatchObject({ status: 'accepted', identifier: 'known_person' });
    const ids = (await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token })).body.items.map((m: any) => m.user_id);
    expect(ids).toEqual(expect.arrayContaining([byPhone.user.id, byHandle.user.id]));
  });

  it('an admin may invite; a replay with the same key creates nothing more', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    await addMember(t, slug, admin, 'admin');
    const key = crypto.randomUUID();
    const body = { identifier_type: 'email', identifier: 'replayed@example.test' };
    const first = await t.post(url(slug), body, { token: admin.token, idempotencyKey: key });
    expect(first.status).toBe(201);
    const replay = await t.post(url(slug), body, { token: admin.token, idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await t.get(url(slug), { token: owner.token })).body.items).toHaveLength(1);
  });
});

describe('GET /books/{slug}/invitations/', () => {
  it('lists every state newest first, filters by status, pages and syncs', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const member = await newUser(t);
    const a = (await t.post(url(slug), { identifier_type: 'email', identifier: 'a@example.test' }, { token: owner.token })).body;
    const b = (await t.post(url(slug), { identifier_type: 'email', identifier: 'b@example.test' }, { token: owner.token })).body;
    const c = (await t.post(url(slug), { identifier_type: 'email', identifier: member.email }, { token: owner.token })).body;
    expect((await t.delete(`${url(slug)}${b.id}/`, { token: owner.token })).status).toBe(200);

    const all = await t.get(url(slug), { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.headers['last-modified']).toMatch(/GMT$/);
    expect(all.body.items.map((i: any) => [i.id, i.status])).toEqual([
      [c.id, 'accepted'],
      [b.id, 'revoked'],
      [a.id, 'pending'],
    ]);
    for (const [status, ids] of [['pending', [a.id]], ['revoked', [b.id]], ['accepted', [c.id]], ['expired', []]] as const) {
      const res = await t.get(url(slug), { token: owner.token, query: { status } });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: any) => i.id), status).toEqual(ids);
    }

    const page1 = await t.get(url(slug), { token: owner.token, query: { limit: '2' } });
    expect(page1.body.has_more).toBe(true);
    const page2 = await t.get(url(slug), { token: owner.token, query: { limit: '2', cursor: page1.body.next_cursor } });
    expect(page2.body.items.map((i: any) => i.id)).toEqual([a.id]);
    expect(page2.body.has_more).toBe(false);
    // A cursor belongs to its filter too.
    const crossed = await t.get(url(slug), { token: owner.token, query: { limit: '2', status: 'pending', cursor: page1.body.next_cursor } });
    expect(crossed.status).toBe(400);
    expect(crossed.body.code).toBe('query_param_invalid');

    const since = all.headers['last-modified'] as string;
    await new Promise((r) => setTimeout(r, 1100));
    await t.delete(`${url(slug)}${a.id}/`, { token: owner.token });
    const changed = await t.get(url(slug), { token: owner.token, query: { updated_since: since } });
    expect(changed.body.items.at(-1)).toMatchObject({ id: a.id, status: 'revoked' });
  });

  it('an unknown status is 400 query_param_invalid', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const res = await t.get(url(slug), { token: owner.token, query: { status: 'cancelled' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'query_param_invalid', details: { param: 'status', value: 'cancelled' } });
  });
});

describe('DELETE /books/{slug}/invitations/{id}/', () => {
  it('revokes and keeps the row; a repeat says already_revoked; a revoked invitation never blocks a new one', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const inv = (await t.post(url(slug), { identifier_type: 'email', identifier: 'later@example.test' }, { token: owner.token })).body;
    const res = await t.delete(`${url(slug)}${inv.id}/`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: inv.id, status: 'revoked', revoked_at: expect.any(String), already_revoked: false });
    const again = await t.delete(`${url(slug)}${inv.id}/`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: inv.id, status: 'revoked', already_revoked: true, revoked_at: res.body.revoked_at });
    const renewed = await t.post(url(slug), { identifier_type: 'email', identifier: 'LATER@example.test' }, { token: owner.token });
    expect(renewed.status).toBe(201);
    expect(renewed.body.status).toBe('pending');
    expect((await t.get(url(slug), { token: owner.token })).body.items).toHaveLength(2);
  });
});

describe('expiry', () => {
  it('a pending invitation reads as expired once past expires_at, the housekeeping step writes it, and it no longer blocks', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const inv = (await t.post(url(slug), { identifier_type: 'email', identifier: 'slow@example.test' }, { token: owner.token })).body;
    const other = (await t.post(url(slug), { identifier_type: 'email', identifier: 'fresh@example.test' }, { token: owner.token })).body;
    await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [inv.id]);

    const read = await t.get(url(slug), { token: owner.token, query: { status: 'expired' } });
    expect(read.body.items.map((i: any) => i.id)).toEqual([inv.id]);
    const [stored] = await t.db.query<{ status: string; updated_at: string }>(`SELECT status, updated_at FROM invitations WHERE id = $1`, [inv.id]);
    expect(stored.status).toBe('pending');

    await createHousekeeping({ services: t.services, log: pino({ level: 'silent' }), requestTimeoutMs: 60_000 }).run();
    const [swept] = await t.db.query<{ status: string; updated_at: string }>(`SELECT status, updated_at FROM invitations WHERE id = $1`, [inv.id]);
    expect(swept.status).toBe('expired');
    expect(swept.updated_at > stored.updated_at).toBe(true);
    const [untouched] = await t.db.query<{ status: string }>(`SELECT status FROM invitations WHERE id = $1`, [other.id]);
    expect(untouched.status).toBe('pending');

    // Revoking an expired invitation is not a move it can make.
    const revoke = await t.delete(`${url(slug)}${inv.id}/`, { token: owner.token });
    expect({ status: revoke.status, code: revoke.body.code }).toEqual({ status: 409, code: 'invalid_state' });
    const renewed = await t.post(url(slug), { identifier_type: 'email', identifier: 'slow@example.test' }, { token: owner.token });
    expect(renewed.status).toBe(201);
  });

  it('an expired invitation that the sweep has not reached yet does not block a new one either', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const inv = (await t.post(url(slug), { identifier_type: 'telegram', identifier: 'late_bird' }, { token: owner.token })).body;
    await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [inv.id]);
    const renewed = await t.post(url(slug), { identifier_type: 'telegram', identifier: '@Late_Bird' }, { token: owner.token });
    expect(renewed.status).toBe(201);
    const statuses = (await t.get(url(slug), { token: owner.token })).body.items.map((i: any) => i.status);
    expect(statuses).toEqual(['pending', 'expired']);
  });
});
