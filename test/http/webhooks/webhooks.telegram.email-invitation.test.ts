/**
 * An email invitation's token is not a Telegram deep link: `/start <token>`
 * with it accepts nothing (an email invitation is accepted only by the
 * account with its address, on the web).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { queuedMailsTo } from '../web/web-client.js';
import { messagingEnv, postTelegram, telegramUpdate } from './webhook-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: messagingEnv() });
});

describe('/start with an email invitation’s token', () => {
  it('accepts nothing: the invitation stays pending, no one joins', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const invitee = `tg-email-${Date.now()}@example.test`;
    const res = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: invitee }, { token: owner.token });
    expect(res.status).toBe(201);
    const [mail] = await queuedMailsTo(t, invitee);
    const token = /\/invitations\/([A-Za-z0-9_-]{43})\//.exec(mail.text)![1];
    const chat = 800_000_000 + Math.floor(Math.random() * 1_000_000);
    expect((await postTelegram(t, telegramUpdate({ chatId: chat, username: `tg_${Math.random().toString(36).slice(2, 10)}`, text: `/start ${token}` }))).statusCode).toBe(200);
    const [row] = await t.db.query<{ status: string; accepted_user_id: string | null }>(`SELECT status, accepted_user_id FROM invitations WHERE id = $1`, [res.body.id]);
    expect(row).toEqual({ status: 'pending', accepted_user_id: null });
    const members = await t.db.query(`SELECT 1 FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]);
    expect(members).toHaveLength(1);
  });
});
