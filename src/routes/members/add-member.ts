import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { AddMemberBody } from './schemas.js';

export function addMember(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/members/',
    {
      schema: {
        operationId: 'addBookMember',
        tags: ['members'],
        summary: 'Add an existing user to a book',
        description:
          'Owner or admin. Name the user by exactly one of email or user_id (both or neither: 422); role admin (default) or contributor ' +
          "(owner: 422). Unknown user: 404 user_not_found; already a member: 409 already_a_member; the plan's max_members_per_book reached " +
          '(the owner counts): 402 member_limit_exceeded. To reach someone without an account, create an invitation.',
        params: SlugParams,
        body: AddMemberBody,
        response: { 201: Type.Ref('Member') },
      },
      config: { book: 'manage_members', errors: ['member_limit_exceeded', 'already_a_member', 'user_not_found'], location: [201] },
    },
    async (request, reply) => {
      const { email, user_id, role } = request.body;
      const who = email !== undefined ? { email } : { userId: user_id! };
      const member = await services.members.addMember(unitOf(request), actorOf(request), request.params.slug, who, role);
      setLocation(reply.code(201), `/api/v1/books/${request.params.slug}/members/${member.user_id}/`);
      return member;
    },
  );
}
