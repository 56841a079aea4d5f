/**
 * memorybook-client's webhook side: an endpoint made through the client, a
 * real receiver checking each delivery with verifyWebhook, the events list
 * read page after page, and verifyWebhook agreeing with the standardwebhooks
 * library (signing and refusing the same bytes).
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { ok, verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.js';
import { newUser } from '../helpers/factories.js';
import { startReceiver } from '../http/webhook-endpoints/receiver.js';
import { serveTestApp, type ServedApp } from './client-setup.js';

let t: ServedApp;
afterAll(() => t?.close());

describe('memorybook-client webhooks', () => {
  it('verifies real deliveries, lists the events, and refuses a changed body', async () => {
    t = await serveTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
    const owner = await newUser(t);
    await t.services.quotas.grantSlots(owner.user.id, 'plus', 1);
    const mb = t.client(owner.token);
    const receiver = await startReceiver();
    const endpoint = ok(await mb.POST('/api/v1/webhook_endpoints/', { body: { url: receiver.url, event_types: ['submission.created'] } }));
    // A first answer carries the secret (a replay of the same key answers null: it is never stored in the clear).
    const secret = endpoint.secret!;
    const { slug } = ok(await mb.POST('/api/v1/books/', { body: { title: 'Heard about', plan: 'plus' } }));
    const made = ok(await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: 'Hello' } }));
    await t.services.webhookDispatcher.runDue();
    const [got] = await receiver.waitFor(1);

    const event = await verifyWebhook(secret, got.headers as Record<string, string>, got.body);
    expect(event).toMatchObject({ type: 'submission.created', book_slug: slug, data: { object: { id: made.id } } });
    await expect(verifyWebhook(secret, got.headers as Record<string, string>, got.body.replace('Hello', 'Hellp'))).rejects.toThrow(WebhookVerificationError);
    // A fetch Headers object works too.
    expect((await verifyWebhook(secret, new Headers(got.headers as Record<string, string>), got.body)).id).toBe(event.id);

    const listed = [];
    for await (const e of mb.items('/api/v1/events/', { query: { type: 'submission.created' } })) listed.push(e);
    expect(listed.map((e) => e.id)).toEqual([event.id]);
  });

  it('agrees with the standardwebhooks library; refuses stale timestamps and other secrets', async () => {
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const wh = new Webhook(secret);
    const body = JSON.stringify({ id: 'evt', type: 'ping', created_at: '2026-01-01T00:00:00.000000Z', book_slug: null, data: { object: { endpoint_id: 'x' } } });
    const now = new Date();
    const headers = { 'webhook-id': 'evt', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': wh.sign('evt', now, body) };
    expect((await verifyWebhook(secret, headers, body)).type).toBe('ping');
    await expect(verifyWebhook('whsec_' + Buffer.alloc(32, 8).toString('base64'), headers, body)).rejects.toThrow('No signature matches');
    await expect(verifyWebhook(secret, headers, body, { now: () => new Date(now.getTime() + 3600_000) })).rejects.toThrow('too far');
    await expect(verifyWebhook(secret, { ...headers, 'webhook-signature': '' }, body)).rejects.toThrow(WebhookVerificationError);
  });
});
