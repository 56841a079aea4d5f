import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { declaredLengthOver, dropRestOfBody, MAX_BOUNDARY_LENGTH, multipartFailureOf } from '../../http/multipart.js';
import { actorOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256 } from '../../lib/secrets.js';
import type { RouteContext } from '../../services/index.js';
import type { StagedUpload } from '../../services/media/media-service.js';
import type { IncomingFile } from '../../services/media/upload-intake.js';
import { MULTIPART_CEILING_BYTES } from '../../services/media/media-policy.js';
import { SubmissionParams, submissionIdMustBeWellFormed } from '../submissions/schemas.js';

/** The field that carries the file; the contract's one multipart field. */
export const FILE_FIELD = 'file';

/** A 422 `{detail}` for the multipart body, like a JSON body's schema failure. */
function bodyError(keyword: 'required' | 'additionalProperties' | 'pattern', field: string): Error {
  const params = keyword === 'required' ? { missingProperty: field } : keyword === 'additionalProperties' ? { additionalProperty: field } : {};
  return Object.assign(new Error(`multipart field ${field}`), {
    validation: [{ keyword, instancePath: keyword === 'pattern' ? `/${field}` : '', params }],
    validationContext: 'body',
  });
}

/** A file name or declared type we would store and send back in Content-Disposition: printable, and not absurdly long. */
const wellFormedHeaderValue = (v: string | undefined) => v === undefined || (v.length <= 255 && !/[\u0000-\u001f\u007f]/.test(v));

/** The key is bound to what was sent: the bytes, the file's name and declared type. */
const uploadDigest = (bytesSha256: string, filename: string | null, declaredType: string | null) =>
  sha256(canonicalJson({ sha256: bytesSha256, filename, declared_type: declaredType })).toString('hex');

/** Reads a retried file only to know it (no store, no checks but the ceiling): its answer is already stored. */
async function digestOnly(file: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of file as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MULTIPART_CEILING_BYTES) throw fromMultipartError({ code: 'FST_REQ_FILE_TOO_LARGE' });
    hash.update(chunk);
  }
  return hash.digest('hex');
}

/** A declared Content-Length over the ceiling is refused before a byte is read (onRequest, after the book checks). */
export async function declaredLengthWithinCeiling(request: FastifyRequest, reply: FastifyReply) {
  const declared = declaredLengthOver(request, MULTIPART_CEILING_BYTES);
  if (declared !== undefined) {
    reply.header('connection', 'close'); // do not take the body in
    throw errors.payloadTooLarge(`An upload request may be at most ${MULTIPART_CEILING_BYTES / 1_048_576} MB.`, {
      limit_bytes: MULTIPART_CEILING_BYTES,
      content_length: declared,
    });
  }
}

/** The parser's own limits, in the contract's terms. */
function fromMultipartError(err: unknown): unknown {
  switch (multipartFailureOf(err)) {
    case 'too_many_files':
      return errors.validation('Send exactly one file, in the field "file".', { field: FILE_FIELD, max_files: 1 });
    case 'file_too_large':
    case 'too_many_parts':
      return errors.payloadTooLarge(`An upload request may be at most ${MULTIPART_CEILING_BYTES / 1_048_576} MB, in one file part.`, {
        limit_bytes: MULTIPART_CEILING_BYTES,
      });
    case 'malformed':
      return errors.validation('The multipart body is malformed or was cut off.', null);
    case 'boundary_too_long':
      return errors.validation(`The multipart boundary is too long: at most ${MAX_BOUNDARY_LENGTH} characters (RFC 2046 allows 70).`, {
        reason: 'boundary_too_long',
      });
    default:
      return err;
  }
}

/**
 * onResponse of an upload route: after the answer and its transaction, a staged upload no row took is
 * removed (never while the transaction is open).
 */
export function discardLeftoverUpload(services: RouteContext['services']) {
  return async (request: FastifyRequest) => {
    const left = request.stagedUpload;
    request.stagedUpload = undefined;
    if (left) await services.media.discardStaged(left).catch((err) => request.log.warn({ err }, 'could not discard a staged upload; the sweep will'));
  };
}

/**
 * The one intake of a multipart upload route (media, the book's cover): one
 * file part named `file`, streamed by `stage` (the upload intake: type from
 * the bytes, caps, plan gates), then recorded by `attach` in the request's
 * keyed transaction. A retry whose answer is stored is answered from it before
 * any rule runs again (the Idempotency-Key is bound to the bytes, name and
 * declared type). Answers undefined when the reply was sent from a stored
 * answer; a staged file no row took is removed once the answer is out (the
 * route's onResponse calls discardStaged on request.stagedUpload).
 */
