import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { jsonListResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { BookList, ListBooksQuery } from './schemas.js';

export function listBooks(app: FastifyInstance, { services }: RouteContext) {
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
      config: { lastModified: true },
    },
    async (request, reply) => {
      // The items are JSON already (made by the database): the page is sent as it is.
      return jsonListResponse(request, reply, (query) => services.books.listBooks(actorOf(request), { ...query, status: request.query.status ?? 'active' }));
    },
  );
}
