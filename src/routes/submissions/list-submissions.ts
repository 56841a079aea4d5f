import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { jsonListResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { ListSubmissionsQuery, SubmissionList } from './schemas.js';

export function listSubmissions(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/submissions/',
    {
      schema: {
        operationId: 'listSubmissions',
        tags: ['submissions'],
        summary: "List a book's submissions",
        description:
          'Owner or admin: every submission of the book, private ones included, each with its etag. Newest first; with updated_since, ' +
          'oldest change first. Pin the next updated_since to the Last-Modified header.',
        params: SlugParams,
        querystring: ListSubmissionsQuery,
        response: { 200: SubmissionList },
      },
      config: { lastModified: true, book: 'list_submissions', errors: [403] },
    },
    async (request, reply) => {
      // The items are JSON already (made by the database around the signed URLs): the page is sent as it is.
      return jsonListResponse(request, reply, (query) => services.submissions.listSubmissions(actorOf(request), request.params.slug, query));
    },
  );
}
