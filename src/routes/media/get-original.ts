import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../http/schemas/common.js';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { MediaParams, mediaIdsMustBeWellFormed } from './schemas.js';

export const OriginalFile = Type.Object(
  {
    url: Type.String({ description: 'Signed, 15 minutes: the bytes exactly as uploaded, as an attachment' }),
    expires_at: Timestamp,
    filename: Type.String({ description: 'The name it was uploaded with, or media-<id>.<ext>' }),
    content_type: Type.String({ description: 'Detected from the bytes' }),
    size_bytes: Type.Integer(),
    sha256: Type.String({ description: 'Hex SHA-256 of the original bytes, taken as they arrived' }),
  },
  {
    title: 'OriginalFile',
    description: 'Where to download the original bytes of a media file, and their checksum',
    examples: [
      {
        url: 'https://api.example.com/files/media/…?expires=…&signature=…',
        expires_at: '2026-11-21T10:15:00.000000Z',
        filename: 'IMG_2041.HEIC',
        content_type: 'image/heic',
        size_bytes: 2481152,
        sha256: '9f2c1e4b7a6d5c3e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607',
      },
    ],
  },
);

export function getOriginal(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/submissions/:id/media/:media_id/original/',
    {
      schema: {
        operationId: 'getMediaOriginal',
        tags: ['media'],
        summary: 'Download a media file as it was uploaded',
        description:
          'A signed URL (15 minutes) to the exact bytes uploaded, with their sha256: every file keeps them (the media read serves the same stored file; ' +
          'nothing in processing rewrites it). Owner and admin; a contributor for the media of their own memory (403 for another\'s). ' +
          '409 invalid_state while the file awaits its virus scan; 410 original_unavailable for a file found infected or whose original is gone from the store.',
        params: MediaParams,
        response: { 200: OriginalFile },
      },
      config: { book: 'read_original', errors: [403, 'invalid_state', 'original_unavailable', 'storage_unavailable'], retryAfter: [502] },
      onRequest: mediaIdsMustBeWellFormed,
    },
    async (request) => services.media.getOriginal(actorOf(request), request.params.slug, request.params.id, request.params.media_id),
  );
}
