import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { SmtpReceiver } from '../../src/mail/inbound-receiver.js';
import { ownWordsOfParts } from '../../src/services/inbound-email/inbound-email-service.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { eventually } from '../helpers/eventually.js';
import { newBook, newUser, type TestUser } from '../helpers/factories.js';
import { readFixture } from '../helpers/media-fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { deliver, deliverRaw, inboundEnv, mailAddressOf, rawMessage, signBody, startReceiver } from './inbound-email-helpers.js';

let t: TestApp;
let smtp: TestSmtpServer;
let receiver: SmtpReceiver;
let owner: TestUser;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: inboundEnv({ SMTP_URL: smtp.url }), worker: true });
  receiver = await startReceiver(t);
  owner = await newUser(t);
});
afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
});

const post = (raw: Buffer) =>
  t.app.inject({ method: 'POST', url: '/webhooks/email/', headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signBody(raw) }, payload: raw });
const submissionsOf = async (slug: string) => (await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).body.items as any[];
const outcomesOf = async (slug: string) =>
  (await t.db.query<{ outcome: string }>(`SELECT e.outcome FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE b.slug = $1`, [slug])).map((r) => r.outcome);

/** A body meant to make text steps slow: megabyte-scale lines of spaces, `<`, `@` and quote markers. */
function hostileBody(bytes: number): string {
  const part = Math.floor(bytes / 5);
  return [' '.repeat(part) + 'x', '<'.repeat(part) + '@', '@'.repeat(part) + '>', '>'.repeat(part) + ' On', 'On ' + '<a@b'.repeat(part / 4) + ' wrote'].join('\n');
}

describe('the mail path is linear in its input', () => {
  it('finds the own words of 1.5 MB of hostile text and HTML in well under a second', () => {
    const body = hostileBody(1.5 * 1024 * 1024);
    let started = performance.now();
    ownWordsOfParts(body, '', 'Hi');
    expect(performance.now() - started).toBeLessThan(1000);
    started = performance.now();
    ownWordsOfParts('', `<div>${body.replace(/\n/g, '<br>')}</div>`, 'Hi');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('processes a 1.5 MB hostile message in under a second while /healthz keeps answering within 100 ms', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const raw = await rawMessage({ from: 'ann@family.test', to, subject: 'Hostile', text: hostileBody(1.5 * 1024 * 1024) });
    // The slowest /healthz answer while polling until `done`.
    const slowestHealthz = async (done: () => boolean) => {
      let slowest = 0;
      while (!done()) {
        const started = performance.now();
        const res = await t.app.inject({ method: 'GET', url: '/healthz' });
        slowest = Math.max(slowest, performance.now() - started);
        expect(res.statusCode).toBeLessThan(600);
        await new Promise((r) => setTimeout(r, 10));
      }
      return slowest;
    };
    // A baseline from this run, with no mail at work: what a shared, loaded machine's scheduling adds on its own
    // (a few ms when idle), so the bound below measures what the hostile message adds, not the neighbours.
    const baselineUntil = performance.now() + 2000;
    const baseline = await slowestHealthz(() => performance.now() > baselineUntil);
    let polling = true;
    const poll = slowestHealthz(() => !polling);
    expect((await post(raw)).statusCode).toBe(202);
    const [row] = await eventually(
      () => t.db.query<{ outcome: string; took: number }>(`SELECT e.outcome, extract(epoch FROM e.processed_at - e.created_at)::float8 AS took FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE b.slug = $1`, [slug]),
      (r) => r[0]?.outcome === 'submitted',
      60_000,
    );
    polling = false;
    const slowest = await poll;
    expect(slowest).toBeLessThan(100 + baseline);
    // From the row being written to its memory, the queue's own wait included.
    expect(row.took).toBeLessThan(5);
  }, 90_000);
});

describe('the identity linked is the one the verdict proved', () => {
  const IMPERSONATION = 'member@victim.test (@evil.test>)';

  async function victimBook() {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const email = `member-${randomUUID().slice(0, 6)}@victim.test`;
    // Invited first, the account made later: the invitation waits, pending, for its holder.
    const inv = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: email }, { token: owner.token });
    expect(inv.status).toBe(201);
    const victim = await newUser(t, { email });
    const [before] = await t.db.query<{ status: string }>(`SELECT status FROM invitations WHERE id = $1`, [inv.body.id]);
    expect(before.status).toBe('pending');
    return { slug, to, email, victim, invitationId: inv.body.id as string };
  }

  async function expectNotCredited(slug: string, invitationId: string) {
    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1);
    expect(memory.contributor_user).toBeNull();
    const [inv] = await t.db.query<{ status: string }>(`SELECT status FROM invitations WHERE id = $1`, [invitationId]);
    expect(inv.status).toBe('pending');
  }

  it('over the webhook: `From: member@victim.test (@evil.test>)` with a pass for evil.test credits no one', async () => {
    const { slug, to, email, invitationId } = await victimBook();
    const raw = Buffer.from(
      [
        'Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=x@evil.test; dkim=pass header.d=evil.test; dmarc=none',
        `From: ${IMPERSONATION.replace('member@victim.test', email)}`,
        `To: ${to}`,
        'Subject: Hello',
        `Message-ID: <${randomUUID()}@evil.test>`,
        '',
        'I am the member.',
        '',
      ].join('\r\n'),
    );
    expect((await post(raw)).statusCode).toBe(202);
    await expectNotCredited(slug, invitationId);
  });

  it('over SMTP: the same From with SPF passing for evil.test credits no one', async () => {
    const { slug, to, email, invitationId } = await victimBook();
    const raw = [`From: ${IMPERSONATION.replace('member@victim.test', email)}`, `To: ${to}`, 'Subject: Hello', `Message-ID: <${randomUUID()}@evil.test>`, '', 'I am the member.', ''].join('\r\n');
    const info = await deliverRaw(receiver, { from: 'x@evil.test', to: [to] }, raw);
    expect(info.response).toMatch(/^250 /);
    await expectNotCredited(slug, invitationId);
  });
});

