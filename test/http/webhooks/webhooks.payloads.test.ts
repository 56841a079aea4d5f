/**
 * Every inbound provider payload is read as data, by a schema per provider:
 * a well-signed delivery that is not a message we take (a field of another
 * type, an update kind we do not read, a status callback) is answered 200
 * and changes nothing but the record of the delivery. Never a 500: Telegram
 * and Meta retry a 500 for ever.
 */
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { messagingEnv, newPhone, postSms, postTelegram, PUBLIC_URL, SMS_PATH, smsParams, snapshot, telegramUpdate, TWILIO } from './webhook-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: messagingEnv() });
});

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
/** The snapshot without the count of recorded deliveries (an ignored delivery may be recorded). */
const state = async () => (await snapshot(t)).split(' | ').filter((_, i) => i !== 3).join(' | ');

let chatSeq = 920_000_000 + Math.floor(Math.random() * 1_000_000);

describe('Telegram: crafted updates from a real chat, well signed', () => {
  async function invitedUsername() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const username = `tg_${Math.random().toString(36).slice(2, 10)}`;
    expect((await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'telegram', identifier: `@${username}` }, { token: owner.token })).status).toBe(201);
    return { slug, username };
  }
  const crafted = (username: string, change: (u: any) => void) => {
    const u: any = telegramUpdate({ chatId: ++chatSeq, username, text: 'a memory' });
    change(u);
    return u;
  };

  it.each([
    ['text a number', (u: any) => (u.message.text = 42)],
    ['text an object', (u: any) => (u.message.text = { trim: 'no' })],
    ['text a list', (u: any) => (u.message.text = ['/start', 'x'])],
    ['username a number', (u: any) => (u.message.from.username = 12345)],
    ['username an object', (u: any) => (u.message.from.username = { replace: 1 })],
    ['first_name a number', (u: any) => (u.message.from.first_name = 7)],
    ['first_name a list', (u: any) => (u.message.from.first_name = ['Tess'])],
    ['last_name an object', (u: any) => (u.message.from.last_name = {})],
    ['caption a number', (u: any) => (u.message.caption = 1)],
    ['the chat id a string of letters', (u: any) => (u.message.chat.id = 'abc')],
    ['no chat', (u: any) => delete u.message.chat],
    ['photo not a list', (u: any) => (u.message.photo = { file_id: 'x' })],
    ['a voice note without its file_id', (u: any) => (u.message.voice = { duration: 3 })],
    ['message a string', (u: any) => (u.message = 'hello')],
    ['message null', (u: any) => (u.message = null)],
  ])('%s: 200 ignored, nothing changes', async (_name, change) => {
    const { slug, username } = await invitedUsername();
    const before = await state();
    const res = await postTelegram(t, crafted(username, change));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ignored' });
    expect(await state()).toBe(before);
    expect(await t.db.query(`SELECT s.id FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug])).toEqual([]);
  });

  it.each(['edited_message', 'channel_post', 'callback_query', 'my_chat_member', 'message_reaction', 'poll'])('an update of kind %s: 200 ignored', async (kind) => {
    const before = await state();
    const res = await postTelegram(t, { update_id: 1 + Math.floor(Math.random() * 1e9), [kind]: { message_id: 1, chat: { id: 1, type: 'private' }, text: 'x' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ignored' });
    expect(await state()).toBe(before);
  });

  it('the same sender’s well-formed message afterwards is taken', async () => {
    const { slug, username } = await invitedUsername();
    expect((await postTelegram(t, crafted(username, (u) => (u.message.text = 99)))).statusCode).toBe(200);
    const res = await postTelegram(t, telegramUpdate({ chatId: ++chatSeq, username, text: 'now in words' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'received' });
    expect((await t.db.query<any>(`SELECT s.text_content FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug])).map((r) => r.text_content)).toEqual(['now in words']);
  });

  it('control characters in a name are not kept', async () => {
    const { username } = await invitedUsername();
    const chatId = ++chatSeq;
    expect((await postTelegram(t, telegramUpdate({ chatId, username, text: 'hi', firstName: 'Tess\r\nBcc: x', lastName: 'Gram\u202e' }))).statusCode).toBe(200);
    const [user] = await t.db.query<any>(`SELECT first_name, last_name FROM users WHERE telegram_chat_id = $1`, [String(chatId)]);
    expect(user).toEqual({ first_name: 'Tess Bcc: x', last_name: 'Gram' });
  });
});

describe('Twilio: signed forms that are not a message we take', () => {
  /** Signs and posts raw form pairs (a name may repeat), as Twilio would. */
  function postPairs(pairs: [string, string][]) {
    const byName = new Map<string, string[]>();
    for (const [k, v] of pairs) byName.set(k, [...(byName.get(k) ?? []), v]);
    let data = `${PUBLIC_URL}${SMS_PATH}`;
    for (const name of [...byName.keys()].sort()) for (const v of [...byName.get(name)!].sort()) data += name + v;
    const signature = createHmac('sha1', TWILIO.authToken).update(data).digest('base64');
    return t.app.inject({
      method: 'POST',
      url: SMS_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      payload: new URLSearchParams(pairs).toString(),
    });
  }
  async function invitedPhone() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    expect((await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'phone', identifier: phone }, { token: owner.token })).status).toBe(201);
    return { slug, phone };
  }

  it('a delivery status callback: 200, nothing stored (not even a record)', async () => {
    const { phone } = await invitedPhone();
    const before = await snapshot(t);
    const params = { ...smsParams(phone, ''), SmsStatus: 'delivered', MessageStatus: 'delivered' };
    const res = await postSms(t, params);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(EMPTY_TWIML);
    expect(await snapshot(t)).toBe(before);
  });

  it.each([
    ['a repeated Body', (p: [string, string][]) => [...p, ['Body', 'a second body']] as [string, string][]],
    ['a repeated From', (p: [string, string][]) => [...p, ['From', '+15005550000']] as [string, string][]],
    ['NumMedia not a number', (p: [string, string][]) => p.map(([k, v]) => [k, k === 'NumMedia' ? 'many' : v]) as [string, string][]],
  ])('%s: 200, nothing changes', async (_name, change) => {
    const { slug, phone } = await invitedPhone();
    const before = await state();
    const res = await postPairs(change(Object.entries(smsParams(phone, 'odd form'))));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(EMPTY_TWIML);
    expect(await state()).toBe(before);
    expect(await t.db.query(`SELECT s.id FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug])).toEqual([]);
  });
});
