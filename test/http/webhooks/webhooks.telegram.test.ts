/**
 * Inbound Telegram (Bot API updates on the webhook): the deep link's
 * `/start <token>` accepts the invitation and binds the chat; a plain message
 * from an invited username accepts and becomes a pending memory; updates
 * without the secret, with a wrong one, or seen before are refused and
 * change nothing.
 */
import { rmSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig, type ConfigError } from '../../../src/config/config.js';
import { buildTestApp, testConfig, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { messagingEnv, postTelegram, snapshot, TELEGRAM, TELEGRAM_PATH, telegramUpdate } from './webhook-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: messagingEnv() });
});

let chatSeq = 700_000_000 + Math.floor(Math.random() * 1_000_000);
const newChat = () => ++chatSeq;
const handle = () => `tg_${Math.random().toString(36).slice(2, 10)}`;

async function invite(owner: TestUser, slug: string, username: string) {
  const res = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'telegram', identifier: `@${username}` }, { token: owner.token });
  expect(res.status).toBe(201);
  return res.body;
}
const tokenOf = (deepLink: string) => new URL(deepLink).searchParams.get('start')!;
const invitation = async (id: string) => (await t.db.query<any>(`SELECT status, accepted_user_id FROM invitations WHERE id = $1`, [id]))[0];
const submissionsOf = async (slug: string) =>
  t.db.query<any>(
    `SELECT s.text_content, s.source, s.status, s.contributor_user_id, s.contributor_name FROM submissions s JOIN books b ON b.id = s.book_id
     WHERE b.slug = $1 ORDER BY s.created_at, s.id`,
    [slug],
  );
const userByChat = async (chat: number) => (await t.db.query<any>(`SELECT * FROM users WHERE telegram_chat_id = $1`, [String(chat)]))[0];

describe('the deep link: /start <token>', () => {
  it('accepts the invitation, makes the contributor with the chat bound, and is not a memory', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const username = handle();
    const inv = await invite(owner, slug, username);
    expect(inv.deep_link).toMatch(new RegExp(`^https://t\\.me/${TELEGRAM.bot}\\?start=`));
    const chat = newChat();

    const res = await postTelegram(t, telegramUpdate({ chatId: chat, username: username.toUpperCase(), text: `/start ${tokenOf(inv.deep_link)}`, firstName: 'Tess', lastName: 'Gram' }));
    expect(res.statusCode).toBe(200);

    const user = await userByChat(chat);
    expect(user).toMatchObject({ email: null, password_hash: null, telegram_username: username, first_name: 'Tess', last_name: 'Gram' });
    expect(await invitation(inv.id)).toEqual({ status: 'accepted', accepted_user_id: user.id });
    expect(await submissionsOf(slug)).toEqual([]);

    // The next message is a memory, under the sender's Telegram name.
    expect((await postTelegram(t, telegramUpdate({ chatId: chat, username, text: 'We sang all the way home.', firstName: 'Tess', lastName: 'Gram' }))).statusCode).toBe(200);
    expect(await submissionsOf(slug)).toEqual([
      { text_content: 'We sang all the way home.', source: 'telegram', status: 'pending', contributor_user_id: user.id, contributor_name: 'Tess Gram' },
    ]);
  });

  it('the link works for whoever holds it, even under another username (or none)', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const inv = await invite(owner, slug, handle());
    const chat = newChat();
    expect((await postTelegram(t, telegramUpdate({ chatId: chat, text: `/start ${tokenOf(inv.deep_link)}` }))).statusCode).toBe(200);
    const user = await userByChat(chat);
    expect(user.telegram_username).toBeNull();
    expect((await invitation(inv.id)).accepted_user_id).toBe(user.id);
  });

  it('an unknown, revoked or spent token accepts nothing', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const inv = await invite(owner, slug, handle());
    expect((await t.delete(`/api/v1/books/${slug}/invitations/${inv.id}/`, { token: owner.token })).status).toBe(200);
    for (const text of [`/start ${tokenOf(inv.deep_link)}`, '/start AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `/start ${slug}`]) {
      const chat = newChat();
      expect((await postTelegram(t, telegramUpdate({ chatId: chat, text }))).statusCode).toBe(200);
      expect(await userByChat(chat)).toBeUndefined();
    }
    expect((await invitation(inv.id)).status).toBe('revoked');
  });
});

