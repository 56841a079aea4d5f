import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listResponse } from '../../http/list-query.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { ExportList, ListExportsQuery } from './schemas.js';

export function listExports(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/exports/',
    {
      schema: {
        operationId: 'listExports',
        tags: ['exports'],
        summary: "List a book's exports",
        description: 'Owner or admin: every export job of the book, newest first; with updated_since, oldest change first. Pin the next updated_since to the Last-Modified header.',
        params: SlugParams,
        querystring: ListExportsQuery,
        response: { 200: ExportList },
      },
      config: { lastModified: true, book: 'read_exports', errors: [403] },
    },
    async (request, reply) => {
      return listResponse(request, reply, (query) => services.exports.listExports(actorOf(request), request.params.slug, query));
    },
  );
}
