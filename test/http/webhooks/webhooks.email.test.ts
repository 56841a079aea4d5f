import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { bigFileStream, minimalPdf, readFixture } from '../../helpers/media-fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { AUTHSERV_ID, inboundEnv, MAIL_DOMAIN, mailAddressOf, OWN_WORDS, QUOTED_REPLY, rawMessage, signBody } from '../../mail/inbound-email-helpers.js';

const WEBHOOK = '/webhooks/email/';
const PASS = 'mx.provider.test; spf=pass smtp.mailfrom=rose@family.test; dkim=pass header.d=family.test; dmarc=pass header.from=family.test';

let t: TestApp;
let smtp: TestSmtpServer;
let owner: TestUser;

beforeAll(async () => {
  smtp = await startSmtpServer();
  // Only the webhook: no SMTP receiver port.
  t = await buildTestApp({ env: inboundEnv({ SMTP_INBOUND_PORT: '', SMTP_URL: smtp.url }), worker: true });
  owner = await newUser(t);
});
afterAll(() => smtp?.close());

const post = (payload: Buffer | NodeJS.ReadableStream, signature: string | null, o: { ip?: string; headers?: Record<string, string> } = {}) =>
  t.app.inject({
    method: 'POST',
    url: WEBHOOK,
    headers: { 'content-type': 'message/rfc822', ...(signature === null ? {} : { 'x-memorybook-signature': signature }), ...o.headers },
    payload: payload as Buffer,
    ...(o.ip ? { remoteAddress: o.ip } : {}),
  });
const submissionsOf = async (slug: string) => (await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).body.items as any[];
const inboundRows = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_emails`))[0].n;
const pendingObjects = async (app: TestApp = t) => (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_objects`))[0].n;
const spooled = async () => (await readdir(path.join(t.config.dataDir, 'objects', 'inbound-mail')).catch(() => [] as string[])).filter((f) => !f.startsWith('.'));

