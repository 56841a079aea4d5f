import { createTokenService } from '../../../src/services/tokens/token-service.js';
import type { SessionCredentials, TestApp } from '../build-test-app.js';
import { newBook, newSession, newSubmission, newUser, type TestUser } from '../factories.js';

export interface RobustnessFixtures {
  /** The caller for every authenticated case; owns everything below. */
  owner: TestUser;
  session: SessionCredentials;
  /** A real API key of the owner's, already revoked. */
  revokedToken: string;
  /** Real values for path parameters, by parameter name. */
  params: Record<string, string>;
}

/**
 * A malformed path parameter answers 404 not_found. An operation whose
 * contract documents another answer for a parameter that names nothing
 * lists that status here, by operationId.
 */
export const OTHER_PATH_PARAM_ANSWERS: Record<string, number[]> = {
  // {stream} that names no mail stream: 400 unknown_stream with details.offered (the contract).
  unsubscribeFromStream: [400],
  unsubscribeWithToken: [400],
};

/**
 * THE ONE PLACE TO EXTEND when a route with a new path parameter lands.
 *
 * The robustness suite fills every path parameter from `params` so that the
 * body, query and header cases get past the resource lookup and reach
 * validation. Add a real resource of the owner's here, keyed by the
 * parameter's name in the OpenAPI document (e.g. `id` for
 * /submissions/{id}/, once submissions exist). A parameter with no entry is
 * filled with a random value; the cases of that operation then also accept
 * 404 not_found, and the suite prints which parameters lack a fixture.
 *
 * Everything created here is created before the database snapshot, so it
 * does not count as a write of the malformed barrage.
 */
export async function createFixtures(t: TestApp): Promise<RobustnessFixtures> {
  const owner = await newUser(t);
  const session = await newSession(t, owner);
  const tokens = createTokenService({ db: t.db });
  const spare = await tokens.issueToken(t.db, owner.user.id, `revoked-${crypto.randomUUID().slice(0, 8)}`);
  await tokens.revokeToken(t.db, spare.token.id);

  const params: Record<string, string> = {};
  params.slug = (await newBook(t, owner)).slug;
  // {id} of /books/{slug}/submissions/{id}/…: a submission of that book.
  params.id = (await newSubmission(t, params.slug, owner)).id;
  // {user_id} of /books/{slug}/members/{user_id}/: a member of that book (its owner; the cases never get as far as removing).
  params.user_id = owner.user.id;
  // {job_id} of /books/{slug}/exports/{job_id}/…: an export of that book (JSON, the default plan's format).
  params.job_id = (await t.db.transaction((tx) => t.services.exports.requestExport(tx, owner.user, params.slug, { theme: 'modern_clean', export_format: 'json' }))).id;

  // {id} of /webhook_endpoints/{id}/…: an endpoint of the owner's (the id names a submission on the book routes; the
  // webhook routes look theirs up by owner, so a submission's id would be 404 there).
  params['webhook_endpoints.id'] = (
    await t.db.transaction((tx) => t.services.webhookEndpoints.createEndpoint(tx, owner.user, { url: 'https://hooks.example.com/memorybook' }))
  ).id;

  // {delivery_id} of /webhook_endpoints/{id}/deliveries/{delivery_id}/…: a delivery of that endpoint (its test ping).
  await t.db.transaction((tx) => t.services.webhookEndpoints.sendTestEvent(tx, owner.user, params['webhook_endpoints.id']));
  const [delivery] = await t.db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [params['webhook_endpoints.id']]);
  params.delivery_id = delivery.id;

  // {device_id} of /me/devices/{device_id}/: a device of the owner's.
  params.device_id = (
    await t.db.transaction((tx) => t.services.devices.register(tx, owner.user, { platform: 'ios', token: `robustness-${crypto.randomUUID()}` }))
  ).device.id;

  // {stream} of /me/unsubscribe/{stream}/…: the one stream the token route takes.
  params.stream = 'onboarding';

  return { owner, session, revokedToken: spare.plaintext, params };
}
