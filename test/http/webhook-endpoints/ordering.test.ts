/**
 * The dispatcher's order and isolation, against real receivers with the
 * dispatcher polling as in production: each resource's events in order with
 * one at a time in flight; a failed one's retry holding no later event back
 * (the event's `sequence` tells the newest); one hanging endpoint delaying no
 * other; an endpoint that never answers rested by its circuit.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { newBook, newUser } from '../../helpers/factories.js';
import { startReceiver, type Received } from './receiver.js';
import { fakeClock, ownerWithEndpoint, webhookApp } from './webhook-setup.js';

const subPath = (slug: string, id = '') => `/api/v1/books/${slug}/submissions/${id ? `${id}/` : ''}`;
const resourceOf = (e: any) => (e.type.startsWith('book.') ? `book:${e.book_slug}` : `${e.type.split('.')[0]}:${e.data.object.id}`);

/** Deliveries grouped by resource, in the order they arrived. */
function byResource(received: Received[]) {
  const groups = new Map<string, { event: any; r: Received }[]>();
  for (const r of received) {
    const event = JSON.parse(r.body);
    const key = resourceOf(event);
    groups.set(key, [...(groups.get(key) ?? []), { event, r }]);
  }
  return groups;
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1];

describe('webhook order and isolation', () => {
  it('100 back-to-back changes with a healthy receiver: every resource’s events arrive in order, one at a time', async () => {
    const t = await webhookApp({ pollIntervalMs: 1000 });
    // Answers after 15 ms, so two deliveries of one resource at once would overlap.
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 15 }));
    const { owner, slug } = await ownerWithEndpoint(t, receiver.url);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const made = await t.post(subPath(slug), { text_content: `memory ${i}` }, { token: owner.token });
      ids.push(made.body.id);
    }
    t.services.webhookDispatcher.start();
    let changes = 0;
    for (const id of ids) {
      expect((await t.post(`${subPath(slug, id)}approve/`, undefined, { token: owner.token })).status).toBe(200);
      changes++;
    }
    // Rounds of one change to each memory at once (pinned, unpinned, edited), back to back.
    for (let round = 0; changes < 100; round++) {
      await Promise.all(
        ids.map(async (id) => {
          const res =
            round % 3 === 2
              ? await t.patch(subPath(slug, id), { text_content: `edit ${round}` }, { token: owner.token })
              : await t.post(`${subPath(slug, id)}${round % 3 === 0 ? 'pin' : 'unpin'}/`, undefined, { token: owner.token });
          expect(res.status, res.text).toBe(200);
        }),
      );
      changes += ids.length;
    }
    const listed = await t.get(`/api/v1/events/?book_slug=${slug}&limit=200`, { token: owner.token });
    // book.created came before the endpoint existed: not sent to it.
    const sent = listed.body.items.filter((e: any) => e.type !== 'book.created');
    expect(sent).toHaveLength(4 + changes);
    await receiver.waitFor(sent.length, 60_000);
    await t.services.webhookDispatcher.stop();
    expect(receiver.received).toHaveLength(sent.length);

    const groups = byResource(receiver.received);
    expect(groups.size).toBe(4);
    for (const [key, got] of groups) {
      // Every event of the resource once, numbered 1..n in the order they arrived.
      expect(got.map((g) => g.event.sequence), key).toEqual(got.map((_, i) => i + 1));
      // Never two in flight at once: each was sent after the previous one was answered.
      for (let i = 1; i < got.length; i++) expect(got[i].r.at).toBeGreaterThanOrEqual(got[i - 1].r.answeredAt!);
    }
    // In the order the changes happened: as the events list has them (oldest first).
    const oldestFirst = [...sent].reverse();
    for (const [key, got] of groups) {
      expect(got.map((g) => g.event.id)).toEqual(oldestFirst.filter((e: any) => resourceOf(e) === key).map((e: any) => e.id));
    }
    // The last payload of each memory is its state now.
    for (const id of ids) {
      const last = groups.get(`submission:${id}`)!.at(-1)!.event.data.object;
      expect(last).toEqual((await t.get(subPath(slug, id), { token: owner.token })).body);
    }
  });

  it('a failed delivery’s retry holds no later event back, and the sequence tells the newest', async () => {
    const clock = fakeClock();
    const t = await webhookApp({ now: clock.now, pollIntervalMs: 100 });
    // The receiver refuses the memory's second event once (500), then takes everything.
    let refused = false;
    const receiver = await startReceiver((_, r) => {
      const e = JSON.parse(r.body);
      if (e.type === 'submission.approved' && !refused) {
        refused = true;
        return 500;
      }
      return 200;
    });
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, receiver.url, { event_types: ['submission.created', 'submission.approved', 'submission.pinned', 'submission.unpinned'] });
    t.services.webhookDispatcher.start();
    const { body: made } = await t.post(subPath(slug), { text_content: 'a memory' }, { token: owner.token });
    await t.post(`${subPath(slug, made.id)}approve/`, undefined, { token: owner.token });
    await receiver.waitFor(2);
    await t.post(`${subPath(slug, made.id)}pin/`, undefined, { token: owner.token });
    await t.post(`${subPath(slug, made.id)}unpin/`, undefined, { token: owner.token });
    // The later events come while the failed one waits for its retry (about 5 s, not yet on this clock).
    await receiver.waitFor(4, 5000);
    const seen = () => receiver.events().map((e) => [e.type, e.sequence]);
    expect(seen()).toEqual([
      ['submission.created', 1],
      ['submission.approved', 2],
      ['submission.pinned', 3],
      ['submission.unpinned', 4],
    ]);
    clock.advance(6);
    await receiver.waitFor(5, 5000);
    await t.services.webhookDispatcher.stop();
    expect(seen()[4]).toEqual(['submission.approved', 2]);

    // A receiver that keeps the highest sequence per resource ends with the newest state; applying in arrival order would not.
    const applied = new Map<string, any>();
    for (const e of receiver.events()) {
      const key = resourceOf(e);
      if (!applied.has(key) || applied.get(key).sequence < e.sequence) applied.set(key, e);
    }
    const now = (await t.get(subPath(slug, made.id), { token: owner.token })).body;
    expect(applied.get(`submission:${made.id}`).data.object).toEqual(now);
    expect(receiver.events().at(-1).data.object).not.toEqual(now);
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items.map((a: any) => [a.event_type, a.attempt, a.status_code])).toEqual([
      ['submission.approved', 2, 200],
      ['submission.unpinned', 1, 200],
      ['submission.pinned', 1, 200],
      ['submission.approved', 1, 500],
      ['submission.created', 1, 200],
    ]);
  });

  it('one endpoint hanging: another endpoint’s deliveries stay within 2 s (p95) of their events', async () => {
    // As in production: polling every second, the 15 s timeout, 32 deliveries at once in the process.
    const t = await webhookApp({ pollIntervalMs: 1000, env: { SUBMISSION_RATE_LIMIT: '1000' } });
    const hanging = await startReceiver(() => 'hang');
    const healthy = await startReceiver();
    const { owner, slug } = await ownerWithEndpoint(t, hanging.url);
    const other = await t.post('/api/v1/webhook_endpoints/', { url: healthy.url, event_types: ['submission.created'] }, { token: owner.token });
    expect(other.status).toBe(201);
    t.services.webhookDispatcher.start();
    // 60 memories over about 6 s: more than the process's 32 places, all wanted by both endpoints.
    for (let i = 0; i < 60; i++) {
      expect((await t.post(subPath(slug), { text_content: `memory ${i}` }, { token: owner.token })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 100));
    }
    await healthy.waitFor(60, 15_000);
    const lags = healthy.events().map((e, i) => healthy.received[i].at - Date.parse(e.created_at));
    // The hanging endpoint holds at most its 4 places until they time out.
    expect(hanging.received.filter((r) => r.at < hanging.received[0].at + 14_000).length).toBeLessThanOrEqual(4);
    await hanging.close();
    await t.services.webhookDispatcher.stop();
    expect(p95(lags), `lags: ${lags.join(', ')}`).toBeLessThan(2000);
  });

  it('an endpoint that never answers rests (its circuit opens), then is probed one delivery at a time', async () => {
    const clock = fakeClock();
    const t = await webhookApp({ now: clock.now, circuitBaseMs: 30_000 });
    // A port nobody listens on: every attempt is refused at once.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const dead = await t.post('/api/v1/webhook_endpoints/', { url: `http://127.0.0.1:${port}/hook`, event_types: ['submission.created'] }, { token: owner.token });
    const healthy = await startReceiver();
    await t.post('/api/v1/webhook_endpoints/', { url: healthy.url, event_types: ['submission.created'] }, { token: owner.token });
    for (let i = 0; i < 6; i++) await t.post(subPath(slug), { text_content: `memory ${i}` }, { token: owner.token });
    // At most 4 at once to one endpoint: the first 4 fail, the circuit opens, the other 2 are not tried; the healthy one gets all 6.
    await t.services.webhookDispatcher.runDue();
    expect(healthy.received).toHaveLength(6);
    const attempts = async () => (await t.get(`/api/v1/webhook_endpoints/${dead.body.id}/deliveries/`, { token: owner.token })).body.items;
    expect(await attempts()).toHaveLength(4);
    // Their retries are due after 5 s, but the endpoint rests for 30 s.
    clock.advance(10);
    expect(await t.services.webhookDispatcher.runDue()).toBe(0);
    // Then one probe at a time: it fails, and the endpoint rests again (longer).
    clock.advance(25);
    expect(await t.services.webhookDispatcher.runDue()).toBe(1);
    expect(await attempts()).toHaveLength(5);
    clock.advance(35);
    expect(await t.services.webhookDispatcher.runDue()).toBe(0);
  });
});
