import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireAuth, unitOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { AuthMe, CreatedToken, CreateTokenBody, RevokedToken } from './schemas.js';

export function registerAuthRoutes(app: FastifyInstance, { services }: RouteContext) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/auth/token/',
    {
      schema: {
        operationId: 'createApiToken',
        tags: ['auth'],
        summary: 'Issue an API key from a signed-in browser session',
        description:
          'Browser session only (session cookie, X-CSRFToken, same-origin Referer, Idempotency-Key). The plaintext is returned once; ' +
          'a replay answers plaintext null and replayed true. A bearer key gets 403 session_required.',
        body: CreateTokenBody,
        response: { 201: CreatedToken },
      },
      config: { sessionOnly: true, errors: ['name_taken'], location: [201] },
    },
    async (request, reply) => {
      const auth = requireAuth(request.auth);
      const { token, plaintext } = await services.tokens.issueToken(unitOf(request), auth.user.id, request.body.name);
      const base = { id: token.id, name: token.name, created_at: token.created_at };
      // The plaintext is never stored: a replay of this request answers without it.
      if (request.idempotency) request.idempotency.storedBody = JSON.stringify({ ...base, plaintext: null, replayed: true });
      setLocation(reply.code(201), '/api/v1/auth/me/');
      return { ...base, plaintext, replayed: false };
    },
  );

  api.delete(
    '/auth/token/',
    {
      schema: {
        operationId: 'revokeApiToken',
        tags: ['auth'],
        summary: 'Revoke the API key making this call',
        description: 'The key itself must be the bearer credential; a browser session gets 401 token_required. A replay with the same Idempotency-Key answers the stored 200.',
        response: { 200: RevokedToken },
      },
      config: { tokenOnly: true, replayWithRevokedToken: true, idempotencyPerToken: true },
    },
    async (request) => {
      const auth = requireAuth(request.auth);
      if (auth.method !== 'api_key') throw new Error('unreachable: tokenOnly route');
      const revokedAt = await services.tokens.revokeToken(unitOf(request), auth.token.id);
      return { revoked: true, name: auth.token.name, revoked_at: revokedAt };
    },
  );

  api.get(
    '/auth/me/',
    {
      schema: {
        operationId: 'getAuthMe',
        tags: ['auth'],
        summary: 'Who is calling, and how',
        response: { 200: AuthMe },
      },
    },
    async (request) => {
      const auth = requireAuth(request.auth);
      const u = auth.user;
      return {
        user: { id: u.id, email: u.email, first_name: u.first_name, last_name: u.last_name },
        auth_method: auth.method,
        token: auth.method === 'api_key' ? { name: auth.token.name, created_at: auth.token.created_at, last_used_at: auth.token.last_used_at } : null,
      };
    },
  );
}
