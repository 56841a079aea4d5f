import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from './schemas.js';

export function getBook(app: FastifyInstance, { services }: RouteContext) {
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
      config: { book: 'view', errors: [403], etag: [200] },
    },
    async (request, reply) => {
      const book = await services.books.getBook(actorOf(request), request.params.slug);
      setEtag(reply, book.etag);
      return book;
    },
  );
}
