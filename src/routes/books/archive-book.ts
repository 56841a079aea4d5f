import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { EmptyBody } from '../../http/schemas/common.js';
import { SlugParams } from './schemas.js';

/** Archive and restore: owner only; repeating either is a 200 no-op. */
export function archiveAndRestoreBook(app: FastifyInstance, { services }: RouteContext) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const { action, operationId, status, summary } of [
    { action: 'archive', operationId: 'archiveBook', status: 'archived', summary: 'Archive a book (hidden from listings, data kept)' },
    { action: 'restore', operationId: 'restoreBook', status: 'active', summary: 'Restore an archived book' },
  ] as const) {
    api.post(
      `/books/:slug/${action}/`,
      {
        schema: {
          operationId,
          tags: ['books'],
          summary,
          description: 'Owner only. Repeating it is a no-op that answers 200 with the book.',
          params: SlugParams,
          body: EmptyBody,
          response: { 200: Type.Ref('Book') },
        },
        config: { book: action, etag: [200] },
      },
      async (request, reply) => {
        const { book } = await services.books.setStatus(unitOf(request), actorOf(request), request.params.slug, status);
        setEtag(reply, book.etag);
        return book;
      },
    );
  }
}