export async function receiveUpload<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  stage: (file: IncomingFile) => Promise<StagedUpload>,
  attach: (tx: Parameters<Parameters<NonNullable<FastifyRequest['runIdempotent']>>[1]>[0], staged: StagedUpload) => Promise<T>,
  discard: (staged: StagedUpload) => Promise<void>,
): Promise<{ value: T } | undefined> {
  if (!request.isMultipart()) {
    throw errors.unsupportedMediaType('Send the file as multipart/form-data, in one part named "file".', {
      content_type: request.headers['content-type'] ?? null,
      expected: 'multipart/form-data',
    });
  }
  // A retry of an upload whose answer is stored is answered from it, before any rule runs again:
  // the book may have filled up with that very file since.
  const retry = await request.hasStoredAnswer!();
  let staged: StagedUpload | undefined;
  let retriedDigest: string | undefined;
  try {
    for await (const part of request.parts({ limits: { files: 1, fields: 8, fieldSize: 1024, parts: 10, fileSize: MULTIPART_CEILING_BYTES } })) {
      if (part.type === 'field') throw bodyError('additionalProperties', part.fieldname);
      if (part.fieldname !== FILE_FIELD) throw bodyError('additionalProperties', part.fieldname);
      if (!wellFormedHeaderValue(part.filename) || !wellFormedHeaderValue(part.mimetype)) throw bodyError('pattern', FILE_FIELD);
      const filename = part.filename || null;
      const declaredType = part.mimetype || null;
      if (retry) {
        retriedDigest = uploadDigest(await digestOnly(part.file), filename, declaredType);
        continue;
      }
      staged = await stage({ stream: part.file, filename, declaredType });
      // Removed once the answer is out (the request's transaction is over by then), unless the row took it.
      request.stagedUpload = staged;
    }
    if (!staged && !retriedDigest) throw bodyError('required', FILE_FIELD);
  } catch (err) {
    dropRestOfBody(request, reply);
    if (staged) {
      // No transaction is open yet: the staged file goes before the answer does.
      request.stagedUpload = undefined;
      await discard(staged).catch((e: unknown) => request.log.warn({ err: e }, 'could not discard a staged upload; the sweep will'));
    }
    throw fromMultipartError(err);
  }

  if (retriedDigest) {
    await request.runIdempotent!(retriedDigest, async () => {
      // The stored answer expired between the look and the claim: the file was not kept, so ask for it again.
      throw errors.idempotencyKeyInUse('Send this upload again.', null, { headers: { 'retry-after': '1' }, transient: true });
    });
    return undefined;
  }
  const upload = staged!;
  const outcome = await request.runIdempotent!(uploadDigest(upload.sha256, upload.filename, upload.declaredType), async (tx) => {
    const value = await attach(tx, upload);
    request.stagedUpload = undefined; // the row holds it now (if the transaction commits; if not, the sweep finds it)
    return value;
  });
  if (outcome.replayed) {
    // A race with the same key that the other request won: no transaction of ours is open.
    request.stagedUpload = undefined;
    await discard(upload);
    return undefined;
  }
  return { value: outcome.value as T };
}

export function uploadMedia(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/submissions/:id/media/',
    {
      schema: {
        operationId: 'uploadMedia',
        tags: ['media'],
        summary: 'Attach a photo, audio or video file to a submission',
        description:
          'Owner, admin, or the submission\'s author. multipart/form-data with exactly one file part named `file`; no other fields. ' +
          'The type is detected from the bytes (the declared Content-Type is advisory); anything but image/*, audio/* or video/* is ' +
          '400 validation_failed with details.detected_mime_type. Plan gates: audio needs feature_audio; video needs feature_video, or on a ' +
          'plan with only feature_live_photo, QuickTime motion of 6 seconds or less (400 validation_failed naming the feature). ' +
          'Size caps, enforced while the file streams: photo 20 MB, audio 50 MB, video the plan\'s max_video_bytes (live-photo motion 20 MB), ' +
          'the whole request 90 MB (a larger declared Content-Length is refused before reading): 413 payload_too_large, and nothing is stored. ' +
          'A picture over 100 megapixels when decoded is 400 validation_failed with details.reason too_many_pixels, and nothing is stored. ' +
          'A file that would take the book past its plan\'s storage is 402 plan_limit_exceeded. An approved submission goes back to pending ' +
          '(unpinned, share card cleared). Processing (dimensions, duration, poster frame, virus scan) runs in the background: ' +
          'processing_status moves from pending to complete. The Idempotency-Key is bound to the file\'s bytes, name and declared type; ' +
          'a retry with the same key sends the same file again and is answered from the first upload.',
        params: SubmissionParams,
        response: { 201: Type.Ref('MediaSummary', { description: 'The media file, processing in the background' }) },
      },
      config: {
        book: 'upload_own_media',
        location: [201],
        ownRow: 'submission',
        idempotency: 'deferred',
        multipart: { fileField: FILE_FIELD, description: 'One file part named `file`: an image, audio or video file.' },
        errors: ['plan_limit_exceeded', 413, 415],
      },
      onRequest: [submissionIdMustBeWellFormed, declaredLengthWithinCeiling],
      onResponse: discardLeftoverUpload(services),
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { slug, id } = request.params;
      const outcome = await receiveUpload(
        request,
        reply,
        (file) => services.media.stageUpload(actor, slug, id, file),
        (tx, upload) => services.media.attachUpload(tx, actor, slug, id, upload),
        (staged) => services.media.discardStaged(staged),
      );
      if (!outcome) return reply;
      setLocation(reply.code(201), `/api/v1/books/${encodeURIComponent(slug)}/submissions/${id}/media/${outcome.value.id}/`);
      return outcome.value;
    },
  );
}