describe('POST /webhooks/email/', () => {
  it('refuses a bad or missing signature with 403, keeping nothing', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const raw = await rawMessage({ from: 'rose@family.test', to, subject: 'Hi', text: 'Hello', headers: { 'Authentication-Results': PASS } });
    const before = await inboundRows();
    for (const signature of [null, 'sha256=nothex', signBody(raw, 'another-secret-0123456789abcdef'), signBody(Buffer.concat([raw, Buffer.from('x')]))]) {
      const res = await post(raw, signature);
      expect(res.statusCode, String(signature)).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    expect(await inboundRows()).toBe(before);
    expect(await pendingObjects()).toBe(0);
    expect(await spooled()).toEqual([]);
    expect(await submissionsOf(slug)).toEqual([]);
  });

  it('turns a signed raw message into one pending memory with its photos, replies once about the refused PDF, and takes its Message-ID once', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const [jpeg, jpeg2, png] = await Promise.all([readFixture('jpeg'), readFixture('jpegRotated'), readFixture('png')]);
    const raw = await rawMessage({
      from: '"Grandma Rose" <rose@family.test>',
      to,
      subject: 'The lake house',
      messageId: `<${randomUUID()}@family.test>`,
      headers: { 'Authentication-Results': PASS },
      text: QUOTED_REPLY,
      html: `<p>${OWN_WORDS}</p><img src="cid:dock@family.test">`,
      attachments: [
        { filename: 'lake.jpg', content: jpeg },
        { filename: 'dock.jpg', content: jpeg2 },
        { filename: 'dock.png', content: png, cid: 'dock@family.test' },
        { filename: 'recipe.pdf', content: minimalPdf() },
      ],
    });
    const res = await post(raw, signBody(raw));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'accepted' });
    const again = await post(raw, signBody(raw));
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ status: 'duplicate' });

    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1);
    expect(memory).toMatchObject({ source: 'email', status: 'pending', text_content: OWN_WORDS, contributor_name: 'Grandma Rose', contributor_email: 'rose@family.test' });
    await eventually(
      async () => (await t.get(`/api/v1/books/${slug}/submissions/${memory.id}/`, { token: owner.token })).body,
      (s) => s.media.length === 3 && s.media.every((m: any) => m.processing_status === 'complete'),
      60_000,
    );
    const replies = await eventually(async () => smtp.received.filter((m) => m.to.includes('rose@family.test')), (r) => r.length >= 1);
    expect(replies).toHaveLength(1);
    expect(replies[0].text).toContain('recipe.pdf');
    await new Promise((r) => setTimeout(r, 500));
    expect(await submissionsOf(slug)).toHaveLength(1);
    expect(smtp.received.filter((m) => m.to.includes('rose@family.test'))).toHaveLength(1);
    await eventually(spooled, (f) => f.length === 0);
  });

  it('drops a message the provider found failing DMARC (202 dropped), recording it, never a memory', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const raw = await rawMessage({
      from: 'security@spoofed.test',
      to,
      subject: 'Urgent',
      text: 'Click here',
      headers: { 'Authentication-Results': 'mx.provider.test; spf=fail smtp.mailfrom=spoofed.test; dkim=none; dmarc=fail (p=reject) header.from=spoofed.test' },
    });
    const res = await post(raw, signBody(raw));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'dropped' });
    const rows = await t.db.query(`SELECT e.outcome, e.spool_key FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE b.slug = $1`, [slug]);
    expect(rows).toEqual([{ outcome: 'dropped:dmarc_fail', spool_key: null }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await submissionsOf(slug)).toEqual([]);
    expect(await spooled()).toEqual([]);
  });

  it('answers 404 for an unknown or closed book, keeping nothing', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    await t.db.query(`UPDATE books SET settings = jsonb_set(settings, '{channels}', '{"email": false}') WHERE slug = $1`, [slug]);
    const before = await inboundRows();
    // A closed book, an unknown one, another domain, and a plus-address: all alike.
    for (const address of [
      to,
      `nobody-${randomUUID().slice(0, 6)}@${MAIL_DOMAIN}`,
      `${slug}@elsewhere.test`,
      `${slug}+extra@${MAIL_DOMAIN}`,
    ]) {
      const raw = await rawMessage({ from: 'rose@family.test', to: address, subject: 'Hi', text: 'Hello' });
      const res = await post(raw, signBody(raw));
      expect(res.statusCode, address).toBe(404);
      expect(res.json(), address).toMatchObject({ code: 'not_found' });
    }
    expect(await inboundRows()).toBe(before);
    expect(await spooled()).toEqual([]);
    expect(await pendingObjects()).toBe(0);
  });

  it('refuses a message over the 90 MB ceiling with 413, keeping none of it', async () => {
    const res = await post(bigFileStream('pdf', 91 * 1024 * 1024), `sha256=${'0'.repeat(64)}`);
    expect(res.statusCode).toBe(413);
    expect(await spooled()).toEqual([]);
    expect(await pendingObjects()).toBe(0);
  }, 60_000);

  it('refuses a declared length over the ceiling with 413 before reading a byte', async () => {
    let read = false;
    const body = new Readable({
      read() {
        read = true;
        this.push(null);
      },
    });
    const res = await post(body, `sha256=${'0'.repeat(64)}`, { headers: { 'content-length': String(91 * 1024 * 1024) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large', details: { max_bytes: 90 * 1024 * 1024 } });
    expect(read).toBe(false);
  });

  it("never locks out a good signature because of others' failures: after 10 refused signatures from its IP a signed message still gets in", async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const ip = `198.51.100.${10 + Math.floor(Math.random() * 200)}`;
    const raw = await rawMessage({ from: 'rose@family.test', to, subject: 'Hi', text: 'Hello', messageId: `<${randomUUID()}@family.test>` });
    const wrong = signBody(raw, 'not-the-secret-0123456789abcdef');
    const refused = await Promise.all(Array.from({ length: 10 }, () => post(raw, wrong, { ip })));
    for (const res of refused) expect(res.json()).toMatchObject({ code: 'forbidden' });
    // Throttled, not refused: its next bodies are read one at a time, each refusal holding the turn a while.
    const started = Date.now();
    const [w1, good, w2] = await Promise.all([post(raw, wrong, { ip }), post(raw, signBody(raw), { ip }), post(raw, wrong, { ip })]);
    expect([w1.statusCode, good.statusCode, w2.statusCode]).toEqual([403, 202, 403]);
    expect(good.json()).toEqual({ status: 'accepted' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    await eventually(() => submissionsOf(slug), (r) => r.length === 1);
    expect(await pendingObjects()).toBe(0);
  }, 60_000);

  it('counts an IPv6 client by its /64', async () => {
    const raw = Buffer.from('From: x@family.test\r\n\r\nHi\r\n');
    const res = await post(raw, signBody(raw, 'not-the-secret-0123456789abcdef'), { ip: '2001:db8:7:9:aaaa::1' });
    expect(res.statusCode).toBe(403);
    const buckets = await t.db.query<{ bucket: string }>(`SELECT DISTINCT bucket FROM rate_limit_hits WHERE bucket LIKE 'email_webhook_signature:%2001:db8:7:9%'`);
    expect(buckets).toEqual([{ bucket: 'email_webhook_signature:ip:2001:db8:7:9::/64' }]);
  });

  it('answers 503 with Retry-After past 8 unverified bodies in flight in the whole process, and reads none of that one', async () => {
    const stalled: Readable[] = [];
    const reading: Promise<void>[] = [];
    const pending: Promise<Awaited<ReturnType<typeof post>>>[] = [];
    for (let i = 0; i < 8; i++) {
      let started!: () => void;
      reading.push(new Promise<void>((r) => (started = r)));
      const body = new Readable({
        read() {
          if (!this.readableLength) {
            this.push('From: x@family.test\r\n');
            started();
          }
        },
      });
      stalled.push(body);
      // Two clients, four bodies each: the per-client turns allow that.
      pending.push(post(body as unknown as Buffer, `sha256=${'0'.repeat(64)}`, { ip: `203.0.113.${i < 4 ? 71 : 72}` }));
    }
    await Promise.all(reading);
    let read = false;
    const ninth = new Readable({
      read() {
        read = true;
        this.push(null);
      },
    });
    const res = await post(ninth, `sha256=${'0'.repeat(64)}`, { ip: '203.0.113.73' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'service_unavailable' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(read).toBe(false);
    for (const body of stalled) body.push(null);
    for (const r of await Promise.all(pending)) expect(r.statusCode).toBe(403);
  }, 60_000);

  it("believes only the Authentication-Results of INBOUND_EMAIL_AUTHSERV_ID: a sender's own field claiming a pass links no one", async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const email = `aunt-${randomUUID().slice(0, 6)}@family.test`;
    const aunt = await newUser(t, { email });
    await addMember(t, slug, aunt, 'contributor');
    const forged = 'attacker.test; spf=pass smtp.mailfrom=' + email + '; dkim=pass header.d=family.test; dmarc=pass header.from=family.test';
    const spoof = await rawMessage({ from: `Aunt May <${email}>`, to, subject: 'Forged', text: 'Not really me.', headers: { 'Authentication-Results': forged } });
    expect((await post(spoof, signBody(spoof))).statusCode).toBe(202);
    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1);
    expect(memory).toMatchObject({ text_content: 'Not really me.', contributor_user: null, contributor_email: email });

    const real = await rawMessage({ from: `Aunt May <${email}>`, to, subject: 'Real', text: 'Really me.', headers: { 'Authentication-Results': PASS.replace('rose@', 'aunt@') } });
    expect((await post(real, signBody(real))).statusCode).toBe(202);
    const both = await eventually(() => submissionsOf(slug), (r) => r.length === 2);
    expect(both.find((m) => m.text_content === 'Really me.').contributor_user).toMatchObject({ id: aunt.user.id });
  });

  it('proves a sender by a DKIM pass of another name of their organisation (relaxed alignment), never by a look-alike', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const email = `uncle-${randomUUID().slice(0, 6)}@news.family.co.uk`;
    const uncle = await newUser(t, { email });
    await addMember(t, slug, uncle, 'contributor');
    const send = async (signer: string, text: string) => {
      const raw = await rawMessage({ from: email, to, subject: text, text, headers: { 'Authentication-Results': `${AUTHSERV_ID}; spf=none; dkim=pass header.d=${signer}; dmarc=none` } });
      expect((await post(raw, signBody(raw))).statusCode).toBe(202);
    };
    await send('mail.family.co.uk', 'Signed by a sibling name.');
    await send('family.co.uk.evil.test', 'Signed by a look-alike.');
    await send('co.uk', 'Signed by a public suffix.');
    const memories = await eventually(() => submissionsOf(slug), (r) => r.length === 3);
    const by = (text: string) => memories.find((m) => m.text_content === text);
    expect(by('Signed by a sibling name.').contributor_user).toMatchObject({ id: uncle.user.id });
    expect(by('Signed by a look-alike.').contributor_user).toBeNull();
    expect(by('Signed by a public suffix.').contributor_user).toBeNull();
  });

  it('links a sender holding a pending email invitation to the book (the invitation accepted) when the provider proved their domain', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const email = `cousin-${randomUUID().slice(0, 6)}@family.test`;
    const cousin = await newUser(t, { email });
    const inv = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: email }, { token: owner.token });
    expect(inv.status).toBe(201);
    const raw = await rawMessage({
      from: `Cousin Jo <${email}>`,
      to,
      subject: 'Fishing',
      text: 'The big one got away.',
      headers: { 'Authentication-Results': `mx.provider.test; spf=pass smtp.mailfrom=${email}; dkim=none; dmarc=pass header.from=family.test` },
    });
    expect((await post(raw, signBody(raw))).statusCode).toBe(202);
    const [memory] = await eventually(() => submissionsOf(slug), (r) => r.length === 1);
    expect(memory.contributor_user).toMatchObject({ id: cousin.user.id });
    const [after] = await t.db.query<{ status: string; accepted_user_id: string }>(`SELECT status, accepted_user_id FROM invitations WHERE id = $1`, [inv.body.id]);
    expect(after).toEqual({ status: 'accepted', accepted_user_id: cousin.user.id });
    const members = await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token });
    expect(members.body.items.map((m: any) => m.user?.id ?? m.user_id)).toContain(cousin.user.id);
  });
});

