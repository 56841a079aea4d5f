/** The mail streams as real mail over SMTP: onboarding at sign-up, the daily digest, activity reminders, and the send-time check. */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schedules } from '../../../src/jobs/job-catalog.js';
import { createScheduler } from '../../../src/jobs/scheduler.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { signUp } from '../web/web-client.js';
import { jobStates, mailHeader, makeDelayedJobsDue } from './account-helpers.js';

let t: TestApp;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ worker: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Memory Book <books@example.test>' } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

/** The daily schedules, as every worker runs them. */
const DAILY = schedules.filter((s) => s.everySeconds === 24 * 3600);

/** The stream mails to an address (a web sign-up's confirmation mail comes first, and is not one). */
const mailTo = (email: string): ReceivedMail[] => smtp.received.filter((m) => m.to.includes(email) && m.subject !== 'Confirm your email address for Memory Book');
const today = () => new Date().toISOString().slice(0, 10);
const yesterdayNoon = () => `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T12:00:00Z`;
const userIdOf = async (email: string) => (await t.db.query<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [email]))[0].id;

/** Runs a daily job now and waits until it and the mail it queued are done. */
async function runDaily(name: 'mail.digests' | 'mail.activity-reminders') {
  const id = await t.db.transaction((tx) => t.queue.send(name, { day: today() }, { tx }));
  await eventually(async () => (await t.queue.getJob(name, id!))?.state === 'completed');
  await eventually(async () => (await t.db.query(`SELECT 1 FROM ${t.queue.schema}.job WHERE name = 'mail.send' AND state IN ('created', 'retry', 'active') AND start_after <= now()`)).length === 0);
}

