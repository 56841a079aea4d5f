import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { MediaParams, mediaIdsMustBeWellFormed } from './schemas.js';

export function getMedia(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/submissions/:id/media/:media_id/',
    {
      schema: {
        operationId: 'getMedia',
        tags: ['media'],
        summary: 'Read a media file, with fresh signed URLs',
        description:
          'Owner or admin. Every read mints new signed URLs (15 minutes; urls_expire_at says when they lapse). download_url is null ' +
          '(download_status unavailable) for a file found infected or still waiting for its scan, and when signing fails: it fails closed.',
        params: MediaParams,
        response: { 200: Type.Ref('MediaSummary', { description: 'The media file' }) },
      },
      config: { book: 'read_media', errors: [403] },
      onRequest: mediaIdsMustBeWellFormed,
    },
    async (request) => services.media.getMedia(actorOf(request), request.params.slug, request.params.id, request.params.media_id),
  );
}
