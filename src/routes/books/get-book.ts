import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireBook } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { toBook } from '../../services/books/book-mapper.js';
import { SlugParams } from './schemas.js';

export function getBook(app: FastifyInstance, _ctx: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/',
    {
      schema: {
        operationId: 'getBook',
        tags: ['books'],
        summary: 'Read a book',
        params: SlugParams,
        response: { 200: Type.Ref('Book') },
      },
      config: { book: 'view', errors: [403] },
    },
    async (request, reply) => {
      const ctx = requireBook(request.book);
      const book = toBook(ctx.book, ctx.role);
      reply.header('etag', book.etag);
      return book;
    },
  );
}
