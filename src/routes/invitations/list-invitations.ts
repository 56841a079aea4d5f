import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { InvitationList, ListInvitationsQuery } from './schemas.js';

export function listInvitations(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/invitations/',
    {
      schema: {
        operationId: 'listBookInvitations',
        tags: ['invitations'],
        summary: "List a book's invitations",
        description:
          'Owner or admin: every invitation in every state, or those with ?status=pending|accepted|expired|revoked. Newest first; ' +
          'with updated_since, oldest change first. Pin the next updated_since to the Last-Modified header.',
        params: SlugParams,
        querystring: ListInvitationsQuery,
        response: { 200: InvitationList },
      },
      config: { lastModified: true, book: 'list_invitations', errors: [403] },
    },
    async (request, reply) => {
      return listResponse(request, reply, (query) =>
        services.invitations.listInvitations(actorOf(request), request.params.slug, { ...query, status: request.query.status }),
      );
    },
  );
}
