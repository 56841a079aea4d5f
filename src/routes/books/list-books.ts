import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listWatermark, parseUpdatedSince, setLastModified } from '../../http/lists.js';
import { requireAuth } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { BookList, ListBooksQuery } from './schemas.js';

export function listBooks(app: FastifyInstance, { services, db }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/',
    {
      schema: {
        operationId: 'listBooks',
        tags: ['books'],
        summary: 'List the books you own or administer',
        description:
          "Archived books are hidden unless status=archived. Without updated_since the list follows your profile's books_sort; " +
          'with it, oldest change first. Pin the next updated_since to the Last-Modified header.',
        querystring: ListBooksQuery,
        response: { 200: BookList },
      },
    },
    async (request, reply) => {
      const user = requireAuth(request.auth).user;
      const updatedSince = parseUpdatedSince(request.query.updated_since);
      const watermark = await listWatermark(db);
      const page = await services.books.listBooks(user.id, user.books_sort, {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
        updatedSince,
        status: request.query.status ?? 'active',
      });
      setLastModified(reply, watermark);
      return page;
    },
  );
}
