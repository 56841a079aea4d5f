/**
 * The inbound webhook's admission control (src/http/plugins/inbound-admission.ts),
 * over HTTP on the real app: the turns a client gets before any of its body
 * is read, how they end whatever becomes of the request, and the refusals it
 * counts. webhooks.email.test.ts covers the rest (the 8-body ceiling, the
 * throttle after refused signatures, the allowed ranges, the declared length).
 */
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { inboundEnv, signBody } from '../../mail/inbound-email-helpers.js';

const WEBHOOK = '/webhooks/email/';
const WRONG = `sha256=${'0'.repeat(64)}`;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: inboundEnv({ SMTP_INBOUND_PORT: '', METRICS_TOKEN: 'admission-metrics' }) });
});

const post = (payload: Buffer | Readable, ip: string, signature = WRONG) =>
  t.app.inject({ method: 'POST', url: WEBHOOK, headers: { 'content-type': 'message/rfc822', 'x-memorybook-signature': signature }, payload: payload as Buffer, remoteAddress: ip });

/** A body that sends its first line when first read, then stalls until `end()`; `read` tells whether it was read at all. */
function stalledBody() {
  let started!: () => void;
  const reading = new Promise<void>((r) => (started = r));
  const state = { read: false };
  const body = new Readable({
    read() {
      if (state.read) return;
      state.read = true;
      this.push('From: x@family.test\r\n');
      started();
    },
  });
  return { body, reading, state, end: () => body.push(null) };
}

/** This process's count of inbound mail by outcome, as /metrics serves it. */
async function metric(outcome: string) {
  const scraped = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer admission-metrics' } });
  expect(scraped.statusCode).toBe(200);
  const line = new RegExp(`^memorybook_inbound_messages_total\\{provider="email",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(scraped.body);
  return Number(line?.[1] ?? 0);
}

describe('inbound webhook admission', () => {
  it('reads four bodies of one client at once; a fifth waits unread until one ends, while another client is not held', async () => {
    const ip = '198.51.100.41';
    const first = Array.from({ length: 4 }, () => stalledBody());
    const answers = first.map((b) => post(b.body, ip));
    await Promise.all(first.map((b) => b.reading));

    const fifth = stalledBody();
    const fifthAnswer = post(fifth.body, ip);
    // Another client's body is read at once.
    const other = await post(Buffer.from('From: y@family.test\r\n\r\nHi\r\n'), '198.51.100.42');
    expect(other.statusCode).toBe(403);
    await new Promise((r) => setTimeout(r, 300));
    expect(fifth.state.read).toBe(false);

    first[0].end();
    expect((await answers[0]).statusCode).toBe(403);
    await fifth.reading;
    for (const b of [...first.slice(1), fifth]) b.end();
    for (const r of await Promise.all([...answers.slice(1), fifthAnswer])) expect(r.statusCode).toBe(403);
  }, 60_000);

  it('gives the turn back after a read that fails (413) and after a refused signature', async () => {
    const ip = '198.51.100.43';
    // A refused signature throttles the client: one body at a time from now on, so a turn kept by mistake would hold it shut.
    expect((await post(Buffer.from('From: x@family.test\r\n\r\nHi\r\n'), ip)).statusCode).toBe(403);
    const holding = stalledBody();
    const holdingAnswer = post(holding.body, ip);
    await holding.reading;
    // The second body waits, unread, while the first holds the one turn.
    const waiting = stalledBody();
    const waitingAnswer = post(waiting.body, ip);
    await new Promise((r) => setTimeout(r, 300));
    expect(waiting.state.read).toBe(false);
    holding.end();
    expect((await holdingAnswer).statusCode).toBe(403);
    await waiting.reading;
    waiting.end();
    expect((await waitingAnswer).statusCode).toBe(403);

    // A body past the ceiling ends its read with 413 (no Content-Length to refuse it early).
    const huge = Readable.from(
      (function* () {
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        for (let i = 0; i < 91; i++) yield chunk;
      })(),
    );
    expect((await post(huge, ip)).statusCode).toBe(413);
    // The client's one turn is free again: the next body is read at once.
    const next = stalledBody();
    const nextAnswer = post(next.body, ip);
    await next.reading;
    next.end();
    expect((await nextAnswer).statusCode).toBe(403);
  }, 60_000);

  it('counts each refusal by its outcome; a signed body is not counted as refused', async () => {
    const before = await metric('refused_signature');
    const raw = Buffer.from('From: z@family.test\r\nTo: nobody@elsewhere.test\r\n\r\nHi\r\n');
    expect((await post(raw, '198.51.100.44')).statusCode).toBe(403);
    expect(await metric('refused_signature')).toBe(before + 1);
    // Signed, but addressed to no book: 404 from the service, not a refused signature.
    expect((await post(raw, '198.51.100.44', signBody(raw))).statusCode).toBe(404);
    expect(await metric('refused_signature')).toBe(before + 1);
  }, 60_000);
});
