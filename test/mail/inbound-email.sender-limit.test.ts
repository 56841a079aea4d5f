/**
 * The per-sender limit on memories by email is keyed on what was
 * authenticated: a proved From address has a budget of its own; mail whose
 * From is not proved shares one budget per book, so forging a new From for
 * every message buys no more memories.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { eventually } from '../helpers/eventually.js';
import { newBook, newUser, type TestUser } from '../helpers/factories.js';
import { inboundEnv, mailAddressOf, signBody } from './inbound-email-helpers.js';

let t: TestApp;
let owner: TestUser;

beforeAll(async () => {
  t = await buildTestApp({ env: inboundEnv({ WEB_FORM_RATE_LIMIT: '2' }), worker: true });
  owner = await newUser(t);
}, 120_000);

const post = (raw: Buffer) =>
  t.app.inject({ method: 'POST', url: '/webhooks/email/', headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signBody(raw) }, payload: raw });

function message(to: string, from: string, proved: boolean): Buffer {
  const domain = from.slice(from.indexOf('@') + 1);
  return Buffer.from(
    [
      ...(proved ? [`Authentication-Results: mx.provider.test; spf=pass smtp.mailfrom=${from}; dkim=none; dmarc=pass header.from=${domain}`] : []),
      `From: <${from}>`,
      `To: ${to}`,
      'Subject: A memory',
      `Message-ID: <${randomUUID()}@${domain}>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Remember the lake? (${from})`,
      '',
    ].join('\r\n'),
  );
}

describe('the sender limit on memories by email', () => {
  it('gives every unproved From one shared budget per book, and a proved sender a budget of its own', async () => {
    const { slug } = await newBook(t, owner);
    const to = await mailAddressOf(t, slug, owner.token);
    // Three messages, each "from" someone else, none proved: the limit of 2 holds across them.
    for (const from of ['one@forged.test', 'two@forged.test', 'three@forged.test']) expect((await post(message(to, from, false))).statusCode).toBe(202);
    // A proved sender is not held back by the unproved mail's budget.
    expect((await post(message(to, 'ann@family.test', true))).statusCode).toBe(202);
    const rows = await eventually(
      () =>
        t.db.query<{ outcome: string }>(
          `SELECT e.outcome FROM inbound_emails e JOIN books b ON b.id = e.book_id WHERE b.slug = $1`,
          [slug],
        ),
      (r) => r.length === 4 && r.every((x) => x.outcome !== 'queued'),
      60_000,
    );
    expect(rows.filter((r) => r.outcome === 'refused:rate_limited')).toHaveLength(1);
    const items = (await t.get(`/api/v1/books/${slug}/submissions/`, { token: owner.token })).body.items as { text_content: string }[];
    expect(items).toHaveLength(3);
    expect(items.some((s) => s.text_content.includes('ann@family.test'))).toBe(true);
  }, 120_000);
});
