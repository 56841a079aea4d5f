import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { MemberParams, memberIdMustBeWellFormed } from './schemas.js';

export function removeMember(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/members/:user_id/',
    {
      schema: {
        operationId: 'removeBookMember',
        tags: ['members'],
        summary: 'Remove a member from a book',
        description:
          'Owner only. 204 also when the user is not (or no longer) a member. The owner cannot be removed: 400 cannot_remove_owner.',
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed, or was not a member' }) },
      },
      config: { book: 'remove_member', errors: ['cannot_remove_owner'] },
      onRequest: memberIdMustBeWellFormed,
    },
    async (request, reply) => {
      await services.members.removeMember(unitOf(request), actorOf(request), request.params.slug, request.params.user_id);
      return reply.code(204).send(null);
    },
  );
}