describe('a plain message from an invited username', () => {
  it('accepts the invitation, binds the chat and becomes a pending telegram memory', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const username = handle();
    const inv = await invite(owner, slug, username);
    const chat = newChat();
    expect((await postTelegram(t, telegramUpdate({ chatId: chat, username, text: 'First time at the lake!', firstName: 'Ola' }))).statusCode).toBe(200);
    const user = await userByChat(chat);
    expect(user).toMatchObject({ telegram_username: username, email: null });
    expect(await invitation(inv.id)).toEqual({ status: 'accepted', accepted_user_id: user.id });
    expect(await submissionsOf(slug)).toEqual([
      { text_content: 'First time at the lake!', source: 'telegram', status: 'pending', contributor_user_id: user.id, contributor_name: 'Ola' },
    ]);
    const listed = (await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).body.items;
    expect(listed[0]).toMatchObject({ source: 'telegram', status: 'pending', contributor_name: 'Ola' });
  });

  it('an existing account with that username, no chat yet, gets the chat bound', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const known = await newUser(t);
    const username = handle();
    await t.db.query(`UPDATE users SET telegram_username = $2 WHERE id = $1`, [known.user.id, `@${username}`]);
    expect((await invite(owner, slug, username)).status).toBe('accepted');
    const chat = newChat();
    expect((await postTelegram(t, telegramUpdate({ chatId: chat, username, text: 'hi from a known account' }))).statusCode).toBe(200);
    expect((await userByChat(chat)).id).toBe(known.user.id);
    expect((await submissionsOf(slug))[0]).toMatchObject({ contributor_user_id: known.user.id, source: 'telegram' });
  });

  it('a username already bound to another chat is not taken over by a new holder', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const username = handle();
    await invite(owner, slug, username);
    const firstChat = newChat();
    expect((await postTelegram(t, telegramUpdate({ chatId: firstChat, username, text: 'mine' }))).statusCode).toBe(200);
    const stranger = newChat();
    expect((await postTelegram(t, telegramUpdate({ chatId: stranger, username, text: 'mine too?' }))).statusCode).toBe(200);
    expect(await userByChat(stranger)).toBeUndefined();
    expect((await submissionsOf(slug)).map((s) => s.text_content)).toEqual(['mine']);
  });

  it('a message from someone nobody invited, a group chat, or a bot changes nothing but the record of the delivery', async () => {
    const before = (await t.db.query<any>(`SELECT count(*)::int AS n FROM users`))[0].n;
    const chat = newChat();
    expect((await postTelegram(t, telegramUpdate({ chatId: chat, username: handle(), text: 'hello?' }))).statusCode).toBe(200);
    const group = telegramUpdate({ chatId: -chat, text: 'in a group' });
    (group.message.chat as any).type = 'group';
    expect((await postTelegram(t, group)).statusCode).toBe(200);
    const bot = telegramUpdate({ chatId: newChat(), text: 'beep' });
    (bot.message.from as any).is_bot = true;
    expect((await postTelegram(t, bot)).statusCode).toBe(200);
    expect((await postTelegram(t, { update_id: 1 + Math.floor(Math.random() * 1e9), edited_message: {} })).statusCode).toBe(200);
    expect((await t.db.query<any>(`SELECT count(*)::int AS n FROM users`))[0].n).toBe(before);
  });
});

describe('refused updates change nothing', () => {
  async function pending() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const username = handle();
    const inv = await invite(owner, slug, username);
    return { slug, username, inv };
  }

  it.each([
    ['no secret header', null],
    ['a wrong secret', 'not-the-secret'],
    ['the secret with a character changed', `${TELEGRAM.secret.slice(0, -1)}X`],
    ['an empty secret', ''],
  ])('%s: 403', async (_name, secret) => {
    const { inv, username } = await pending();
    const before = await snapshot(t);
    const res = await postTelegram(t, telegramUpdate({ chatId: newChat(), username, text: `/start ${tokenOf(inv.deep_link)}` }), { secret });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    expect(await snapshot(t)).toBe(before);
    expect((await invitation(inv.id)).status).toBe('pending');
  });

  it('a replayed update_id: 403, the first delivery stands alone', async () => {
    const { slug, username } = await pending();
    const update = telegramUpdate({ chatId: newChat(), username, text: 'just once' });
    expect((await postTelegram(t, update)).statusCode).toBe(200);
    const before = await snapshot(t);
    expect((await postTelegram(t, update)).statusCode).toBe(403);
    expect((await postTelegram(t, { ...update, message: { ...update.message, text: 'changed' } })).statusCode).toBe(403);
    expect(await snapshot(t)).toBe(before);
    expect((await submissionsOf(slug)).map((s) => s.text_content)).toEqual(['just once']);
  });

  it('without TELEGRAM_WEBHOOK_SECRET every update is refused', async () => {
    const env = messagingEnv();
    delete (env as Record<string, string>).TELEGRAM_WEBHOOK_SECRET;
    const config = testConfig(env);
    const app = await buildApp({ config, db: t.db, queue: t.queue }, { logger: false });
    try {
      const before = await snapshot(t);
      for (const secret of [undefined, '']) {
        const res = await app.inject({
          method: 'POST',
          url: TELEGRAM_PATH,
          headers: { 'content-type': 'application/json', ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }) },
          payload: JSON.stringify(telegramUpdate({ chatId: newChat(), text: 'hi' })),
        });
        expect(res.statusCode).toBe(403);
      }
      expect(await snapshot(t)).toBe(before);
    } finally {
      await app.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  it('a signed body that is not an update is 400 and changes nothing', async () => {
    const before = await snapshot(t);
    expect((await postTelegram(t, { message: { text: 'no update_id' } })).statusCode).toBe(400);
    expect(await snapshot(t)).toBe(before);
  });
});

describe('TELEGRAM_WEBHOOK_SECRET', () => {
  const base = { NODE_ENV: 'test', SECRET_KEY: 'test-secret-key-0123456789-abcdefghijklmnop', DATA_DIR: '/tmp/memorybook-webhook-config' };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };
  it('takes what Telegram allows as a secret_token, and needs the bot', () => {
    const bot = { TELEGRAM_BOT_USERNAME: 'some_bot', TELEGRAM_BOT_TOKEN: '1:x' };
    expect(loadConfig({ ...base, ...bot, TELEGRAM_WEBHOOK_SECRET: 'Az09_-' }).messaging.telegram?.webhookSecret).toBe('Az09_-');
    expect(problems({ ...bot, TELEGRAM_WEBHOOK_SECRET: 'has space' })).toEqual([expect.stringMatching(/^TELEGRAM_WEBHOOK_SECRET/)]);
    expect(problems({ ...bot, TELEGRAM_WEBHOOK_SECRET: 'x'.repeat(257) })).toEqual([expect.stringMatching(/^TELEGRAM_WEBHOOK_SECRET/)]);
    expect(problems({ TELEGRAM_WEBHOOK_SECRET: 'lonely' })).toEqual([expect.stringMatching(/^TELEGRAM_WEBHOOK_SECRET: needs/)]);
  });
});
