import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams, UpdateBookBody } from './schemas.js';

export function updateBook(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/books/:slug/',
    {
      schema: {
        operationId: 'updateBook',
        tags: ['books'],
        summary: 'Update a book',
        description: 'Partial update. Read-only fields (slug, status, plan…) are unknown fields: 422. Optional If-Match; 412 with details.current_etag when stale.',
        params: SlugParams,
        body: UpdateBookBody,
        response: { 200: Type.Ref('Book') },
      },
      config: { book: 'update', errors: [412], etag: [200] },
    },
    async (request, reply) => {
      const book = await services.books.updateBook(unitOf(request), actorOf(request), request.params.slug, request.body, request.headers['if-match']);
      setEtag(reply, book.etag);
      return book;
    },
  );
}