describe('the SMTP receiver cannot be held shut', () => {
  const open = (localAddress: string) =>
    new Promise<{ socket: Socket; greeting: string }>((resolve, reject) => {
      const socket = connect({ port: receiver.port, host: '127.0.0.1', localAddress });
      socket.once('error', reject);
      socket.once('data', (d) => resolve({ socket, greeting: d.toString() }));
    });

  it('100 connections from one address leave room for another sender', async () => {
    const held = await Promise.all(Array.from({ length: 100 }, () => open('127.0.0.1')));
    try {
      const greeted = held.filter((c) => c.greeting.startsWith('220 ')).length;
      expect(greeted).toBe(10);
      expect(held.filter((c) => c.greeting.startsWith('421 ')).length).toBe(90);
      const other = await open('127.0.0.2');
      expect(other.greeting).toMatch(/^220 /);
      other.socket.destroy();
    } finally {
      for (const c of held) c.socket.destroy();
    }
  });

  it('a DATA that trickles is cut off at the overall limit', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    // A receiver of its own with a 3 s limit (the default is 10 minutes).
    const strict = await startReceiver(t, { dataTimeLimitMs: 3000 });
    onTestFinished(() => strict.close());
    const socket = connect(strict.port, '127.0.0.1');
    let said = '';
    socket.on('data', (d) => (said += d));
    const closed = new Promise<number>((r) => socket.once('close', () => r(performance.now())));
    const waitFor = async (re: RegExp) => {
      for (let deadline = Date.now() + 10_000; !re.test(said); ) {
        if (Date.now() > deadline) throw new Error(`no ${re} in ${said}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await waitFor(/^220 /m);
    socket.write('EHLO mx.family.test\r\n');
    await waitFor(/^250 /m);
    socket.write(`MAIL FROM:<ann@family.test>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
    await waitFor(/^354 /m);
    const started = performance.now();
    socket.write(`From: ann@family.test\r\nTo: ${to}\r\nSubject: Slow\r\n\r\n`);
    const trickle = setInterval(() => socket.writable && socket.write('x'), 500);
    try {
      const at = await closed;
      expect(at - started).toBeLessThan(8000);
      expect(at - started).toBeGreaterThan(2500);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
    expect(await outcomesOf(slug)).toEqual([]);
  }, 30_000);
});

describe('what a message may bring', () => {
  it('a message the parser refuses is recorded as refused after one try, with a reply when SPF or DKIM passed', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const depth = 3000;
    const open = Array.from({ length: depth }, (_, i) => `--b${i}\r\nContent-Type: multipart/mixed; boundary="b${i + 1}"\r\n\r\n`).join('');
    const close = Array.from({ length: depth }, (_, i) => `--b${depth - i}--\r\n`).join('');
    const raw = Buffer.from(
      [
        'Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=ann@family.test; dkim=none; dmarc=pass header.from=family.test',
        'From: Ann <ann@family.test>',
        `To: ${to}`,
        'Subject: Deep',
        `Message-ID: <${randomUUID()}@family.test>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b0"',
        '',
        `${open}--b${depth}\r\nContent-Type: text/plain\r\n\r\nDeep down.\r\n${close}--b0--`,
        '',
      ].join('\r\n'),
    );
    expect((await post(raw)).statusCode).toBe(202);
    const outcomes = await eventually(() => outcomesOf(slug), (o) => o.length === 1 && o[0] !== 'queued', 60_000);
    // mailparser refuses 3,000-deep nesting: recorded once, never left queued for retries.
    expect(outcomes).toEqual(['refused:unparseable']);
    {
      const replies = await eventually(async () => smtp.received.filter((m) => m.to.includes('ann@family.test') && m.subject === 'Re: Deep'), (r) => r.length === 1);
      expect(replies[0].text).toContain('could not be read');
      const [job] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE b.slug = $1 AND e.processed_at IS NOT NULL`, [slug]);
      expect(job.n).toBe(1);
    }
    expect(await submissionsOf(slug)).toEqual([]);
  }, 90_000);

  it('names lose their bidi controls, and at most 20 files come with one message (the rest named in the reply)', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const png = await readFixture('png');
    const info = await deliver(receiver, {
      from: { name: 'Rose\u202Egnp.exe', address: 'rose@family.test' },
      to,
      subject: 'Many',
      text: 'All the photos of the summer.',
      attachments: Array.from({ length: 21 }, (_, i) => ({ filename: `photo-${i}.png`, content: png })),
    });
    expect(info.response).toMatch(/^250 /);
    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1, 60_000);
    expect(memory.contributor_name).toBe('Rose gnp.exe');
    expect(memory.media).toHaveLength(20);
    const replies = await eventually(async () => smtp.received.filter((m) => m.to.includes('rose@family.test') && m.subject === 'Re: Many'), (r) => r.length === 1, 30_000);
    expect(replies[0].text).toContain('photo-20.png');
    expect(replies[0].text).toContain('at most 20 files');
  }, 120_000);

  it('a forward keeps the forwarded text with its sender and date under the note, and its photos come with it', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const png = await readFixture('png');
    const raw = await rawMessage({
      from: 'Rose <rose@family.test>',
      to,
      subject: 'Fwd: The old house',
      messageId: `<${randomUUID()}@family.test>`,
      text: 'Grandpa sent this in 2009.\n\n---------- Forwarded message ---------\nFrom: Grandpa <grandpa@example.com>\nDate: Mon, 1 Jun 2009 at 10:00\nSubject: The old house\nTo: <rose@family.test>\n\nWe painted it blue that summer.\n',
      attachments: [{ filename: 'house.png', content: png }],
    });
    expect((await post(raw)).statusCode).toBe(202);
    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1, 60_000);
    expect(memory.text_content).toBe('Grandpa sent this in 2009.\n\nFrom: Grandpa <grandpa@example.com>\nDate: Mon, 1 Jun 2009 at 10:00\n\nWe painted it blue that summer.');
    expect(memory.email_trimmed).toEqual({
      quoted: null,
      signature: null,
      forward_header: '---------- Forwarded message ---------\nFrom: Grandpa <grandpa@example.com>\nDate: Mon, 1 Jun 2009 at 10:00\nSubject: The old house\nTo: <rose@family.test>',
    });
    expect(memory.media).toHaveLength(1);
  }, 90_000);
});