describe('the provider verdict and INBOUND_EMAIL_ALLOWED_CIDRS', () => {
  it("links no one when the provider's own top field names another server, whatever a field below it claims", async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    const email = `niece-${randomUUID().slice(0, 6)}@family.test`;
    const niece = await newUser(t, { email });
    await addMember(t, slug, niece, 'contributor');
    // The sender wrote a field with the provider's id; the provider (under another id) prepended its own on top.
    const planted = await rawMessage({ from: email, to, subject: 'Planted', text: 'Planted below.', headers: { 'Authentication-Results': PASS } });
    const raw = Buffer.concat([Buffer.from('Authentication-Results: mx2.provider.test; spf=none; dkim=none; dmarc=none\r\n'), planted]);
    expect((await post(raw, signBody(raw))).statusCode).toBe(202);
    // A DMARC pass for another domain than the From proves nothing either.
    const other = await rawMessage({ from: email, to, subject: 'Other', text: 'Other domain.', headers: { 'Authentication-Results': 'mx.provider.test; spf=none; dkim=none; dmarc=pass header.from=attacker.test' } });
    expect((await post(other, signBody(other))).statusCode).toBe(202);
    const memories = await eventually(() => submissionsOf(slug), (r) => r.length === 2);
    for (const m of memories) expect(m).toMatchObject({ contributor_user: null, contributor_email: email });
  });

  it('refuses an address outside the allowed ranges with 403 before reading the body; an allowed one goes through, unthrottled', async () => {
    const app = await buildTestApp({ env: inboundEnv({ SMTP_INBOUND_PORT: '', INBOUND_EMAIL_ALLOWED_CIDRS: '192.0.2.0/24, 2001:db8:5::/48' }) });
    const someone = await newUser(app);
    const { slug } = await newBook(app, someone);
    const to = await mailAddressOf(app, slug, someone.token);
    const raw = await rawMessage({ from: 'rose@family.test', to, subject: 'Hi', text: 'Allowed.', messageId: `<${randomUUID()}@family.test>` });
    const send = (payload: Buffer | Readable, ip: string, signature = signBody(raw)) =>
      app.app.inject({ method: 'POST', url: WEBHOOK, headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signature }, payload: payload as Buffer, remoteAddress: ip });
    let read = false;
    const body = new Readable({
      read() {
        read = true;
        this.push(raw);
        this.push(null);
      },
    });
    const outside = await send(body, '198.51.100.7');
    expect(outside.statusCode).toBe(403);
    expect(outside.json().code).toBe('forbidden');
    expect(read).toBe(false);
    // Refused signatures from an allowed address cost no delay and throttle nothing.
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await send(raw, '192.0.2.9', signBody(raw, 'not-the-secret-0123456789abcdef'))).statusCode).toBe(403);
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await send(raw, '192.0.2.9')).statusCode).toBe(202);
    expect((await send(raw, '2001:db8:5:1::9')).json()).toEqual({ status: 'duplicate' });
  });
});

