import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { ListMembersQuery, MemberList } from './schemas.js';

export function listMembers(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/members/',
    {
      schema: {
        operationId: 'listBookMembers',
        tags: ['members'],
        summary: "List a book's members",
        description:
          'Owner or admin: everyone with a role on the book, the owner included. Newest first; with updated_since, oldest change first ' +
          "(a member's name or email changing counts). Pin the next updated_since to the Last-Modified header.",
        params: SlugParams,
        querystring: ListMembersQuery,
        response: { 200: MemberList },
      },
      config: { lastModified: true, book: 'list_members', errors: [403] },
    },
    async (request, reply) => {
      return listResponse(request, reply, (query) => services.members.listMembers(actorOf(request), request.params.slug, query));
    },
  );
}
