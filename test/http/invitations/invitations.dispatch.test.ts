/**
 * Dispatch on create, through the real queue and worker: mail to a real SMTP
 * server, SMS and Telegram to a local server that speaks the providers' APIs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/lib/secrets.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { startProviderServer, type TestProviderServer } from '../../helpers/provider-server.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

const SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = 'twilio-auth-token-for-tests';
const FROM = '+15005550006';
const BOT = 'memorybook_test_bot';
const BOT_TOKEN = '123456:telegram-bot-token-for-tests';

let t: TestApp;
let smtp: TestSmtpServer;
let providers: TestProviderServer;
beforeAll(async () => {
  [smtp, providers] = await Promise.all([startSmtpServer(), startProviderServer()]);
  t = await buildTestApp({
    worker: true,
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Memory Book <books@example.test>',
      PUBLIC_URL: 'https://memories.example.test',
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_FROM_NUMBER: FROM,
      TWILIO_API_BASE: providers.url,
      TELEGRAM_BOT_USERNAME: BOT,
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_API_BASE: providers.url,
    },
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([smtp.close(), providers.close()]);
});

const url = (slug: string) => `/api/v1/books/${slug}/invitations/`;
/** The stored hash, hex (PGlite and pg hand bytea back as different types). */
const hashOf = async (id: string) => (await t.db.query<{ h: string }>(`SELECT encode(token_hash, 'hex') AS h FROM invitations WHERE id = $1`, [id]))[0].h;
const isSms = (r: { path: string }) => r.path.includes('/Messages.json');
const isTelegram = (r: { path: string }) => r.path.includes('/sendMessage');

describe('email', () => {
  it('sends the acceptance link, whose token is stored only as its hash', async () => {
    const owner = await newUser(t, { firstName: 'Olive', lastName: 'Owner' });
    const slug = (await newBook(t, owner, { title: 'Lake House' })).slug;
    const res = await t.post(url(slug), { identifier_type: 'email', identifier: 'Invitee@Example.test' }, { token: owner.token });
    expect(res.status).toBe(201);
    const mail = (await smtp.waitFor(1)).find((m) => m.to.includes('invitee@example.test'))!;
    expect(mail.from).toBe('books@example.test');
    expect(mail.subject).toBe('Olive Owner invited you to "Lake House"');
    const link = /https:\/\/memories\.example\.test\/invitations\/([A-Za-z0-9_-]{43})\//.exec(mail.text);
    expect(link, mail.text).not.toBeNull();
    expect(await hashOf(res.body.id)).toBe(sha256(link![1]).toString('hex'));
    // The token appears nowhere in the API's answer.
    expect(res.text).not.toContain(link![1]);
    expect((await t.get(url(slug), { token: owner.token })).text).not.toContain(link![1]);
  });

  it('an existing user is told they were added, without a link to accept', async () => {
    const owner = await newUser(t);
    const u = await newUser(t);
    const slug = (await newBook(t, owner, { title: 'Garden Party' })).slug;
    const n = smtp.received.length;
    expect((await t.post(url(slug), { identifier_type: 'email', identifier: u.email }, { token: owner.token })).body.status).toBe('accepted');
    const mail = (await smtp.waitFor(n + 1)).find((m) => m.to.includes(u.email))!;
    expect(mail.subject).toBe('You were added to "Garden Party"');
    expect(mail.text).not.toContain('/invitations/');
    // The link leads to their home page (/), where the book is listed with its form.
    expect(mail.text).toContain(`among your books: ${t.config.http.publicUrl}/\n`);
  });
});

describe('SMS', () => {
  it('goes to the Twilio-compatible API with basic auth: To in E.164, From the configured number, the link in the body', async () => {
    const owner = await newUser(t, { firstName: 'Olive', lastName: '' });
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Reunion' })).slug;
    const res = await t.post(url(slug), { identifier_type: 'phone', identifier: '+1 (415) 555-2671' }, { token: owner.token });
    expect(res.status).toBe(201);
    const [sms] = (await providers.waitFor(1, (r) => isSms(r) && r.form.To === '+14155552671'));
    expect(sms.method).toBe('POST');
    expect(sms.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(sms.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')}`);
    expect(sms.headers['content-type']).toMatch(/application\/x-www-form-urlencoded/);
    expect(sms.form.From).toBe(FROM);
    expect(sms.form.Body).toContain('Olive invited you');
    expect(sms.form.Body).toContain('"Reunion"');
    const token = /\/invitations\/([A-Za-z0-9_-]{43})\//.exec(sms.form.Body)![1];
    expect(await hashOf(res.body.id)).toBe(sha256(token).toString('hex'));
  });
});

describe('Telegram', () => {
  it('a pending invitation records the bot deep link to pass on, and sends nothing', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const before = providers.received.filter(isTelegram).length;
    const res = await t.post(url(slug), { identifier_type: 'telegram', identifier: '@New_Friend' }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body.identifier).toBe('new_friend');
    const m = /^https:\/\/t\.me\/memorybook_test_bot\?start=([A-Za-z0-9_-]{43})$/.exec(res.body.deep_link);
    expect(m, res.body.deep_link).not.toBeNull();
    expect(await hashOf(res.body.id)).toBe(sha256(m![1]).toString('hex'));
    const listed = (await t.get(url(slug), { token: owner.token })).body.items[0];
    expect(listed.deep_link).toBe(res.body.deep_link);
    await new Promise((r) => setTimeout(r, 500));
    expect(providers.received.filter(isTelegram).length).toBe(before);
  });

  it('a user whose chat the bot knows gets a message through sendMessage', async () => {
    const owner = await newUser(t);
    const u = await newUser(t);
    await t.db.query(`UPDATE users SET telegram_username = 'Chatty_Person', telegram_chat_id = '424242' WHERE id = $1`, [u.user.id]);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Cabin Weekend' })).slug;
    const res = await t.post(url(slug), { identifier_type: 'telegram', identifier: 'chatty_person' }, { token: owner.token });
    expect(res.body).toMatchObject({ status: 'accepted', deep_link: null });
    const [msg] = await providers.waitFor(1, (r) => isTelegram(r) && r.json?.chat_id === '424242');
    expect(msg.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(msg.headers['content-type']).toMatch(/application\/json/);
    expect(msg.json.text).toContain('"Cabin Weekend"');
  });
});

describe('revoke', () => {
  it('sends nothing', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const inv = (await t.post(url(slug), { identifier_type: 'email', identifier: 'revoked@example.test' }, { token: owner.token })).body;
    const mails = () => smtp.received.filter((m) => m.to.includes('revoked@example.test')).length;
    for (let i = 0; i < 300 && mails() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(mails()).toBe(1);
    expect((await t.delete(`${url(slug)}${inv.id}/`, { token: owner.token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 800));
    expect(mails()).toBe(1);
  });
});
