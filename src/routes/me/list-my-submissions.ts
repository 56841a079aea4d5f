import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { jsonListResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { ListMySubmissionsQuery, MySubmissionList } from './me-list-schemas.js';

export function listMySubmissions(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/me/submissions/',
    {
      schema: {
        operationId: 'listMySubmissions',
        tags: ['identity'],
        summary: 'Your memories across books',
        description:
          'The memories you wrote (you are their contributor_user), in every book you still belong to, each with its book. Any role may call it; ' +
          "it never shows anyone else's memory. ?book=<slug> and ?status= narrow it. Newest first; with updated_since, oldest change first. " +
          'Pin the next updated_since to the Last-Modified header.',
        querystring: ListMySubmissionsQuery,
        response: { 200: MySubmissionList },
      },
      config: { lastModified: true },
    },
    async (request, reply) => {
      const { book, status } = request.query;
      // The items are JSON already (made by the database around the signed URLs): the page is sent as it is.
      return jsonListResponse(request, reply, (query) => services.meLists.listSubmissions(actorOf(request), { book, status }, query));
    },
  );
}
