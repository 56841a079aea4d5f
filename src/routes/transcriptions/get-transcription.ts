import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { MediaParams, mediaIdsMustBeWellFormed } from '../media/schemas.js';

export function getTranscription(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/submissions/:id/media/:media_id/transcription/',
    {
      schema: {
        operationId: 'getTranscription',
        tags: ['media'],
        summary: "Read a voice note's or video's transcript",
        description: 'Owner or admin. 404 before any was requested. Poll it after a request, or listen for transcription.completed.',
        params: MediaParams,
        response: { 200: Type.Ref('Transcription') },
      },
      config: { book: 'read_transcription', errors: [403], etag: [200] },
      onRequest: mediaIdsMustBeWellFormed,
    },
    async (request, reply) => {
      const transcription = await services.transcriptions.get(actorOf(request), request.params.slug, request.params.id, request.params.media_id);
      setEtag(reply, transcription.etag);
      return transcription;
    },
  );
}
