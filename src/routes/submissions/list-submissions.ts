import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listWatermark, parseUpdatedSince, setLastModified } from '../../http/lists.js';
import { requireBook } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { ListSubmissionsQuery, SubmissionList } from './schemas.js';

export function listSubmissions(app: FastifyInstance, { services, db }: RouteContext) {
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
      config: { book: 'list_submissions', errors: [403] },
    },
    async (request, reply) => {
      const updatedSince = parseUpdatedSince(request.query.updated_since);
      const watermark = await listWatermark(db);
      const page = await services.submissions.listSubmissions(requireBook(request.book), {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
        updatedSince,
      });
      setLastModified(reply, watermark);
      return page;
    },
  );
}
