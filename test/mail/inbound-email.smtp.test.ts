import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { eventually } from '../helpers/eventually.js';
import { addMember, newBook, newUser, type TestUser } from '../helpers/factories.js';
import { bigFileStream, minimalPdf, readFixture } from '../helpers/media-fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import type { SmtpReceiver } from '../../src/mail/inbound-receiver.js';
import { startMailInbound } from '../../src/mail-inbound.js';
import { deliver, fakeDns, inboundEnv, MAIL_DOMAIN, mailAddressOf, OWN_WORDS, QUOTED_REPLY, startReceiver } from './inbound-email-helpers.js';

let t: TestApp;
let smtp: TestSmtpServer;
let receiver: SmtpReceiver;
let owner: TestUser;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: inboundEnv({ SMTP_URL: smtp.url, WEB_FORM_RATE_LIMIT: '3' }), worker: true });
  receiver = await startReceiver(t);
  owner = await newUser(t);
});
afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
});

const submissionsOf = async (slug: string) => (await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).body.items as any[];
const inboundRows = (slug: string) =>
  t.db.query<{ outcome: string; spool_key: string | null }>(`SELECT e.outcome, e.spool_key FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE b.slug = $1`, [slug]);
const pendingObjects = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_objects`))[0].n;

describe('inbound email over SMTP', () => {
  it('turns an email into one pending memory: own words only, photos through the intake, one reply naming the refused file', async () => {
    const { slug, body: book } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const [jpeg, png] = await Promise.all([readFixture('jpeg'), readFixture('png')]);
    const jpeg2 = await readFixture('jpegRotated');
    const info = await deliver(receiver, {
      from: '"Grandma Rose" <rose@family.test>',
      to,
      subject: 'The lake house',
      text: QUOTED_REPLY,
      html: `<p>${OWN_WORDS.replace('\n', '<br>')}</p><p><img src="cid:dock@family.test"></p><blockquote>Please share a memory</blockquote>`,
      attachments: [
        { filename: 'lake.jpg', content: jpeg },
        { filename: 'dock.jpg', content: jpeg2 },
        { filename: 'dock.png', content: png, cid: 'dock@family.test' },
        { filename: 'recipe.pdf', content: minimalPdf() },
      ],
    });
    expect(info.response).toMatch(/^250 /);

    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1);
    expect(memory).toMatchObject({ source: 'email', status: 'pending', text_content: OWN_WORDS, contributor_name: 'Grandma Rose', contributor_email: 'rose@family.test', contributor_user: null });
    const processed = await eventually(
      async () => (await t.get(`/api/v1/books/${slug}/submissions/${memory.id}/`, { token: owner.token })).body,
      (s) => s.media.length === 3 && s.media.every((m: any) => m.processing_status === 'complete'),
      60_000,
    );
    expect(processed.media.map((m: any) => m.mime_type).sort()).toEqual(['image/jpeg', 'image/jpeg', 'image/png']);

    const replies = await eventually(async () => smtp.received.filter((m) => m.to.includes('rose@family.test')), (r) => r.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.received.filter((m) => m.to.includes('rose@family.test'))).toHaveLength(1);
    expect(replies[0].subject).toBe('Re: The lake house');
    expect(replies[0].text).toContain('recipe.pdf');
    expect(replies[0].text).toContain(book.title);
    expect(replies[0].text).not.toMatch(/lake\.jpg|dock\.jpg|dock\.png/);

    // The spool is gone once processed; nothing is left pending.
    const [row] = await eventually(() => inboundRows(slug), (r) => r[0]?.outcome === 'submitted');
    expect(row.outcome).toBe('submitted');
    await eventually(pendingObjects, (n) => n === 0);
  });

  it('processes a Message-ID once: the same message again is answered 250 and changes nothing', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const message = { from: 'Ann <ann@family.test>', to, subject: 'Once', text: 'Only once, please.', messageId: `<${randomUUID()}@family.test>` };
    expect((await deliver(receiver, message)).response).toMatch(/^250 .*accepted/);
    expect((await deliver(receiver, message)).response).toMatch(/^250 .*already received/);
    await eventually(() => inboundRows(slug), (r) => r.length === 1 && r[0].outcome === 'submitted');
    await new Promise((r) => setTimeout(r, 500));
    expect(await submissionsOf(slug)).toHaveLength(1);
  });

  it('refuses an unknown book and a closed one at RCPT TO (550), storing nothing', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    await t.db.query(`UPDATE books SET status = 'archived' WHERE slug = $1`, [slug]);
    for (const address of [`no-such-book-${randomUUID().slice(0, 6)}@${MAIL_DOMAIN}`, to, `${slug}@elsewhere.test`]) {
      const err = await deliver(receiver, { from: 'ann@family.test', to: address, subject: 'Hi', text: 'Hello' }).catch((e: unknown) => e as { responseCode?: number; command?: string });
      expect(err, address).toMatchObject({ responseCode: 550, command: 'RCPT TO' });
    }
    expect(await inboundRows(slug)).toEqual([]);
    await t.db.query(`UPDATE books SET status = 'active' WHERE slug = $1`, [slug]);
    expect(await submissionsOf(slug)).toEqual([]);
  });

  it("reaches a private book only at the address its owner is shown (<slug>+<key>): the bare slug or a wrong or old key is refused at RCPT TO like an unknown book", async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    expect(to).toMatch(new RegExp(`^${slug}\\+[a-z0-9_-]{16}@${MAIL_DOMAIN.replace(/\./g, '\\.')}$`));
    const refusedAt = (address: string) =>
      deliver(receiver, { from: 'ann@family.test', to: address, subject: 'Hi', text: 'Hello' }).then(
        () => null,
        (e: { responseCode?: number; command?: string; response?: string }) => ({ code: e.responseCode, command: e.command, text: e.response?.replace(/^\d{3} /, '') }),
      );
    const unknown = await refusedAt(`no-such-book-${randomUUID().slice(0, 6)}@${MAIL_DOMAIN}`);
    expect(unknown).toMatchObject({ code: 550, command: 'RCPT TO' });
    const key = to.slice(slug.length + 1, to.indexOf('@'));
    const wrongKey = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    for (const address of [`${slug}@${MAIL_DOMAIN}`, `${slug}+${wrongKey}@${MAIL_DOMAIN}`, `${slug}+@${MAIL_DOMAIN}`, `${slug}+${key}x@${MAIL_DOMAIN}`]) {
      expect(await refusedAt(address), address).toEqual(unknown);
    }
    // The shown address works, in any case.
    expect((await deliver(receiver, { from: 'ann@family.test', to: to.toUpperCase().replace(MAIL_DOMAIN.toUpperCase(), MAIL_DOMAIN), subject: 'Keyed', text: 'By the key.' })).response).toMatch(/^250 /);
    await eventually(() => submissionsOf(slug), (r) => r.length === 1 && r[0].text_content === 'By the key.');

    // Rotating the form key moves the mail address too: the old one stops working.
    const rotated = await t.post(`/api/v1/books/${slug}/form_key/rotate/`, {}, { token: owner.token, headers: { 'idempotency-key': randomUUID() } });
    expect(rotated.status).toBe(200);
    const moved = await mailAddressOf(t, slug, owner.token);
    expect(moved).not.toBe(to);
    expect(await refusedAt(to)).toEqual(unknown);
    expect((await deliver(receiver, { from: 'ann@family.test', to: moved, subject: 'New key', text: 'After the rotation.' })).response).toMatch(/^250 /);

    // A public book keeps its bare address.
    const open = await newBook(t, owner, { isPublic: true });
    expect(await mailAddressOf(t, open.slug, owner.token)).toBe(`${open.slug}@${MAIL_DOMAIN}`);
    expect((await deliver(receiver, { from: 'ann@family.test', to: `${open.slug}@${MAIL_DOMAIN}`, subject: 'Open', text: 'Anyone may.' })).response).toMatch(/^250 /);
  });

  it('drops a message that fails DMARC (550 5.7.1), recording it, never a memory', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const err = await deliver(receiver, { from: 'Bank <security@spoofed.test>', to, subject: 'Urgent', text: 'Click here' }).catch((e: unknown) => e as { responseCode?: number; response?: string });
    expect(err).toMatchObject({ responseCode: 550 });
    expect((err as { response: string }).response).toContain('5.7.1');
    expect(await inboundRows(slug)).toEqual([{ outcome: 'dropped:dmarc_fail', spool_key: null }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await submissionsOf(slug)).toEqual([]);
    expect(await pendingObjects()).toBe(0);
  });

  it('refuses a message over the 90 MB ceiling (552), keeping none of it', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const err = await deliver(receiver, {
      from: 'ann@family.test',
      to,
      subject: 'Huge',
      text: 'A very long film',
      attachments: [{ filename: 'film.mp4', content: bigFileStream('mp4', 91 * 1024 * 1024), contentType: 'video/mp4' }],
    }).catch((e: unknown) => e as { responseCode?: number });
    expect(err).toMatchObject({ responseCode: 552 });
    expect(await inboundRows(slug)).toEqual([]);
    expect(await pendingObjects()).toBe(0);
  }, 120_000);

  it('links a member who sends from their proved address, and counts memories per sender against the hourly limit', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const aunt = await newUser(t, { email: `aunt-${randomUUID().slice(0, 6)}@family.test` });
    await addMember(t, slug, aunt, 'contributor');
    for (let i = 0; i < 4; i++) {
      await deliver(receiver, { from: `Aunt May <${aunt.email}>`, to, subject: `Memory ${i}`, text: `Memory number ${i}` });
    }
    const rows = await eventually(() => inboundRows(slug), (r) => r.length === 4 && r.every((x) => x.outcome !== 'queued'));
    expect(rows.map((r) => r.outcome).sort()).toEqual(['refused:rate_limited', 'submitted', 'submitted', 'submitted']);
    const memories = await submissionsOf(slug);
    expect(memories).toHaveLength(3);
    for (const m of memories) expect(m.contributor_user).toMatchObject({ id: aunt.user.id });
  });
});

describe('a sender gone mid-message', () => {
  it('keeps nothing of a message cut off in DATA, and the receiver goes on', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const socket = connect(receiver.port, '127.0.0.1');
    let said = '';
    socket.on('data', (d) => (said += d));
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
    socket.write(`From: ann@family.test\r\nTo: ${to}\r\nSubject: Cut\r\n\r\n${'a line of a long letter\r\n'.repeat(20_000)}`);
    await new Promise((r) => setTimeout(r, 300));
    socket.destroy();
    await eventually(pendingObjects, (n) => n === 0);
    expect(await inboundRows(slug)).toEqual([]);
    const info = await deliver(receiver, { from: 'ann@family.test', to, subject: 'Whole', text: 'This one arrives.' });
    expect(info.response).toMatch(/^250 /);
  });
});

describe('STARTTLS', () => {
  it('is offered only with a certificate, and mail arrives over it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-tls-'));
    const keyPath = path.join(dir, 'key.pem');
    const certPath = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', `/CN=${MAIL_DOMAIN}`], { stdio: 'ignore' });
    const config = { ...t.config, mailInbound: { ...t.config.mailInbound, tls: { keyPath, certPath } } };
    const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
    const secure = await startMailInbound({ config, services: t.services, log, port: 0, resolver: fakeDns });
    try {
      const { slug } = await newBook(t, owner);
      const to = await mailAddressOf(t, slug, owner.token);
      const send = (port: number) =>
        nodemailer
          .createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } })
          .sendMail({ from: 'ann@family.test', to, subject: 'Over TLS', text: 'Sent privately.' });
      expect((await send(secure.port)).response).toMatch(/^250 /);
      // Without a certificate the receiver does not offer it, so a client that requires it gives up.
      await expect(send(receiver.port)).rejects.toThrow(/STARTTLS/);
      await eventually(() => submissionsOf(slug), (r) => r.length === 1 && r[0].text_content === 'Sent privately.');
    } finally {
      await secure.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
