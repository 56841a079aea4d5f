import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { InvitationParams, RevokedInvitation, invitationIdMustBeWellFormed } from './schemas.js';

export function revokeInvitation(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/invitations/:id/',
    {
      schema: {
        operationId: 'revokeBookInvitation',
        tags: ['invitations'],
        summary: 'Revoke a pending invitation',
        description:
          'Owner or admin. The row is kept with status revoked and its link stops working; a repeat answers already_revoked: true. ' +
          'An accepted or expired invitation: 409 invalid_state.',
        params: InvitationParams,
        response: { 200: RevokedInvitation },
      },
      config: { book: 'manage_invitations', errors: ['invalid_state'] },
      onRequest: invitationIdMustBeWellFormed,
    },
    async (request) => services.invitations.revokeInvitation(unitOf(request), actorOf(request), request.params.slug, request.params.id),
  );
}
