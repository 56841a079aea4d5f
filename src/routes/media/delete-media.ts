import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { MediaParams, mediaIdsMustBeWellFormed } from './schemas.js';

export function deleteMedia(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/submissions/:id/media/:media_id/',
    {
      schema: {
        operationId: 'deleteMedia',
        tags: ['media'],
        summary: 'Detach and delete a media file',
        description:
          'Owner or admin. An approved submission goes back to pending (unpinned, share card cleared); the file and its derived files ' +
          'are removed in the background and the book\'s storage is given back. A replay with the same Idempotency-Key answers the stored 204; ' +
          'a new request for a deleted id is 404.',
        params: MediaParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
      config: { book: 'delete_media', errors: [403] },
      onRequest: mediaIdsMustBeWellFormed,
    },
    async (request, reply) => {
      await services.media.deleteMedia(unitOf(request), actorOf(request), request.params.slug, request.params.id, request.params.media_id);
      return reply.code(204).send(null);
    },
  );
}
