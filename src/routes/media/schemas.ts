import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { MEDIA_KINDS, PROCESSING_STATUSES, SCAN_RESULTS } from '../../services/media/media-policy.js';

export const MediaParams = Type.Object({
  slug: Type.String({ maxLength: 200, description: 'Book slug' }),
  id: Type.String({ maxLength: 200, description: 'Submission id (opaque)' }),
  media_id: Type.String({ maxLength: 200, description: 'Media id (opaque)' }),
});

/** A media file as the API shows it: the media read, and each entry of a submission's `media`. */
export const MediaSummary = Type.Object(
  {
    id: Id,
    kind: StringEnum(MEDIA_KINDS),
    mime_type: Type.String({ description: 'Detected from the bytes; the declared Content-Type is advisory' }),
    size_bytes: Type.Integer(),
    width: Nullable(Type.Integer()),
    height: Nullable(Type.Integer()),
    duration_seconds: Nullable(Type.Number()),
    processing_status: StringEnum(PROCESSING_STATUSES, { description: 'pending → processing → complete, or failed once retries are spent' }),
    scan_result: StringEnum(SCAN_RESULTS, {
      description: 'Images: clean or infected once a configured scanner ran (pending until then), not_scanned without one. Audio and video: skipped_by_policy',
    }),
    download_url: Nullable(Type.String({ description: 'Signed, 15 minutes; null when the file is infected or awaits its scan, or signing failed (fail closed)' })),
    download_status: StringEnum(['available', 'unavailable'], { description: 'unavailable exactly when download_url is null' }),
    thumbnail_url: Nullable(Type.String({ description: 'Video only: the signed poster frame, once processing is complete' })),
    urls_expire_at: Nullable(Type.String({ ...Timestamp, description: 'When the signed URLs above lapse; read the media again for fresh ones. Null when there are none' })),
    created_at: Timestamp,
  },
  {
    $id: 'MediaSummary',
    title: 'MediaSummary',
    description: 'A media file attached to a submission; its URLs are signed and lapse at urls_expire_at',
    examples: [
      {
        id: '01935f4e-9d10-7c44-8b2e-5a1c7e3f9b20',
        kind: 'image',
        mime_type: 'image/jpeg',
        size_bytes: 482133,
        width: 1600,
        height: 1200,
        duration_seconds: null,
        processing_status: 'complete',
        scan_result: 'clean',
        download_url: 'https://files.example.org/media/01935f4e-9d10/original.jpg?sig=…',
        download_status: 'available',
        thumbnail_url: 'https://files.example.org/media/01935f4e-9d10/thumb.jpg?sig=…',
        urls_expire_at: '2026-11-21T11:00:00.000000Z',
        created_at: '2026-11-21T10:01:00.000000Z',
      },
    ],
  },
);


/** onRequest of the /media/{media_id}/ routes: ids not shaped like ours name nothing (404, never stored for replay). */
export async function mediaIdsMustBeWellFormed(request: FastifyRequest) {
  const p = request.params as { id?: string; media_id?: string };
  if (!isUuid(p.id) || !isUuid(p.media_id)) throw errors.notFound('media');
}
