/**
 * Notifications through the real queue and worker: mail to a real SMTP
 * server, SMS and Telegram to a local server speaking the providers' APIs.
 * A new memory (from any source) reaches exactly the active new_submission
 * subscribers of its book; digest subscribers get one summary a day.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schedules } from '../../../src/jobs/job-catalog.js';
import { createScheduler } from '../../../src/jobs/scheduler.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { startProviderServer, type ProviderRequest, type TestProviderServer } from '../../helpers/provider-server.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { messagingEnv, newPhone, postSms, smsParams } from '../webhooks/webhook-helpers.js';

let t: TestApp;
let smtp: TestSmtpServer;
let providers: TestProviderServer;
beforeAll(async () => {
  [smtp, providers] = await Promise.all([startSmtpServer(), startProviderServer()]);
  t = await buildTestApp({ worker: true, env: { ...messagingEnv(providers.url), SMTP_URL: smtp.url, MAIL_FROM: 'Memory Book <books@example.test>' } });
});
afterAll(async () => {
  await t.close();
  await Promise.all([smtp.close(), providers.close()]);
});

let chatSeq = 900_000_000 + Math.floor(Math.random() * 1_000_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));
const smsTo = (phone: string) => providers.received.filter((r: ProviderRequest) => r.path.endsWith('/Messages.json') && r.form.To === phone);
const telegramTo = (chat: string) => providers.received.filter((r: ProviderRequest) => r.path.endsWith('/sendMessage') && r.json?.chat_id === chat);
async function until(check: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const subscribe = (slug: string, u: TestUser, kind: 'new_submission' | 'digest', channel: 'email' | 'sms' | 'telegram' = 'email') =>
  t.services.subscriptions.createSubscription({ slug, email: u.email, kind, channel });
async function withPhone(u: TestUser) {
  const phone = newPhone();
  await t.db.query(`UPDATE users SET phone_number = $2 WHERE id = $1`, [u.user.id, phone]);
  return phone;
}
async function withChat(u: TestUser) {
  const chat = String(++chatSeq);
  await t.db.query(`UPDATE users SET telegram_chat_id = $2 WHERE id = $1`, [u.user.id, chat]);
  return chat;
}
const jobsNamed = async (name: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.queue.schema}.job WHERE name = $1`, [name]))[0].n;

describe('a new memory', () => {
  it('reaches each active new_submission subscriber of its book over their channel, and no one else', async () => {
    const owner = await newUser(t, { firstName: 'Olive' });
    const author = await newUser(t, { firstName: 'Ada', lastName: 'Author' });
    const smsAdmin = await newUser(t);
    const tgContributor = await newUser(t);
    const digester = await newUser(t);
    const cancelled = await newUser(t);
    const removed = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Lake House' })).slug;
    for (const u of [author, smsAdmin]) await addMember(t, slug, u, 'admin');
    for (const u of [tgContributor, digester, cancelled, removed]) await addMember(t, slug, u, 'contributor');
    const phone = await withPhone(smsAdmin);
    const chat = await withChat(tgContributor);

    const ownerSub = await subscribe(slug, owner, 'new_submission');
    await subscribe(slug, author, 'new_submission');
    await subscribe(slug, smsAdmin, 'new_submission', 'sms');
    await subscribe(slug, tgContributor, 'new_submission', 'telegram');
    await subscribe(slug, digester, 'digest');
    const gone = await subscribe(slug, cancelled, 'new_submission');
    expect((await t.delete(`/api/v1/books/${slug}/notifications/subscriptions/${gone.id}/`, { token: cancelled.token })).status).toBe(200);
    await subscribe(slug, removed, 'new_submission');
    expect((await t.delete(`/api/v1/books/${slug}/members/${removed.user.id}/`, { token: owner.token })).status).toBe(204);
    // A subscriber of another book of the same owner hears nothing of this one.
    const otherBook = (await newBook(t, owner, { plan: 'plus' })).slug;
    const elsewhere = await newUser(t);
    await addMember(t, otherBook, elsewhere, 'contributor');
    await subscribe(otherBook, elsewhere, 'new_submission');

    const res = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'The summer we built the raft and it sank at once.' }, { token: author.token });
    expect(res.status).toBe(201);

    await until(() => mailsTo(owner.email).length === 1 && smsTo(phone).length === 1 && telegramTo(chat).length === 1, 'the three notifications');
    const [mail] = mailsTo(owner.email);
    expect(mail.from).toBe('books@example.test');
    expect(mail.subject).toBe('New memory in "Lake House"');
    expect(mail.text).toContain('Ada Author sent a memory to "Lake House" through the API');
    expect(mail.text).toContain('The summer we built the raft and it sank at once.');
    expect(mail.text).toContain(`/api/v1/books/${slug}/notifications/subscriptions/${ownerSub.id}/`);
    expect(smsTo(phone)[0].form.Body).toBe('New memory in "Lake House" from Ada Author: The summer we built the raft and it sank at once.');
    expect(telegramTo(chat)[0].json.text).toContain('The summer we built the raft');

    // Nothing for the author, the digest subscriber, the cancelled, the removed or the other book's subscriber.
    await sleep(1000);
    for (const u of [author, digester, cancelled, removed, elsewhere]) expect(mailsTo(u.email)).toEqual([]);
    expect(mailsTo(owner.email).length).toBe(1);
    expect(smsTo(phone).length).toBe(1);
    expect(telegramTo(chat).length).toBe(1);
  });

  it('from any source: a memory sent by SMS notifies as well', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Reunion' })).slug;
    await subscribe(slug, owner, 'new_submission');
    const phone = newPhone();
    expect((await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'phone', identifier: phone }, { token: owner.token })).status).toBe(201);
    expect((await postSms(t, smsParams(phone, 'Texted in from the bus.'))).statusCode).toBe(200);
    await until(() => mailsTo(owner.email).length === 1, 'the notification of the SMS memory');
    expect(mailsTo(owner.email)[0].text).toContain('Someone sent a memory to "Reunion" by SMS');
    expect(mailsTo(owner.email)[0].text).toContain('Texted in from the bus.');
  });

  it('a book without subscribers queues no notification job at all', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const before = await jobsNamed('notifications.new-submission');
    expect((await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'quiet' }, { token: owner.token })).status).toBe(201);
    expect(await jobsNamed('notifications.new-submission')).toBe(before);
  });

  it('the job is safe to run twice: each subscriber hears once', async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    await addMember(t, slug, author, 'contributor');
    await subscribe(slug, owner, 'new_submission');
    const s = await newSubmission(t, slug, author, { text: 'once only' });
    const notifications = t.services.notifications;
    expect(await notifications.notifyNewSubmission(s.id)).toBe(1);
    expect(await notifications.notifyNewSubmission(s.id)).toBe(0);
    await until(() => mailsTo(owner.email).length === 1, 'the one mail');
    await sleep(500);
    expect(mailsTo(owner.email).length).toBe(1);
  });
});

describe('the daily digest', () => {
  const DAY = '2031-03-15';
  const YESTERDAY = '2031-03-14';

  it("tells each digest subscriber of the day before's memories in their book, once", async () => {
    const owner = await newUser(t);
    const contributor = await newUser(t, { firstName: 'Cleo', lastName: '' });
    const instant = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Garden Party' })).slug;
    await addMember(t, slug, contributor, 'contributor');
    await addMember(t, slug, instant, 'admin');
    await subscribe(slug, owner, 'digest');
    const phone = await withPhone(contributor);
    await subscribe(slug, contributor, 'digest', 'sms');
    await subscribe(slug, instant, 'new_submission');
    // Two memories yesterday, one today (not in this digest), one the day before yesterday.
    const rows = [
      await newSubmission(t, slug, contributor, { text: 'Roses everywhere', name: 'Cleo' }),
      await newSubmission(t, slug, contributor, { text: 'The cake tilted' }),
      await newSubmission(t, slug, contributor, { text: 'Today, not yet' }),
      await newSubmission(t, slug, contributor, { text: 'Too early' }),
    ];
    const at = [`${YESTERDAY}T09:00:00Z`, `${YESTERDAY}T23:59:59Z`, `${DAY}T00:00:00Z`, `2031-03-13T23:59:59Z`];
    for (let i = 0; i < rows.length; i++) await t.db.query(`UPDATE submissions SET created_at = $2 WHERE id = $1`, [rows[i].id, at[i]]);

    const notifications = t.services.notifications;
    expect(await notifications.sendDigests(DAY)).toBe(2);
    await until(() => mailsTo(owner.email).length === 1 && smsTo(phone).length === 1, 'the two digests');
    const [mail] = mailsTo(owner.email);
    expect(mail.subject).toBe(`"Garden Party" on ${YESTERDAY}: 2 new memories`);
    expect(mail.text).toContain('Cleo: Roses everywhere');
    expect(mail.text).toContain('The cake tilted');
    expect(mail.text).not.toContain('Today, not yet');
    expect(mail.text).not.toContain('Too early');
    expect(mail.text).toContain('2 of them are still waiting for moderation');
    expect(smsTo(phone)[0].form.Body).toBe(`"Garden Party" on ${YESTERDAY}: 2 new memories, 2 waiting for moderation.`);

    // Once per subscription and day, however often the job runs.
    expect(await notifications.sendDigests(DAY)).toBe(0);
    await sleep(800);
    expect(mailsTo(owner.email).length).toBe(1);
    expect(smsTo(phone).length).toBe(1);
    // new_submission subscribers are not digest subscribers.
    expect(mailsTo(instant.email).filter((m) => m.subject.includes('new memor'))).toEqual([]);
  });

  it('a quiet book sends nothing; a subscriber who left the digests mail stream gets no email digest', async () => {
    const owner = await newUser(t);
    const leaver = await newUser(t);
    const quiet = (await newBook(t, owner, { plan: 'plus' })).slug;
    const busy = (await newBook(t, owner, { plan: 'plus' })).slug;
    await addMember(t, busy, leaver, 'admin');
    await subscribe(quiet, owner, 'digest');
    await subscribe(busy, leaver, 'digest');
    expect((await t.post('/api/v1/me/unsubscribe/digests/', {}, { token: leaver.token })).status).toBe(200);
    const s = await newSubmission(t, busy, owner, { text: 'only in the busy book' });
    await t.db.query(`UPDATE submissions SET created_at = '2031-04-01T12:00:00Z' WHERE id = $1`, [s.id]);
    // Queued for the busy book's subscriber (the mail job then drops it: they left the stream).
    expect(await t.services.notifications.sendDigests('2031-04-02')).toBe(1);
    await sleep(1500);
    expect(mailsTo(owner.email)).toEqual([]);
    expect(mailsTo(leaver.email)).toEqual([]);
  });

  it('runs as the daily job, queued with the other daily jobs', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Daily Job Book' })).slug;
    await subscribe(slug, owner, 'digest');
    const s = await newSubmission(t, slug, owner, { text: 'seen by the job' });
    await t.db.query(`UPDATE submissions SET created_at = '2031-06-09T12:00:00Z' WHERE id = $1`, [s.id]);
    // A worker's scheduler on that day: it queues the day's jobs, this one among them.
    const daily = schedules.filter((d) => d.everySeconds === 24 * 3600);
    const scheduler = createScheduler({ db: t.db, queue: t.queue, log: pino({ level: 'silent' }), schedules: daily, now: () => new Date('2031-06-10T05:00:00Z') });
    expect((await scheduler.tick()).map((r) => r.schedule)).toContain('notifications.digest');
    await until(() => mailsTo(owner.email).some((m) => m.subject === '"Daily Job Book" on 2031-06-09: 1 new memory'), 'the digest from the daily job');
  });
});
