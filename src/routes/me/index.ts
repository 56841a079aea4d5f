import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import { requireAuth, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { toProfile } from '../../services/users/user-mapper.js';
import { READ_ONLY_PROFILE_FIELDS } from '../../services/users/user-types.js';
import { registerAccountExportRoutes } from './account-export.js';
import { registerDeleteAccountRoutes } from './delete-account.js';
import { Profile, Quotas, SessionsRevoked, UpdateProfileBody } from './schemas.js';
import { registerUnsubscribeRoutes } from './unsubscribe.js';
import { listMyMemberships } from './list-memberships.js';
import { listMySubmissions } from './list-my-submissions.js';
import { listMySubscriptions } from './list-my-subscriptions.js';
import { registerDevice } from './register-device.js';
import { listDevices } from './list-devices.js';
import { deleteDevice } from './delete-device.js';

export async function registerMeRoutes(app: FastifyInstance, ctx: RouteContext) {
  const { services } = ctx;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/me/',
    { schema: { operationId: 'getProfile', tags: ['identity'], summary: 'Your profile', response: { 200: Profile } }, config: { etag: [200] } },
    async (request, reply) => {
      const profile = toProfile(await services.users.getUser(requireAuth(request.auth).user.id));
      setEtag(reply, profile.etag);
      return profile;
    },
  );

  api.patch(
    '/me/',
    {
      schema: {
        operationId: 'updateProfile',
        tags: ['identity'],
        summary: 'Update your profile',
        description:
          'first_name, last_name and books_sort are writable. Sending a read-only field (email, phone_number, channel identifiers…) answers 400 validation_failed naming it. Optional If-Match; 412 with details.current_etag when stale.',
        body: UpdateProfileBody,
        response: { 200: Profile },
      },
      config: { errors: [412], etag: [200] },
    },
    async (request, reply) => {
      const auth = requireAuth(request.auth);
      const body = request.body as Record<string, unknown>;
      const readOnly = READ_ONLY_PROFILE_FIELDS.filter((f) => f in body);
      if (readOnly.length) {
        throw errors.validation(`Read-only field${readOnly.length > 1 ? 's' : ''} cannot be changed through the API: ${readOnly.join(', ')}.`, {
          fields: readOnly,
        });
      }
      const { first_name, last_name, books_sort } = request.body;
      const patch = Object.fromEntries(Object.entries({ first_name, last_name, books_sort }).filter(([, v]) => v !== undefined));
      const updated = await services.users.updateProfile(unitOf(request), auth.user.id, patch, request.headers['if-match']);
      const profile = toProfile(updated);
      setEtag(reply, profile.etag);
      return profile;
    },
  );

  api.get(
    '/me/quotas/',
    { schema: { operationId: 'getQuotas', tags: ['identity'], summary: 'Storage used and book slots held', response: { 200: Quotas } } },
    async (request) => services.quotas.getQuotas(requireAuth(request.auth).user.id),
  );

  api.post(
    '/me/sessions/revoke/',
    {
      schema: {
        operationId: 'revokeAllApiTokens',
        tags: ['auth'],
        summary: 'Revoke every API key you hold',
        description: 'Revokes all of your API keys, the calling one included; browser sessions stay signed in. Records the audit event api_sessions_revoked with the request_id.',
        response: { 200: SessionsRevoked },
      },
    },
    async (request) => {
      const auth = requireAuth(request.auth);
      return services.account.revokeAllTokens(unitOf(request), auth.user, { requestId: String(request.id), authMethod: auth.method });
    },
  );

  listMyMemberships(app, ctx);
  listMySubmissions(app, ctx);
  listMySubscriptions(app, ctx);
  registerAccountExportRoutes(app, ctx);
  registerDeleteAccountRoutes(app, ctx);
  await registerUnsubscribeRoutes(app, ctx);
  registerDevice(app, ctx);
  listDevices(app, ctx);
  deleteDevice(app, ctx);
}