describe('processing after a failure', () => {
  it('a run that dies midway leaves nothing behind, and the next run makes exactly one memory with every photo', async () => {
    // No worker: the test runs the job itself, as pg-boss would once the lease of a dead worker lapses.
    const app = await buildTestApp({ env: inboundEnv({ SMTP_INBOUND_PORT: '' }) });
    const someone = await newUser(app);
    const { slug } = await newBook(app, someone);
    const to = await mailAddressOf(app, slug, someone.token);
    const [jpeg, png] = await Promise.all([readFixture('jpeg'), readFixture('png')]);
    const raw = await rawMessage({
      from: 'rose@family.test',
      to,
      subject: 'Two photos',
      text: 'The porch and the garden.',
      attachments: [
        { filename: 'porch.jpg', content: jpeg },
        { filename: 'garden.png', content: png },
      ],
    });
    const res = await app.app.inject({ method: 'POST', url: WEBHOOK, headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signBody(raw) }, payload: raw });
    expect(res.statusCode).toBe(202);
    const [{ id }] = await app.db.query<{ id: string }>(`SELECT id FROM inbound_emails`);
    const memories = async () => app.db.query<{ id: string }>(`SELECT s.id FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]);

    // The second photo's store write fails: the run fails, the first photo is removed again, no memory.
    const realPut = app.services.store.put.bind(app.services.store);
    let puts = 0;
    app.services.store.put = async (key, body, o) => {
      if (key.startsWith('media/') && ++puts === 2) {
        body.destroy(); // as a store does when its write fails
        throw new Error('store down');
      }
      return realPut(key, body, o);
    };
    await expect(app.services.inboundEmail.process(id)).rejects.toThrow('store down');
    expect(await memories()).toEqual([]);
    expect((await app.db.query(`SELECT outcome, processed_at FROM inbound_emails WHERE id = $1`, [id]))[0]).toEqual({ outcome: 'queued', processed_at: null });
    expect(await pendingObjects(app)).toBe(0);

    app.services.store.put = realPut;
    expect(await app.services.inboundEmail.process(id)).toBe('submitted');
    expect(await app.services.inboundEmail.process(id)).toBe('submitted');
    const [memory] = await memories();
    expect(await memories()).toHaveLength(1);
    const media = await app.db.query<{ mime_type: string }>(`SELECT mime_type FROM media WHERE submission_id = $1 ORDER BY mime_type`, [memory.id]);
    expect(media.map((m) => m.mime_type)).toEqual(['image/jpeg', 'image/png']);
  });
});
