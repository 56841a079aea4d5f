import { beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { newBook, newUser } from '../helpers/factories.js';
import { waitFor } from '../jobs/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ worker: true });
});

/** A pending invitation already past its expiry: what a housekeeping run writes as expired. */
async function staleInvitation(): Promise<string> {
  const owner = await newUser(t);
  const slug = (await newBook(t, owner)).slug;
  const inv = (await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: 'late@example.test' }, { token: owner.token })).body;
  await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [inv.id]);
  return inv.id;
}
const statusOf = async (id: string) => (await t.db.query<{ status: string }>('SELECT status FROM invitations WHERE id = $1', [id]))[0].status;

it('runs as the housekeeping.run job on a worker (queued by its schedule), and writes stale invitations expired', async () => {
  const id = await staleInvitation();
  const jobId = (await t.queue.send('housekeeping.run', { period: '2031-05-06T10:20:00.000Z' }))!;
  await waitFor('the housekeeping job to complete', async () => (await t.queue.getJob('housekeeping.run', jobId))?.state === 'completed');
  expect(await statusOf(id)).toBe('expired');
});
