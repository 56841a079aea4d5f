import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { ListQuery } from '../../http/schemas/common.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { MembershipList } from './me-list-schemas.js';

export function listMyMemberships(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/me/memberships/',
    {
      schema: {
        operationId: 'listMyMemberships',
        tags: ['identity'],
        summary: 'The books you belong to',
        description:
          'Every book you are a member of, in any role (a contributor included): archived books too, deleted ones never. Newest joined first; ' +
          "with updated_since, oldest change first (of the membership or of the book's title or status). Pin the next updated_since to the Last-Modified header.",
        querystring: ListQuery,
        response: { 200: MembershipList },
      },
      config: { lastModified: true },
    },
    async (request, reply) => listResponse(request, reply, (query) => services.meLists.listMemberships(actorOf(request), query)),
  );
}
