/**
 * Typed events: the client's WebhookEvent is a union discriminated by `type`
 * (generated from the document's `webhooks`), so a receiver's switch on
 * event.type reaches each object's fields without casts; verifyWebhook and
 * the events list answer it. The type assertions are checked by
 * `npm run typecheck` (tsc over test/); the run checks the same at runtime.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ok, verifyWebhook, type Book, type Member, type Submission, type WebhookEvent, type WebhookEventOf } from '../../packages/client/src/index.js';
import { newUser } from '../helpers/factories.js';
import { startReceiver } from '../http/webhook-endpoints/receiver.js';
import { serveTestApp } from './client-setup.js';

/** What a family app's receiver does with each event: a switch, no casts, every case's object typed. */
function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'submission.created':
    case 'submission.updated':
    case 'submission.approved':
    case 'submission.rejected':
    case 'submission.pinned':
    case 'submission.unpinned':
      return `${event.type} ${event.data.object.id} (${event.data.object.status}, pinned: ${event.data.object.is_pinned}) #${event.sequence}`;
    case 'submission.deleted':
      return `deleted ${event.data.object.id}`;
    case 'media.processed':
      return `media ${event.data.object.id} ${event.data.object.processing_status}`;
    case 'export.completed':
    case 'export.failed':
      return `export ${event.data.object.id} ${event.data.object.status}`;
    case 'member.added':
      return `member ${event.data.object.user_id} joined as ${event.data.object.role}`;
    case 'member.removed':
      return `member ${event.data.object.user_id} left`;
    case 'invitation.accepted':
      return `invitation ${event.data.object.id}`;
    case 'book.created':
    case 'book.updated':
    case 'book.archived':
    case 'book.restored':
      return `book ${event.data.object.slug}: ${event.data.object.title}`;
    case 'book.deleted':
      return `book ${event.data.object.slug} deleted`;
    case 'transcription.completed':
    case 'transcription.failed':
      return `transcription of ${event.data.object.media_id}: ${event.data.object.status}`;
    case 'ping':
      return `ping for ${event.data.object.endpoint_id}`;
    default: {
      // Every type is handled: a new one in the document breaks this line at compile time.
      const unhandled: never = event;
      return unhandled;
    }
  }
}

describe('memorybook-client typed events', () => {
  it('narrows data.object by type', () => {
    expectTypeOf<WebhookEventOf<'submission.created'>['data']['object']>().toEqualTypeOf<Submission>();
    expectTypeOf<WebhookEventOf<'book.created'>['data']['object']>().toEqualTypeOf<Book>();
    expectTypeOf<WebhookEventOf<'member.added'>['data']['object']>().toEqualTypeOf<Member>();
    expectTypeOf<WebhookEventOf<'member.removed'>['data']['object']>().toEqualTypeOf<{ id: string; user_id: string }>();
    expectTypeOf<WebhookEvent['sequence']>().toEqualTypeOf<number>();
    expectTypeOf(verifyWebhook).returns.resolves.toEqualTypeOf<WebhookEvent>();
  });

  it('verifyWebhook and the events list answer the union: a switch handles real deliveries', async () => {
    const t = await serveTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
    try {
      const owner = await newUser(t);
      await t.services.quotas.grantSlots(owner.user.id, 'plus', 1);
      const mb = t.client(owner.token);
      const receiver = await startReceiver();
      const endpoint = ok(await mb.POST('/api/v1/webhook_endpoints/', { body: { url: receiver.url } }));
      const book = ok(await mb.POST('/api/v1/books/', { body: { title: 'Typed', plan: 'plus' } }));
      const made = ok(await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug: book.slug } }, body: { text_content: 'Hello' } }));
      await t.services.webhookDispatcher.runDue();
      const got = await receiver.waitFor(2);
      const seen = await Promise.all(got.map(async (r) => describeEvent(await verifyWebhook(endpoint.secret!, r.headers as Record<string, string>, r.body))));
      expect(seen.sort()).toEqual([`book ${book.slug}: Typed`, `submission.created ${made.id} (${made.status}, pinned: false) #1`]);

      const listed: string[] = [];
      for await (const e of mb.items('/api/v1/events/')) {
        expectTypeOf(e).toEqualTypeOf<WebhookEvent>();
        listed.push(describeEvent(e));
      }
      expect(listed.sort()).toEqual(seen);
    } finally {
      await t.close();
    }
  });
});
