/**
 * Inbound SMS (Twilio's webhook): signed deliveries from invited numbers
 * accept the invitation and become pending memories; forged, unsigned and
 * replayed ones are refused and change nothing.
 */
import { rmSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { buildTestApp, testConfig, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { messagingEnv, newPhone, postSms, PUBLIC_URL, sign, SMS_PATH, smsParams, snapshot, TWILIO } from './webhook-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: messagingEnv() });
});

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

async function invite(slug: string, token: string, identifier: string, role?: 'admin' | 'contributor') {
  const res = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'phone', identifier, ...(role ? { role } : {}) }, { token });
  expect(res.status).toBe(201);
  return res.body;
}
const invitation = async (id: string) => (await t.db.query<any>(`SELECT status, accepted_user_id FROM invitations WHERE id = $1`, [id]))[0];
const submissionsOf = async (slug: string) =>
  t.db.query<any>(
    `SELECT s.id, s.text_content, s.source, s.status, s.contributor_user_id, s.contributor_email FROM submissions s JOIN books b ON b.id = s.book_id
     WHERE b.slug = $1 ORDER BY s.created_at, s.id`,
    [slug],
  );

describe('a signed SMS from an invited number', () => {
  it('accepts the invitation, creates the contributor (phone, no email, no password) and becomes a pending sms memory', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    // Written as a person would type it; stored (and matched) in E.164.
    const inv = await invite(slug, owner.token, phone.replace(/^\+44(\d{2})(\d{4})(\d{4})$/, '+44 ($1) $2-$3'), 'contributor');
    expect(inv.identifier).toBe(phone);

    const res = await postSms(t, smsParams(phone, '  Grandma taught me to swim in that lake.  '));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(res.body).toBe(EMPTY_TWIML);

    const [user] = await t.db.query<any>(`SELECT id, email, password_hash, phone_number FROM users WHERE phone_number = $1`, [phone]);
    expect(user).toMatchObject({ email: null, password_hash: null, phone_number: phone });
    expect(await invitation(inv.id)).toEqual({ status: 'accepted', accepted_user_id: user.id });
    const members = (await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token })).body.items;
    expect(members.find((m: any) => m.user_id === user.id)).toMatchObject({ role: 'contributor', email: null });

    const [memory] = await submissionsOf(slug);
    expect(memory).toMatchObject({ text_content: 'Grandma taught me to swim in that lake.', source: 'sms', status: 'pending', contributor_user_id: user.id, contributor_email: null });
    // Through the API it is an ordinary pending submission.
    const listed = (await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).body.items;
    expect(listed[0]).toMatchObject({ id: memory.id, source: 'sms', status: 'pending', contributor_user: { id: user.id } });
    // The invitation list shows it accepted.
    expect((await t.get(`/api/v1/books/${slug}/invitations/?status=accepted`, { token: owner.token })).body.items.map((i: any) => i.id)).toEqual([inv.id]);
  });

  it('later messages from the member become memories too, in the book of the invitation they accepted last', async () => {
    const owner = await newUser(t);
    const first = (await newBook(t, owner, { plan: 'plus' })).slug;
    const second = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    await invite(first, owner.token, phone);
    expect((await postSms(t, smsParams(phone, 'one'))).statusCode).toBe(200);
    expect((await postSms(t, smsParams(phone, 'two'))).statusCode).toBe(200);
    expect((await submissionsOf(first)).map((s) => s.text_content)).toEqual(['one', 'two']);

    await invite(second, owner.token, phone);
    expect((await postSms(t, smsParams(phone, 'three'))).statusCode).toBe(200);
    expect((await postSms(t, smsParams(phone, 'four'))).statusCode).toBe(200);
    expect((await submissionsOf(second)).map((s) => s.text_content)).toEqual(['three', 'four']);
    expect((await submissionsOf(first)).map((s) => s.text_content)).toEqual(['one', 'two']);
    // One account for the number, whatever the number of books.
    expect((await t.db.query(`SELECT id FROM users WHERE phone_number = $1`, [phone])).length).toBe(1);
  });

  it('an existing account with that number joins (keeping a role it has) instead of a new account being made', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const known = await newUser(t);
    const phone = newPhone();
    await t.db.query(`UPDATE users SET phone_number = $2 WHERE id = $1`, [known.user.id, phone]);
    // The identifier matches an existing user, so the invitation is accepted at once; their texts are memories.
    expect((await invite(slug, owner.token, phone)).status).toBe('accepted');
    const before = (await t.db.query(`SELECT id FROM users`)).length;
    expect((await postSms(t, smsParams(phone, 'from a known number'))).statusCode).toBe(200);
    expect((await t.db.query(`SELECT id FROM users`)).length).toBe(before);
    expect((await submissionsOf(slug))[0]).toMatchObject({ contributor_user_id: known.user.id, contributor_email: known.email, source: 'sms' });
  });

  it('a book whose plan has no SMS channel accepts the invitation but takes no memory by SMS', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug; // free: web and email only
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);
    expect((await postSms(t, smsParams(phone, 'hello'))).statusCode).toBe(200);
    expect((await invitation(inv.id)).status).toBe('accepted');
    expect(await submissionsOf(slug)).toEqual([]);
    const [row] = await t.db.query<any>(`SELECT outcome FROM inbound_messages WHERE provider = 'twilio' ORDER BY created_at DESC LIMIT 1`);
    expect(row.outcome).toBe('refused:channel_not_enabled');
  });

  it('a book at its member cap leaves the invitation pending, and no account is made', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);
    await t.db.query(`UPDATE plans SET max_members_per_book = 1 WHERE slug = 'plus'`);
    try {
      expect((await postSms(t, smsParams(phone, 'let me in'))).statusCode).toBe(200);
    } finally {
      await t.db.query(`UPDATE plans SET max_members_per_book = 25 WHERE slug = 'plus'`);
    }
    expect((await invitation(inv.id)).status).toBe('pending');
    expect(await t.db.query(`SELECT id FROM users WHERE phone_number = $1`, [phone])).toEqual([]);
    expect(await submissionsOf(slug)).toEqual([]);
  });

  it('a number nobody invited is answered 200 and changes nothing but the record of the delivery', async () => {
    const before = await t.db.query<any>(`SELECT count(*)::int AS n FROM users`);
    const res = await postSms(t, smsParams(newPhone(), 'who is this?'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(EMPTY_TWIML);
    expect(await t.db.query<any>(`SELECT count(*)::int AS n FROM users`)).toEqual(before);
  });
});