describe('onboarding', () => {
  it('web sign-up sends the welcome mail with List-Unsubscribe and one-click List-Unsubscribe-Post; the link works without credentials', async () => {
    const { email } = await signUp(t, { first_name: 'Grace' });
    const [welcome] = await eventually(async () => mailTo(email), (m) => m.length > 0);
    expect(welcome.subject).toBe('Welcome to Memory Book');
    expect(welcome.text).toContain('Hello Grace,');
    const listUnsubscribe = mailHeader(welcome, 'List-Unsubscribe')!;
    const url = /^<(http:\/\/localhost:8000\/api\/v1\/me\/unsubscribe\/onboarding\/token\/\?token=[0-9a-f-]{36})>$/.exec(listUnsubscribe)?.[1];
    expect(url, listUnsubscribe).toBeDefined();
    expect(mailHeader(welcome, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    // People get a page that asks first (a GET never unsubscribes: link scanners fetch links).
    const token = new URL(url!).searchParams.get('token');
    expect(welcome.text).toContain(`http://localhost:8000/accounts/unsubscribe/?token=${token}`);

    // What a mail client's one-click unsubscribe sends.
    const res = await t.request('POST', url!.replace('http://localhost:8000', ''), {
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      idempotencyKey: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ stream: 'onboarding', unsubscribed: true, already_unsubscribed: false });
  });

  it('the follow-up waits a few days, goes out with the same headers, and is dropped once the user left the stream', async () => {
    const stays = await signUp(t, { first_name: 'Stay' });
    const leaves = await signUp(t, { first_name: 'Leave' });
    await eventually(async () => mailTo(stays.email).length === 1 && mailTo(leaves.email).length === 1);
    const leaverId = await userIdOf(leaves.email);
    const delayed = await t.db.query<{ days: number }>(
      `SELECT round(extract(epoch FROM start_after - created_on) / 86400)::int AS days FROM ${t.queue.schema}.job WHERE name = 'mail.send' AND data->>'userId' = $1 AND start_after > now()`,
      [leaverId],
    );
    expect(delayed).toEqual([{ days: 3 }]);

    // Left after the follow-up was queued: the check at send time drops it.
    expect((await t.post('/api/v1/me/unsubscribe/onboarding/', {}, { session: leaves.client.apiSession() })).status).toBe(200);
    expect(await makeDelayedJobsDue(t, 'mail.send')).toBeGreaterThanOrEqual(2);
    const [follow] = await eventually(async () => mailTo(stays.email).slice(1), (m) => m.length > 0);
    expect(follow.subject).toBe('Three ways to fill your memory book');
    expect(mailHeader(follow, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    await eventually(async () => (await jobStates(t, 'mail.send', leaverId)).every((s) => s === 'completed'));
    expect(mailTo(leaves.email)).toHaveLength(1);
  });
});

describe('the unsubscribe page of onboarding mail', () => {
  it('asks on GET, unsubscribes on the button, and refuses a bad token', async () => {
    const { client, email } = await signUp(t);
    const [welcome] = await eventually(async () => mailTo(email), (m) => m.length > 0);
    const link = /http:\/\/localhost:8000(\/accounts\/unsubscribe\/\?token=[0-9a-f-]{36})/.exec(welcome.text)![1];
    const page = await client.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Stop the getting-started tips?');
    const userId = await userIdOf(email);
    expect(await t.db.query(`SELECT 1 FROM mail_stream_optouts WHERE user_id = $1`, [userId])).toEqual([]);

    const token = new URLSearchParams(link.split('?')[1]).get('token')!;
    const done = await client.submit('/accounts/unsubscribe/', { token });
    expect(done.status).toBe(200);
    expect(done.text).toContain('no more getting-started tips');
    expect(await t.db.query(`SELECT stream FROM mail_stream_optouts WHERE user_id = $1`, [userId])).toEqual([{ stream: 'onboarding' }]);
    expect((await client.submit('/accounts/unsubscribe/', { token })).text).toContain('already stopped');

    const bad = await client.submit('/accounts/unsubscribe/', { token: crypto.randomUUID() });
    expect(bad.status).toBe(401);
    expect(bad.headers['content-type']).toMatch(/^text\/html/);
  });
});

describe('daily digest', () => {
  it("sends owners and admins yesterday's new memories, once per day, never to someone who left digests", async () => {
    const owner = await newUser(t, { firstName: 'Olive' });
    const admin = await newUser(t);
    const quitter = await newUser(t);
    const book = await newBook(t, owner, { title: 'Lake House' });
    await addMember(t, book.slug, admin, 'admin');
    const other = await newBook(t, quitter, { title: 'Quiet One' });
    for (const [slug, text] of [[book.slug, 'Swimming at dawn.'], [book.slug, 'The blue canoe.'], [other.slug, 'Hello.']]) {
      const s = await newSubmission(t, slug, owner, { text, name: 'Cy' });
      await t.db.query(`UPDATE submissions SET created_at = $2 WHERE id = $1`, [s.id, yesterdayNoon()]);
    }
    // Today's memories wait for tomorrow's digest.
    await newSubmission(t, book.slug, owner, { text: 'Arrived today.' });
    expect((await t.post('/api/v1/me/unsubscribe/digests/', {}, { token: quitter.token })).status).toBe(200);

    await runDaily('mail.digests');
    for (const u of [owner, admin]) {
      const mails = mailTo(u.email);
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe('Your memory books: 2 new memories');
      expect(mails[0].text).toContain('Lake House: 2 new, 2 waiting for approval');
      expect(mails[0].text).toContain('Cy: Swimming at dawn.');
      expect(mails[0].text).not.toContain('Arrived today.');
    }
    expect(mailTo(owner.email)[0].text).toContain('Hello Olive,');
    expect(mailTo(quitter.email)).toEqual([]);

    await runDaily('mail.digests');
    expect(mailTo(owner.email)).toHaveLength(1);
  });

  it('a digest queued before the user left is not sent (checked at send time)', async () => {
    const u = await newUser(t);
    await t.db.transaction((tx) =>
      t.queue.send('mail.send', { to: u.email, subject: 'Digest', text: 'x', stream: 'digests', userId: u.user.id }, { tx, startAfterSeconds: 3600 }),
    );
    expect((await t.post('/api/v1/me/unsubscribe/digests/', {}, { token: u.token })).status).toBe(200);
    await makeDelayedJobsDue(t, 'mail.send');
    await eventually(async () => (await jobStates(t, 'mail.send', u.user.id)).join() === 'completed');
    expect(mailTo(u.email)).toEqual([]);
  });
});

describe('activity reminders', () => {
  async function quietBook(owner: TestUser, title: string) {
    const b = await newBook(t, owner, { title });
    await t.db.query(`UPDATE books SET created_at = now() - interval '15 days' WHERE slug = $1`, [b.slug]);
    return b;
  }

  it('nudges the owner of a book quiet for two weeks, once per quiet stretch', async () => {
    const owner = await newUser(t, { firstName: 'Quinn' });
    const b = await quietBook(owner, 'Grandma turns 90');
    const busy = await newBook(t, owner, { title: 'Busy Book' });
    await newSubmission(t, busy.slug, owner);

    await runDaily('mail.activity-reminders');
    const [mail] = mailTo(owner.email);
    expect(mailTo(owner.email)).toHaveLength(1);
    expect(mail.subject).toBe('No new memories in "Grandma turns 90" for a while');
    // The book is not public: the link carries its form key.
    const [{ form_key: key }] = await t.db.query<{ form_key: string }>(`SELECT form_key FROM books WHERE slug = $1`, [b.slug]);
    expect(mail.text).toContain(`http://localhost:8000/b/${b.slug}/?key=${key}`);

    await runDaily('mail.activity-reminders');
    expect(mailTo(owner.email)).toHaveLength(1);

    // A memory that is itself two weeks old starts a new quiet stretch: one more nudge.
    const s = await newSubmission(t, b.slug, owner);
    await t.db.query(`UPDATE submissions SET created_at = now() - interval '15 days' WHERE id = $1`, [s.id]);
    await runDaily('mail.activity-reminders');
    expect(mailTo(owner.email)).toHaveLength(2);
  });

  it('never to an owner who left activity_reminders', async () => {
    const owner = await newUser(t);
    await quietBook(owner, 'Left');
    expect((await t.post('/api/v1/me/unsubscribe/activity_reminders/', {}, { token: owner.token })).status).toBe(200);
    await runDaily('mail.activity-reminders');
    expect(mailTo(owner.email)).toEqual([]);
  });
});

describe('scheduling', () => {
  it("queues each day's daily jobs once, whichever worker's scheduler ticks", async () => {
    let now = new Date('2031-05-06T03:00:00Z');
    const make = () => createScheduler({ db: t.db, queue: t.queue, log: pino({ level: 'silent' }), schedules: DAILY, now: () => now });
    const [a, b] = [make(), make()];
    expect((await a.tick()).map((r) => r.schedule)).toEqual(['mail.digests', 'mail.activity-reminders', 'notifications.digest']);
    now = new Date('2031-05-06T21:00:00Z');
    expect(await b.tick()).toEqual([]);
    const jobs = await t.db.query<{ name: string }>(
      `SELECT name FROM ${t.queue.schema}.job WHERE data->>'day' = '2031-05-06'
       UNION ALL SELECT name FROM ${t.queue.schema}.archive WHERE data->>'day' = '2031-05-06' ORDER BY name`,
    );
    expect(jobs.map((r) => r.name)).toEqual(['mail.activity-reminders', 'mail.digests', 'notifications.digest']);
  });
});
