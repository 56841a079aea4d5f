import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { CreateInvitationBody } from './schemas.js';

export function createInvitation(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/invitations/',
    {
      schema: {
        operationId: 'createBookInvitation',
        tags: ['invitations'],
        summary: 'Invite someone by email, phone or Telegram',
        description:
          'Owner or admin; role contributor (default) or admin. The identifier is normalised (400 validation_failed when it is not one). ' +
          'When it belongs to an existing user, they become a member at once and the invitation is accepted (402 member_limit_exceeded ' +
          'at the cap, 409 already_a_member); otherwise it is pending for 14 days. A pending invitation for the same identifier: ' +
          '409 invitation_pending (revoked ones never block). Creating dispatches it in the background: an email with an acceptance ' +
          'link, an SMS (activated by the first reply), or for Telegram a deep_link to pass on (activated by the first message to the bot).',
        params: SlugParams,
        body: CreateInvitationBody,
        response: { 201: Type.Ref('Invitation') },
      },
      config: { book: 'manage_invitations', errors: ['member_limit_exceeded', 'invitation_pending'], location: [201] },
    },
    async (request, reply) => {
      const invitation = await services.invitations.createInvitation(unitOf(request), actorOf(request), request.params.slug, request.body);
      setLocation(reply.code(201), `/api/v1/books/${request.params.slug}/invitations/${invitation.id}/`);
      return invitation;
    },
  );
}
