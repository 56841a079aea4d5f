import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { MediaParams, mediaIdsMustBeWellFormed } from '../media/schemas.js';

export function requestTranscription(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/submissions/:id/media/:media_id/transcription/',
    {
      schema: {
        operationId: 'requestTranscription',
        tags: ['media'],
        summary: 'Ask for a transcript of a voice note or video',
        description:
          "Owner or admin; the book's plan must include feature_transcription (403 feature_gated). Only audio and video (400 validation_failed, " +
          'details.reason not_audio). 202 with the new transcription (pending; the worker makes it, and transcription.completed or ' +
          'transcription.failed follows); 200 with the existing one while one is pending, processing or completed. A failed one is asked ' +
          "for again (202). An owner's correction is kept. 409 transcription_unavailable when the server has no transcription endpoint.",
        params: MediaParams,
        response: {
          202: Type.Ref('Transcription', { description: 'Requested: the worker makes it' }),
          200: Type.Ref('Transcription', { description: 'One exists already: it is answered as it is' }),
        },
      },
      config: { book: 'request_transcription', errors: [403, 'transcription_unavailable'], etag: [200, 202] },
      onRequest: mediaIdsMustBeWellFormed,
    },
    async (request, reply) => {
      const { created, transcription } = await services.transcriptions.request(unitOf(request), actorOf(request), request.params.slug, request.params.id, request.params.media_id);
      return setEtag(reply.code(created ? 202 : 200), transcription.etag).send(transcription);
    },
  );
}
