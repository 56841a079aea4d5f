import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag, setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { CreateBookBody } from './schemas.js';

export function createBook(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/',
    {
      schema: {
        operationId: 'createBook',
        tags: ['books'],
        summary: 'Create a book',
        description:
          'The default plan needs no slot. A non-default plan consumes one held slot; with none free: 402 payment_required with details {plan, checkout_url}. ' +
          'The slug is derived from the title. Unknown theme or use_case_slug: 400 validation_failed with details.offered.',
        body: CreateBookBody,
        response: { 201: Type.Ref('Book') },
      },
      config: { errors: ['payment_required', 'conflict'], location: [201], etag: [201] },
    },
    async (request, reply) => {
      const book = await services.books.createBook(unitOf(request), actorOf(request), request.body);
      setEtag(setLocation(reply.code(201), `/api/v1/books/${book.slug}/`), book.etag);
      return book;
    },
  );
}
