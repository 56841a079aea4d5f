import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import type { Resolver } from '../../../src/services/webhook-endpoints/url-guard.js';
import { LOOPBACK_ALLOWED } from './receiver.js';

/** The real clock plus what the test has moved it on by (so rows stamped by the database's now() line up with it). */
export function fakeClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(seconds: number) {
      offset += seconds * 1000;
    },
  };
}

/** An app whose SSRF guard lets 127.0.0.1 through (the test's receivers), with the given clock and resolver; the dispatcher is run by the test. */
export async function webhookApp(
  o: { now?: () => Date; resolver?: Resolver; env?: Record<string, string>; concurrency?: number; timeoutMs?: number; pollIntervalMs?: number; circuitBaseMs?: number } = {},
) {
  return buildTestApp({
    env: { ...LOOPBACK_ALLOWED, ...o.env },
    webhooks: {
      now: o.now,
      resolver: o.resolver,
      pollIntervalMs: o.pollIntervalMs ?? 50,
      concurrency: o.concurrency,
      timeoutMs: o.timeoutMs,
      circuitBaseMs: o.circuitBaseMs,
    },
  });
}

/** An owner with a book and an endpoint of theirs to `url`; answers the endpoint as created (with its secret). */
export async function ownerWithEndpoint(t: TestApp, url: string, body: Record<string, unknown> = {}): Promise<{ owner: TestUser; slug: string; endpoint: any }> {
  const owner = await newUser(t);
  const { slug } = await newBook(t, owner, { plan: 'plus' });
  const res = await t.post('/api/v1/webhook_endpoints/', { url, ...body }, { token: owner.token });
  if (res.status !== 201) throw new Error(`endpoint create failed: ${res.status} ${res.text}`);
  return { owner, slug, endpoint: res.body };
}

/** Mail queued to `to` (the mail.send jobs in the test's queue). */
export async function mailTo(t: TestApp, to: string): Promise<{ subject: string; text: string }[]> {
  const rows = await t.db.query<{ data: { to: string; subject: string; text: string } }>(`SELECT data FROM ${t.queue.schema}.job WHERE name = 'mail.send'`);
  return rows.map((r) => r.data).filter((m) => m.to === to);
}
