/**
 * One step-up grant, two deletion requests at once (each with its own
 * Idempotency-Key): the grant is spent once, so exactly one answers 200 and
 * the other 403 reauth_required, whichever of them reaches the account first
 * and however far the first has got.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { grantFor } from './account-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ worker: true });
});

const DELETE = '/api/v1/me/delete/';

describe('two deletions with one grant', () => {
  it('at once: one 200, the other 403 reauth_required', async () => {
    for (let round = 0; round < 8; round++) {
      const u = await newUser(t);
      const grant = await grantFor(t, u);
      const answers = await Promise.all([t.post(DELETE, { reauth_token: grant }, { token: u.token }), t.post(DELETE, { reauth_token: grant }, { token: u.token })]);
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, 403]);
      const refused = answers.find((a) => a.status === 403)!;
      expect(refused.body.code).toBe('reauth_required');
      expect(refused.body.request_id).toBe(refused.headers['x-request-id']);
    }
  });
});
