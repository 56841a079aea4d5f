import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { MediaParams, mediaIdsMustBeWellFormed } from '../media/schemas.js';
import { UpdateTranscriptionBody } from './schemas.js';

export function updateTranscription(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/books/:slug/submissions/:id/media/:media_id/transcription/',
    {
      schema: {
        operationId: 'updateTranscription',
        tags: ['media'],
        summary: 'Correct a transcript',
        description:
          'Owner or admin. Replaces the text (edited becomes true; segments stay as the provider timed them); the correction is what ' +
          'reads, exports and the printed book show, and it is kept when the transcript is asked for again. Only a completed transcript ' +
          '(409 invalid_state otherwise). Optional If-Match; 412 with details.current_etag when stale.',
        params: MediaParams,
        body: UpdateTranscriptionBody,
        response: { 200: Type.Ref('Transcription') },
      },
      config: { book: 'edit_transcription', errors: [403, 412, 'invalid_state'], etag: [200] },
      onRequest: mediaIdsMustBeWellFormed,
    },
    async (request, reply) => {
      const transcription = await services.transcriptions.edit(
        unitOf(request),
        actorOf(request),
        request.params.slug,
        request.params.id,
        request.params.media_id,
        request.body.text,
        request.headers['if-match'],
      );
      setEtag(reply, transcription.etag);
      return transcription;
    },
  );
}
