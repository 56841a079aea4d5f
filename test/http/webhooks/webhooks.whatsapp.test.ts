/**
 * WhatsApp (the Cloud API webhook): Meta's subscription handshake; signed
 * notifications from invited numbers accept the invitation and become
 * pending `whatsapp` memories; unsigned or forged ones are refused (403) and
 * change nothing; what a signed notification carries that is not a message we
 * take is answered 200 and ignored. Invitations to a number go out as the
 * approved template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { startProviderServer, type TestProviderServer } from '../../helpers/provider-server.js';
import { hubSignature, messagingEnv, newPhone, postWhatsApp, snapshot, WHATSAPP, WHATSAPP_PATH, whatsappEnv, whatsappPayload } from './webhook-helpers.js';

let t: TestApp;
let provider: TestProviderServer;
beforeAll(async () => {
  provider = await startProviderServer({ credentials: { whatsapp: { accessToken: WHATSAPP.accessToken } } });
  // Only WhatsApp sends here: invitations to numbers go out over it alone.
  const { TWILIO_ACCOUNT_SID: _a, TWILIO_AUTH_TOKEN: _b, TWILIO_FROM_NUMBER: _c, ...rest } = messagingEnv();
  t = await buildTestApp({ env: { ...rest, ...whatsappEnv(provider.url) }, worker: true });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

async function invite(slug: string, token: string, identifier: string) {
  const res = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'phone', identifier }, { token });
  expect(res.status).toBe(201);
  return res.body;
}
const invitation = async (id: string) => (await t.db.query<any>(`SELECT status, accepted_user_id FROM invitations WHERE id = $1`, [id]))[0];
const submissionsOf = async (slug: string) =>
  t.db.query<any>(
    `SELECT s.text_content, s.source, s.status, s.contributor_user_id, s.contributor_name FROM submissions s JOIN books b ON b.id = s.book_id
     WHERE b.slug = $1 ORDER BY s.created_at, s.id`,
    [slug],
  );
const text = (body: unknown) => ({ type: 'text', text: { body } });

describe('the subscription handshake', () => {
  const handshake = (query: Record<string, string>) => t.app.inject({ method: 'GET', url: `${WHATSAPP_PATH}?${new URLSearchParams(query)}` });

  it('echoes hub.challenge when hub.verify_token is ours', async () => {
    const res = await handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': WHATSAPP.verifyToken, 'hub.challenge': '1158201444' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('1158201444');
  });

  it.each([
    ['another token', { 'hub.mode': 'subscribe', 'hub.verify_token': 'not-ours', 'hub.challenge': '42' }],
    ['no token', { 'hub.mode': 'subscribe', 'hub.challenge': '42' }],
    ['another mode', { 'hub.mode': 'unsubscribe', 'hub.verify_token': WHATSAPP.verifyToken, 'hub.challenge': '42' }],
  ])('refuses %s: 403, no challenge echoed', async (_name, query) => {
    const res = await handshake(query);
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toBe('42');
  });
});

describe('a signed message from an invited number', () => {
  it('accepts the invitation, makes the contributor and becomes a pending whatsapp memory under the profile name', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);

    const res = await postWhatsApp(t, whatsappPayload(phone, text('Grandma taught me to swim in that lake.'), { name: 'Wanda\nApp' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'received' });
    const [user] = await t.db.query<any>(`SELECT id, email, password_hash FROM users WHERE phone_number = $1`, [phone]);
    expect(user).toMatchObject({ email: null, password_hash: null });
    expect(await invitation(inv.id)).toEqual({ status: 'accepted', accepted_user_id: user.id });
    expect(await submissionsOf(slug)).toEqual([
      { text_content: 'Grandma taught me to swim in that lake.', source: 'whatsapp', status: 'pending', contributor_user_id: user.id, contributor_name: 'Wanda App' },
    ]);
  });

  it('the same message delivered again (Meta retries) is answered 200 and stored once', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const phone = newPhone();
    await invite(slug, owner.token, phone);
    const payload = whatsappPayload(phone, text('only once'));
    expect((await postWhatsApp(t, payload)).statusCode).toBe(200);
    const again = await postWhatsApp(t, payload);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ status: 'ignored' });
    expect(await submissionsOf(slug)).toHaveLength(1);
  });

  it('a number nobody invited changes nothing but the record of the delivery', async () => {
    const before = (await t.db.query<any>(`SELECT count(*)::int AS n FROM users`))[0].n;
    const res = await postWhatsApp(t, whatsappPayload(newPhone(), text('who is this?')));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ignored' });
    expect((await t.db.query<any>(`SELECT count(*)::int AS n FROM users`))[0].n).toBe(before);
  });

  it('a plus book (no whatsapp on its plan) accepts the invitation but takes no memory over WhatsApp', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);
    expect((await postWhatsApp(t, whatsappPayload(phone, text('hello')))).statusCode).toBe(200);
    expect((await invitation(inv.id)).status).toBe('accepted');
    expect(await submissionsOf(slug)).toEqual([]);
  });
});

describe('signed notifications that are not a message we take: 200, ignored, nothing changes', () => {
  async function invited() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);
    return { slug, phone, inv };
  }

  it.each([
    ['a delivery status', (phone: string) => ({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: WHATSAPP.numberId }, statuses: [{ id: 'wamid.x', status: 'delivered', recipient_id: phone.slice(1) }] } }] }] })],
    ['a sticker', (phone: string) => whatsappPayload(phone, { type: 'sticker', sticker: { id: '123', mime_type: 'image/webp' } })],
    ['a text whose body is not a string', (phone: string) => whatsappPayload(phone, { type: 'text', text: { body: { toString: 'x' } } })],
    ['a text with no body', (phone: string) => whatsappPayload(phone, { type: 'text', text: {} })],
    ['a sender that is not a number', () => whatsappPayload('+abc', text('hi'))],
    ['a message to another of the account’s numbers', (phone: string) => whatsappPayload(phone, text('hi'), { phoneNumberId: '5550001' })],
    ['another kind of account change', () => ({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'account_update', value: { event: 'VERIFIED_ACCOUNT' } }] }] })],
    ['another object', () => ({ object: 'page', entry: [] })],
    ['entries that are not a list', () => ({ object: 'whatsapp_business_account', entry: 'nope' })],
    ['a JSON array', () => [1, 2, 3]],
  ])('%s', async (_name, build) => {
    const { slug, phone, inv } = await invited();
    const before = await snapshot(t);
    const res = await postWhatsApp(t, build(phone));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ignored' });
    expect(await submissionsOf(slug)).toEqual([]);
    expect((await invitation(inv.id)).status).toBe('pending');
    // At most the record of an ignored delivery.
    expect((await snapshot(t)).split(' | ').filter((_, i) => i !== 3)).toEqual(before.split(' | ').filter((_, i) => i !== 3));
  });
});

describe('refused deliveries: 403, nothing read or stored', () => {
  it.each([
    ['no signature', null],
    ['a signature under another secret', 'other'],
    ['a signature of another body', 'body'],
    ['not sha256=', 'sha1'],
    ['an empty header', ''],
  ])('%s', async (_name, how) => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const phone = newPhone();
    const inv = await invite(slug, owner.token, phone);
    const payload = whatsappPayload(phone, text('forged'));
    const body = JSON.stringify(payload);
    const signature =
      how === null ? null : how === 'other' ? hubSignature(body, 'not-the-app-secret') : how === 'body' ? hubSignature(body.replace('forged', 'really')) : how === 'sha1' ? hubSignature(body).replace('sha256=', 'sha1=') : '';
    const before = await snapshot(t);
    const res = await postWhatsApp(t, payload, { signature });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', request_id: res.headers['x-request-id'] });
    expect(await snapshot(t)).toBe(before);
    expect((await invitation(inv.id)).status).toBe('pending');
  });

  it('a signed body that is not JSON: 400, nothing stored', async () => {
    const before = await snapshot(t);
    const res = await postWhatsApp(t, null, { raw: '{"object": "whatsapp_business_account", ' });
    expect(res.statusCode).toBe(400);
    expect(await snapshot(t)).toBe(before);
  });
});

describe('outbound', () => {
  it('an invitation to a number goes out as the approved template, with who, which book and the link', async () => {
    const owner = await newUser(t);
    const book = await newBook(t, owner, { plan: 'premium' });
    const phone = newPhone();
    await invite(book.slug, owner.token, phone);
    const [sent] = await provider.waitFor(1, (r) => r.path === `/${WHATSAPP.numberId}/messages` && r.json?.to === phone.slice(1));
    expect(sent.headers.authorization).toBe(`Bearer ${WHATSAPP.accessToken}`);
    expect(sent.json).toMatchObject({ messaging_product: 'whatsapp', to: phone.slice(1), type: 'template', template: { name: WHATSAPP.template, language: { code: 'en_US' } } });
    const params = sent.json.template.components[0].parameters.map((p: any) => p.text);
    expect(params[1]).toBe(book.body.title);
    expect(params[2]).toMatch(/^https:\/\/memories\.example\.test\/invitations\/[A-Za-z0-9_-]+\/$/);
  });

  it('a subscriber with a number is told of a new memory over WhatsApp', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const ownerPhone = newPhone();
    await t.db.query(`UPDATE users SET phone_number = $2 WHERE id = $1`, [owner.user.id, ownerPhone]);
    const sub = await t.services.subscriptions.createSubscription({ slug, email: owner.email, kind: 'new_submission', channel: 'whatsapp' });
    expect(sub).toMatchObject({ channel: 'whatsapp', created: true });
    const phone = newPhone();
    await invite(slug, owner.token, phone);
    expect((await postWhatsApp(t, whatsappPayload(phone, text('We met at the harbour.')))).statusCode).toBe(200);
    const [told] = await provider.waitFor(1, (r) => r.path === `/${WHATSAPP.numberId}/messages` && r.json?.to === ownerPhone.slice(1), 30_000);
    expect(told.json).toMatchObject({ type: 'text' });
    expect(told.json.text.body).toContain('We met at the harbour.');
  });
});
