/**
 * Redelivery (POST …/deliveries/{delivery_id}/retry/), the delivery log's
 * event type and answer excerpt, a disabled endpoint refusing a ping or a
 * redelivery, book.created, and member.removed naming the member as
 * member.added does.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newUser } from '../../helpers/factories.js';
import { startReceiver } from './receiver.js';
import { ownerWithEndpoint, webhookApp } from './webhook-setup.js';

const headersOf = (r: { headers: Record<string, unknown> }) => Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));

describe('redelivery and the delivery log', () => {
  it('sends a delivered event again on request, idempotently; the log shows the type and the first kilobyte of the answer', async () => {
    const t = await webhookApp();
    const long = 'é'.repeat(700); // 1,400 bytes of UTF-8
    const receiver = await startReceiver((n) => (n === 1 ? { status: 200, body: long } : { status: 500, body: 'receiver bug: no handler for submission.created' }));
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    const made = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'A memory' }, { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    const logPath = `/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`;
    let log = await t.get(logPath, { token: owner.token });
    const [first] = log.body.items;
    expect(first).toMatchObject({ event_type: 'submission.created', attempt: 1, status_code: 200, error: null });
    // The first 1,024 bytes of the answer, cut inside a character at worst.
    expect(Buffer.byteLength(first.response_excerpt)).toBeLessThanOrEqual(1026);
    expect(first.response_excerpt.startsWith('é'.repeat(500))).toBe(true);
    expect(first.response_excerpt.length).toBeLessThan(long.length);

    // Sent again: same body and webhook-id, signed anew; 202 with the delivery, pending.
    const retryPath = `${logPath}${first.delivery_id}/retry/`;
    const key = { token: owner.token, headers: { 'idempotency-key': 'redeliver-1' } };
    const retried = await t.post(retryPath, undefined, key);
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body).toMatchObject({ id: first.delivery_id, event_id: first.event_id, event_type: 'submission.created', status: 'pending', attempts: 1 });
    expect(retried.body.next_attempt_at).not.toBeNull();
    // The same key again: the same answer, nothing more queued.
    const replay = await t.post(retryPath, undefined, key);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(retried.body);
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    const [a, b] = receiver.received;
    expect(b.body).toBe(a.body);
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
    expect(new Webhook(endpoint.secret).verify(b.body, headersOf(b))).toMatchObject({ type: 'submission.created', data: { object: { id: made.body.id } } });

    // The redelivery failed (500): logged with the answer, and its retry schedule starts again (not the endpoint disabled).
    log = await t.get(logPath, { token: owner.token });
    expect(log.body.items[0]).toMatchObject({
      delivery_id: first.delivery_id,
      event_type: 'submission.created',
      attempt: 2,
      status_code: 500,
      error: 'HTTP 500',
      response_excerpt: 'receiver bug: no handler for submission.created',
    });
    expect(log.body.items[0].next_retry_at).not.toBeNull();
    expect((await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/`, { token: owner.token })).body.status).toBe('enabled');
    // Asked again while its retry waits: made due now, one attempt.
    const again = await t.post(retryPath, undefined, { token: owner.token });
    expect(again.status).toBe(202);
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(3);
  });

  it('unknown, foreign or malformed deliveries are 404; a disabled endpoint refuses a redelivery and a test ping (409 invalid_state)', async () => {
    const t = await webhookApp();
    const receiver = await startReceiver();
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url);
    await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'A memory' }, { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    const [attempt] = (await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token })).body.items;
    const retryPath = (endpointId: string, deliveryId: string) => `/api/v1/webhook_endpoints/${endpointId}/deliveries/${deliveryId}/retry/`;

    expect((await t.post(retryPath(endpoint.id, '01a22638-1335-78e5-95a1-5b47239f32bd'), undefined, { token: owner.token })).status).toBe(404);
    const malformed = await t.post(retryPath(endpoint.id, 'nope'), undefined, { token: owner.token });
    expect(malformed.status, malformed.text).toBe(404);
    expect(malformed.body.code, malformed.text).toBe('not_found');
    const stranger = await newUser(t);
    const foreign = await t.post(retryPath(endpoint.id, attempt.delivery_id), undefined, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toMatch(/webhook endpoint/);

    const off = await t.patch(`/api/v1/webhook_endpoints/${endpoint.id}/`, { status: 'disabled' }, { token: owner.token });
    expect(off.body.status).toBe('disabled');
    const refused = await t.post(retryPath(endpoint.id, attempt.delivery_id), undefined, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'invalid_state', details: { action: 'retry', status: 'disabled', allowed_from: ['enabled'] } });
    expect(refused.body.message).toMatch(/disabled.*enable it/);
    const ping = await t.post(`/api/v1/webhook_endpoints/${endpoint.id}/test/`, undefined, { token: owner.token });
    expect(ping.status).toBe(409);
    expect(ping.body).toMatchObject({ code: 'invalid_state', details: { action: 'test', status: 'disabled' } });
    await t.services.webhookDispatcher.runDue();
    expect(receiver.received).toHaveLength(1);
  });

  it('book.created is sent; member.removed names the member by user_id as member.added does', async () => {
    const t = await webhookApp();
    const receiver = await startReceiver();
    const owner = await newUser(t);
    const hook = await t.post('/api/v1/webhook_endpoints/', { url: receiver.url, event_types: ['book.created', 'member.added', 'member.removed'] }, { token: owner.token });
    expect(hook.status).toBe(201);
    const book = await t.post('/api/v1/books/', { title: 'Grandma at 90' }, { token: owner.token });
    expect(book.status, book.text).toBe(201);
    const friend = await newUser(t);
    expect((await t.post(`/api/v1/books/${book.body.slug}/members/`, { user_id: friend.user.id, role: 'contributor' }, { token: owner.token })).status).toBe(201);
    expect((await t.delete(`/api/v1/books/${book.body.slug}/members/${friend.user.id}/`, { token: owner.token })).status).toBe(204);
    await t.services.webhookDispatcher.runDue();
    const events = receiver.events();
    // Two resources (the book; the member), each in its order.
    const of = (type: string) => events.find((e) => e.type === type);
    expect(events.map((e) => [e.type, e.sequence]).sort()).toEqual([
      ['book.created', 1],
      ['member.added', 1],
      ['member.removed', 2],
    ]);
    expect(events.indexOf(of('member.added'))).toBeLessThan(events.indexOf(of('member.removed')));
    expect(of('book.created').data.object).toEqual((await t.get(`/api/v1/books/${book.body.slug}/`, { token: owner.token })).body);
    expect(of('member.added').data.object.user_id).toBe(friend.user.id);
    expect(of('member.removed').data.object).toEqual({ id: friend.user.id, user_id: friend.user.id });
  });
});
