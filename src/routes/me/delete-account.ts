import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deletionQueued } from '../../http/not-errors.js';
import { actorOf, requireAuth, type RouteRateLimit } from '../../http/route-config.js';
import { ACCOUNT_DELETED } from '../../services/account/account-service.js';
import { REAUTH_TRIES, REAUTH_WINDOW_SECONDS } from '../../services/account/reauth-store.js';
import type { RouteContext } from '../../services/index.js';
import { AccountDeleted, AccountDeletionQueued, DeleteAccountBody, ReauthBody, ReauthCodeBody, ReauthCodeSent, ReauthGrant } from './schemas.js';

/** Five per 15 minutes per user, in a bucket of its own for each route. */
const perUser = (name: string): RouteRateLimit => ({
  name,
  key: (request: FastifyRequest) => actorOf(request).id,
  limit: () => REAUTH_TRIES,
  windowSeconds: () => REAUTH_WINDOW_SECONDS,
});

export function registerDeleteAccountRoutes(app: FastifyInstance, { services }: RouteContext) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/me/delete/reauth/',
    {
      schema: {
        operationId: 'reauthenticateForDeletion',
        tags: ['account'],
        summary: 'Step up before deleting your account',
        description:
          'Send your password, or the code from POST /me/delete/reauth/otp/, and get a single-use reauth_token for POST /me/delete/, valid 300 seconds. ' +
          'A wrong secret is 403 invalid_credentials. Five tries per 15 minutes, then 429 rate_limited with Retry-After. No Idempotency-Key needed.',
        body: ReauthBody,
        response: { 200: ReauthGrant },
      },
      config: { idempotency: false, rateLimit: perUser('account_reauth'), errors: ['invalid_credentials'] },
    },
    async (request) => services.account.reauthenticate(actorOf(request), request.body),
  );

  api.post(
    '/me/delete/reauth/otp/',
    {
      schema: {
        operationId: 'sendDeletionCode',
        tags: ['account'],
        summary: 'Send a one-time code for the deletion step-up',
        description:
          'Sends a six-digit code to your own email (default) or, with channel sms, to the phone number on your account (none: 400 validation_failed). ' +
          'The code is valid ten minutes for five attempts; a new one replaces the last. Five per 15 minutes. No Idempotency-Key needed.',
        body: ReauthCodeBody,
        response: { 202: ReauthCodeSent },
      },
      config: { idempotency: false, rateLimit: perUser('account_reauth_code') },
    },
    async (request, reply) => {
      const sent = await services.account.sendReauthCode(actorOf(request), request.body?.channel ?? 'email');
      return reply.code(202).send(sent);
    },
  );

  api.post(
    '/me/delete/',
    {
      schema: {
        operationId: 'deleteAccount',
        tags: ['account'],
        summary: 'Delete your account',
        description:
          'Needs a step-up: {reauth_token} from POST /me/delete/reauth/ (single use), or on a browser session {password}. A bearer key alone, or a spent, expired or ' +
          "another user's grant, is 403 reauth_required. A replay with the same Idempotency-Key is answered first and spends nothing; it is answered even though " +
          'the key it was sent with is revoked by the deletion. 200: personal data is gone from the account and every key and session has ended; owned books, ' +
          'memories written in other books and the history are removed in the background. 202 deletion_queued (with Retry-After): off-site backup erasure is not ' +
          'confirmed yet; the service keeps trying and then deletes the account, and a retry with the same key and body after the wait finds the grant given back. ' +
          'Five requests per 15 minutes.',
        body: DeleteAccountBody,
        response: { 200: AccountDeleted, 202: AccountDeletionQueued },
      },
      // Deferred: the key is claimed after the backup endpoint has answered, so no transaction waits on it.
      config: {
        errors: ['reauth_required', 'invalid_credentials'],
        replayWithRevokedToken: true,
        rateLimit: perUser('account_delete'),
        idempotency: 'deferred',
        retryAfter: [202],
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request.auth);
      const stepUp = { reauthToken: request.body.reauth_token, password: request.body.password };
      const run = await request.runPhased!(
        () => services.account.prepareDeletion(auth.user, stepUp, { authMethod: auth.method }),
        (tx, erasure) => {
          const unit = request.idempotency;
          return services.account.deleteAccount(tx, auth.user, { requestId: String(request.id), idempotency: unit ? { key: unit.key, fingerprint: unit.fingerprint } : undefined }, erasure);
        },
      );
      if (run.replayed) return reply;
      const outcome = run.value;
      if (outcome.state === 'deleted') return ACCOUNT_DELETED;
      return deletionQueued(
        request,
        reply,
        outcome.retryAfterSeconds,
        'Deletion is queued: off-site backup erasure is not confirmed yet. The service keeps trying and then deletes the account; retry with the same Idempotency-Key after the Retry-After wait.',
      );
    },
  );
}