describe('refused deliveries change nothing', () => {
  async function pendingInvitation() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);
    return { slug, phone, inv };
  }

  it('no signature: 403', async () => {
    const { phone, inv } = await pendingInvitation();
    const before = await snapshot(t);
    const res = await postSms(t, smsParams(phone, 'unsigned'), { signature: null });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', request_id: res.headers['x-request-id'] });
    expect(await snapshot(t)).toBe(before);
    expect((await invitation(inv.id)).status).toBe('pending');
  });

  it.each([
    ['a signature under another auth token', (url: string, p: Record<string, string>) => sign(url, p, 'not-the-auth-token')],
    ['a signature of other parameters', (url: string, p: Record<string, string>) => sign(url, { ...p, Body: 'what was really sent' })],
    ['a signature of another URL', (_url: string, p: Record<string, string>) => sign(`${PUBLIC_URL}/elsewhere/`, p)],
    ['garbage', () => 'bm90IGEgc2lnbmF0dXJl'],
    ['an empty header', () => ''],
  ])('forged (%s): 403', async (_name, forge) => {
    const { phone, inv } = await pendingInvitation();
    const params = smsParams(phone, 'forged');
    const before = await snapshot(t);
    const res = await postSms(t, params, { signature: forge(`${PUBLIC_URL}${SMS_PATH}`, params) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    expect(await snapshot(t)).toBe(before);
    expect((await invitation(inv.id)).status).toBe('pending');
  });

  it('a signed body sent as JSON instead of a form: 403', async () => {
    const { phone } = await pendingInvitation();
    const params = smsParams(phone, 'json');
    const before = await snapshot(t);
    const res = await t.app.inject({
      method: 'POST',
      url: SMS_PATH,
      headers: { 'content-type': 'application/json', 'x-twilio-signature': sign(`${PUBLIC_URL}${SMS_PATH}`, params) },
      payload: JSON.stringify(params),
    });
    expect(res.statusCode).toBe(403);
    expect(await snapshot(t)).toBe(before);
  });

  it('replayed (the same MessageSid again, correctly signed): 403, and the first delivery stands alone', async () => {
    const { slug, phone } = await pendingInvitation();
    const params = smsParams(phone, 'only once');
    expect((await postSms(t, params)).statusCode).toBe(200);
    const before = await snapshot(t);
    const again = await postSms(t, params);
    expect(again.statusCode).toBe(403);
    expect(again.json().code).toBe('forbidden');
    // Same MessageSid, other content (re-signed by someone holding the token): still the same delivery.
    expect((await postSms(t, { ...params, Body: 'twice?' })).statusCode).toBe(403);
    expect(await snapshot(t)).toBe(before);
    expect((await submissionsOf(slug)).map((s) => s.text_content)).toEqual(['only once']);
  });

  it('two deliveries of one message at the same moment: exactly one is taken', async () => {
    const { slug, phone } = await pendingInvitation();
    const params = smsParams(phone, 'racing');
    const answers = await Promise.all([postSms(t, params), postSms(t, params)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 403]);
    expect((await submissionsOf(slug)).map((s) => s.text_content)).toEqual(['racing']);
  });

  it('the query string is part of what is signed', async () => {
    const { slug, phone } = await pendingInvitation();
    const params = smsParams(phone, 'with a query');
    const path = `${SMS_PATH}?book=x`;
    expect((await postSms(t, params, { path, signature: sign(`${PUBLIC_URL}${SMS_PATH}`, params) })).statusCode).toBe(403);
    expect((await postSms(t, params, { path })).statusCode).toBe(200);
    expect((await submissionsOf(slug)).map((s) => s.text_content)).toEqual(['with a query']);
  });

  it('the URL may be signed with the default port spelled out', async () => {
    const { slug, phone } = await pendingInvitation();
    const params = smsParams(phone, 'port 443');
    expect((await postSms(t, params, { signature: sign(`https://memories.example.test:443${SMS_PATH}`, params) })).statusCode).toBe(200);
    expect((await submissionsOf(slug)).length).toBe(1);
  });
});

describe('the route', () => {
  it('is outside the API and its document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.includes('/webhooks/'))).toEqual([]);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1${SMS_PATH}` })).statusCode).toBe(404);
  });

  it('does not exist when SMS is not configured', async () => {
    const config = testConfig();
    const bare = await buildApp({ config, db: t.db, queue: t.queue }, { logger: false });
    try {
      const res = await bare.inject({ method: 'POST', url: SMS_PATH, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' }, payload: 'a=b' });
      expect(res.statusCode).toBe(404);
    } finally {
      await bare.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  it('a signed request without a MessageSid is 400 and changes nothing', async () => {
    const params = { From: newPhone(), Body: 'x', AccountSid: TWILIO.sid };
    const before = await snapshot(t);
    expect((await postSms(t, params)).statusCode).toBe(400);
    expect(await snapshot(t)).toBe(before);
  });
});
