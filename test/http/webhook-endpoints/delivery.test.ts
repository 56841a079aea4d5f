/**
 * Delivery to real receivers: Standard Webhooks signatures (checked with the
 * standardwebhooks library), the retry schedule on a fake clock, 410, the
 * delivery log, and a receiver that hangs delaying no other endpoint.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_SECONDS } from '../../../src/services/webhook-endpoints/dispatcher.js';
import { startReceiver } from './receiver.js';
import { fakeClock, mailTo, ownerWithEndpoint, webhookApp } from './webhook-setup.js';

const memory = (text = 'A memory') => ({ text_content: text });

describe('webhook delivery', () => {
  it('signs as Standard Webhooks: the library verifies the body, and refuses it once one byte changes', async () => {
    const t = await webhookApp();
    const receiver = await startReceiver();
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const created = await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    expect(created.status).toBe(201);
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    const [got] = await receiver.waitFor(1);
    const wh = new Webhook(endpoint.secret);
    const headers = { 'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']) };
    const payload = wh.verify(got.body, headers) as any;
    expect(payload.type).toBe('submission.created');
    expect(payload.id).toBe(headers['webhook-id']);
    expect(payload.data.object.id).toBe(created.body.id);
    // One byte of the body changed: refused.
    const tampered = got.body.replace('submission.created', 'submission.createe');
    expect(() => wh.verify(tampered, headers)).toThrow();
    // Another secret: refused.
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(got.body, headers)).toThrow();
    // The event as GET /events/{id}/ answers it is the body.
    const ev = await t.get(`/api/v1/events/${payload.id}/`, { token: owner.token });
    expect(ev.body).toEqual(payload);
    // The log: one attempt, 200.
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items).toEqual([expect.objectContaining({ event_id: payload.id, attempt: 1, status_code: 200, error: null, next_retry_at: null })]);
  });

  it('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
    const clock = fakeClock();
    const t = await webhookApp({ now: clock.now });
    const receiver = await startReceiver();
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    const rotated = await t.post(`/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret/`, undefined, { token: owner.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    const [first] = await receiver.waitFor(1);
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headersOf = (r: typeof first) => Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));
    expect(() => new Webhook(endpoint.secret).verify(first.body, headersOf(first))).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(first.body, headersOf(first))).not.toThrow();
    clock.advance(24 * 3600 + 1);
    await t.post(`/api/v1/books/${slug}/submissions/`, memory('later'), { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    const [, second] = await receiver.waitFor(2);
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('500 three times then 200: delivered once as a 2xx, every attempt in the log, on the schedule', async () => {
    const clock = fakeClock();
    const t = await webhookApp({ now: clock.now });
    const receiver = await startReceiver((n) => (n <= 3 ? 500 : 200));
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    for (let i = 0; i < 3; i++) {
      // Not due before its wait is over.
      clock.advance(RETRY_SCHEDULE_SECONDS[i] - 3);
      expect(await t.services.webhookDispatcher.runDue()).toBe(0);
      clock.advance(3);
      expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    }
    clock.advance(3600 * 24);
    expect(await t.services.webhookDispatcher.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items.map((a: any) => [a.attempt, a.status_code])).toEqual([
      [4, 200],
      [3, 500],
      [2, 500],
      [1, 500],
    ]);
    expect(log.body.items[1].next_retry_at).not.toBeNull();
    expect(log.body.items[0].next_retry_at).toBeNull();
    expect((await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/`, { token: owner.token })).body.status).toBe('enabled');
  });

  it('a receiver that always fails is disabled after the last retry (failing) and its owner is mailed', async () => {
    const clock = fakeClock();
    const t = await webhookApp({ now: clock.now });
    const receiver = await startReceiver(() => 503);
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    for (const wait of RETRY_SCHEDULE_SECONDS) {
      clock.advance(wait);
      expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    }
    expect(receiver.received).toHaveLength(RETRY_SCHEDULE_SECONDS.length + 1);
    const after = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/`, { token: owner.token });
    expect(after.body).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    const mails = await mailTo(t, owner.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toMatch(/webhook endpoint was disabled/i);
    expect(mails[0].text).toContain(endpoint.url);
    // Nothing more is sent to it, and new events make no delivery for it.
    await t.post(`/api/v1/books/${slug}/submissions/`, memory('more'), { token: owner.token });
    clock.advance(3600 * 48);
    expect(await t.services.webhookDispatcher.runDue()).toBe(0);
    // Enabled again: disabled_reason cleared, deliveries resume.
    const on = await t.patch(`/api/v1/webhook_endpoints/${endpoint.id}/`, { status: 'enabled' }, { token: owner.token });
    expect(on.body).toMatchObject({ status: 'enabled', disabled_reason: null });
  });

  it('410 Gone disables the endpoint at once', async () => {
    const t = await webhookApp();
    const receiver = await startReceiver(() => 410);
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    expect(receiver.received).toHaveLength(1);
    expect((await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/`, { token: owner.token })).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    expect(await mailTo(t, owner.email)).toHaveLength(1);
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items).toEqual([expect.objectContaining({ attempt: 1, status_code: 410, next_retry_at: null })]);
  });

  it('a redirect is not followed: it counts as a failure', async () => {
    const t = await webhookApp();
    const receiver = await startReceiver(() => 302);
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items).toEqual([expect.objectContaining({ status_code: 302, error: 'HTTP 302' })]);
    expect(log.body.items[0].next_retry_at).not.toBeNull();
  });

  it('a receiver that hangs delays no other endpoint; it times out and is retried', async () => {
    const t = await webhookApp({ timeoutMs: 3000 });
    const hanging = await startReceiver(() => 'hang');
    const quick = await startReceiver();
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, hanging.url);
    const other = await t.post('/api/v1/webhook_endpoints/', { url: quick.url }, { token: owner.token });
    t.services.webhookDispatcher.start();
    const started = Date.now();
    const made = await t.post(`/api/v1/books/${slug}/submissions/`, memory(), { token: owner.token });
    expect(made.status, made.text).toBe(201);
    await quick.waitFor(1, 5000);
    expect(Date.now() - started).toBeLessThan(2000);
    await hanging.waitFor(1, 5000);
    // The hanging one ends in a timeout, logged, and is due again later.
    await new Promise((r) => setTimeout(r, 3500));
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items[0]).toMatchObject({ attempt: 1, status_code: null });
    expect(log.body.items[0].error).toMatch(/No answer within 3 s/);
    const quickLog = await t.get(`/api/v1/webhook_endpoints/${other.body.id}/deliveries/`, { token: owner.token });
    expect(quickLog.body.items[0]).toMatchObject({ attempt: 1, status_code: 200 });
  });

  it('the test ping is sent at once, signed, and logged', async () => {
    const t = await webhookApp();
    const receiver = await startReceiver();
    const { owner, endpoint } = await ownerWithEndpoint(t, receiver.url);
    const ping = await t.post(`/api/v1/webhook_endpoints/${endpoint.id}/test/`, undefined, { token: owner.token });
    expect(ping.status).toBe(202);
    expect(ping.body).toMatchObject({ type: 'ping', book_slug: null, data: { object: { endpoint_id: endpoint.id } } });
    await t.services.webhookDispatcher.runDue();
    const [got] = await receiver.waitFor(1);
    const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(got.headers[h])]));
    expect(new Webhook(endpoint.secret).verify(got.body, headers)).toEqual(ping.body);
  });
});
