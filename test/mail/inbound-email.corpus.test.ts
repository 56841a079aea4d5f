import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpReceiver } from '../../src/mail/inbound-receiver.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { eventually } from '../helpers/eventually.js';
import { newBook, newUser, type TestUser } from '../helpers/factories.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { MAX_TEXT_LENGTH } from '../../src/services/submissions/submission-types.js';
import { corpus, type CorpusCase } from './corpus/corpus.js';
import { deliver, inboundEnv, mailAddressOf, rawMessage, signBody, startReceiver } from './inbound-email-helpers.js';

/**
 * The corpus (test/mail/corpus) sent as mail, each message once through the
 * SMTP receiver and once through the signed webhook: the memory each becomes
 * holds exactly the expected own words in at least 95% of them, every
 * forward's memory holds the forwarded text, and no memory of a message with
 * words holds its Subject instead.
 */
let t: TestApp;
let smtp: TestSmtpServer;
let receiver: SmtpReceiver;
let owner: TestUser;
const cases = await corpus();

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ env: inboundEnv({ SMTP_URL: smtp.url, WEB_FORM_RATE_LIMIT: '1000' }), worker: true });
  receiver = await startReceiver(t);
  owner = await newUser(t);
});
afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
});

const message = (c: CorpusCase, n: number, to: string) => ({
  from: `"case ${n}" <case${n}@family.test>`,
  to,
  subject: c.subject ?? 'A memory',
  messageId: `<${randomUUID()}@family.test>`,
  ...(c.text !== undefined ? { text: c.text } : { html: c.html }),
});

async function memoriesOf(slug: string): Promise<Map<number, { text_content: string; email_trimmed: unknown }>> {
  const rows = await t.db.query<{ contributor_name: string; text_content: string; email_trimmed: unknown }>(
    `SELECT s.contributor_name, s.text_content, s.email_trimmed FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`,
    [slug],
  );
  return new Map(rows.map((r) => [Number(r.contributor_name.replace('case ', '')), r]));
}

function judge(path: string, got: Map<number, { text_content: string }>) {
  const misses: string[] = [];
  cases.forEach((c, n) => {
    const memory = got.get(n);
    expect(memory, `${path}: ${c.name} became no memory`).toBeDefined();
    // No memory of a message with words holds its Subject instead.
    if (c.expected) expect(memory!.text_content, `${path}: ${c.name}`).not.toBe(c.subject ?? 'A memory');
    // A forward's memory holds the forwarded text.
    if (c.subject?.startsWith('Fwd:')) expect(memory!.text_content, `${path}: ${c.name}`).toContain('We miss her every day.');
    // A memory holds at most MAX_TEXT_LENGTH characters.
    if (memory!.text_content !== c.expected.slice(0, MAX_TEXT_LENGTH)) misses.push(c.name);
  });
  console.log(`${path}: ${cases.length - misses.length} of ${cases.length} exact${misses.length ? `; not exact: ${misses.join('; ')}` : ''}`);
  expect(cases.length - misses.length).toBeGreaterThanOrEqual(Math.ceil(cases.length * 0.95));
}

describe('the corpus as mail', () => {
  it('over the SMTP receiver', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    for (const [n, c] of cases.entries()) {
      // A 451 (the receiver could not finish, e.g. a DNS lookup for the verdict timing out on a loaded machine) is
      // what a sending MTA retries; this test is about the words, so it retries once as the MTA would.
      const mail = message(c, n, to);
      const info = await deliver(receiver, mail).catch((err: Error) => (err.message.includes(' 451 ') ? deliver(receiver, mail) : Promise.reject(err)));
      expect(info.response).toMatch(/^250 /);
    }
    const got = await eventually(() => memoriesOf(slug), (m) => m.size === cases.length, 300_000);
    judge('SMTP', got);
    // What was cut is kept with the memory and shown to its owner.
    const first = (await t.get(`/api/v1/books/${slug}/submissions/?limit=100`, { token: owner.token })).body.items as any[];
    expect(first.some((s) => s.email_trimmed?.quoted)).toBe(true);
  }, 600_000);

  it('over the signed webhook', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    for (const [n, c] of cases.entries()) {
      const raw = await rawMessage(message(c, n, to));
      const res = await t.app.inject({ method: 'POST', url: '/webhooks/email/', headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signBody(raw) }, payload: raw });
      expect(res.statusCode, `${n}: ${res.body}`).toBe(202);
    }
    judge('webhook', await eventually(() => memoriesOf(slug), (m) => m.size === cases.length, 300_000));
  }, 600_000);
});
