import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { deletionQueued } from '../../http/not-errors.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { DeletionQueued, SlugParams } from './schemas.js';

export function deleteBook(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/',
    {
      schema: {
        operationId: 'deleteBook',
        tags: ['books'],
        summary: 'Delete a book',
        description:
          'Owner only; allowed during a grace period. 204: the book answers 404 from now on while its rows and files are removed in the background. ' +
          '202 deletion_queued (with Retry-After): off-site backup erasure is not confirmed yet; the book keeps answering and the service keeps retrying; ' +
          'retry with the same Idempotency-Key after the wait.',
        params: SlugParams,
        response: { 202: DeletionQueued, 204: Type.Null({ description: 'Deleted' }) },
      },
      // Deferred: the key is claimed after the backup endpoint has answered, so no transaction waits on it.
      config: { book: 'delete', idempotency: 'deferred', errors: [403], retryAfter: [202] },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { slug } = request.params;
      const run = await request.runPhased!(
        () => services.books.eraseBookBackups(actor, slug),
        (tx, erasure) => services.books.deleteBook(tx, actor, slug, erasure),
      );
      if (run.replayed) return reply;
      const outcome = run.value;
      if (outcome.state === 'deleted') return reply.code(204).send(null);
      return deletionQueued(
        request,
        reply,
        outcome.retryAfterSeconds,
        'Deletion is queued: off-site backup erasure is not confirmed yet. The book stays readable until it is; retry after the Retry-After wait.',
      );
    },
  );
}
