import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHousekeeping } from '../../src/housekeeping.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { newBook, newUser, servicesOf } from '../helpers/factories.js';
import { sleep, waitFor } from '../jobs/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A pending invitation already past its expiry: what a housekeeping run writes as expired. */
async function staleInvitation(): Promise<string> {
  const owner = await newUser(t);
  const slug = (await newBook(t, owner)).slug;
  const inv = (await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: 'late@example.test' }, { token: owner.token })).body;
  await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [inv.id]);
  return inv.id;
}
const statusOf = async (id: string) => (await t.db.query<{ status: string }>('SELECT status FROM invitations WHERE id = $1', [id]))[0].status;
const housekeeping = () => createHousekeeping({ services: servicesOf(t), log: pino({ level: 'silent' }), requestTimeoutMs: 60_000 });

it('with firstRunAfterMs, the first run waits that long instead of starting at once', async () => {
  const id = await staleInvitation();
  const hk = housekeeping();
  hk.start({ firstRunAfterMs: 600 });
  try {
    await sleep(200);
    expect(await statusOf(id)).toBe('pending');
    await waitFor('the delayed run to expire the invitation', async () => (await statusOf(id)) === 'expired', 10_000);
  } finally {
    hk.stop();
  }
});

it('stopped before its first run, it never runs', async () => {
  const id = await staleInvitation();
  const hk = housekeeping();
  hk.start({ firstRunAfterMs: 300 });
  hk.stop();
  await sleep(800);
  expect(await statusOf(id)).toBe('pending');
});
