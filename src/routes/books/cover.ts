import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import type { CoverFindings } from '../../services/books/cover-writes.js';
import { declaredLengthWithinCeiling, discardLeftoverUpload, FILE_FIELD, receiveUpload } from '../media/upload-media.js';
import { SlugParams } from './schemas.js';

/** PUT /books/{slug}/cover/: one photo uploaded as the book's cover, through the media upload's own intake. Registered where multipart is parsed. */
export function putCover(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().put(
    '/books/:slug/cover/',
    {
      schema: {
        operationId: 'putBookCover',
        tags: ['books'],
        summary: "Upload the book's cover",
        description:
          'Owner or admin. multipart/form-data with exactly one file part named `file`: a photo, taken by the media upload\'s own intake. ' +
          'The type is detected from the bytes; anything but an image is 400 validation_failed with details.detected_mime_type. ' +
          'A picture over 100 megapixels when decoded is 400 validation_failed with details.reason too_many_pixels; over the photo cap (20 MB) ' +
          '413 payload_too_large; past the plan\'s storage 402 plan_limit_exceeded; nothing is stored then. The photo becomes the cover, focused on ' +
          'its detected subject (move it with PATCH cover_focal_point); it belongs to no memory, counts in the book\'s storage, and is removed ' +
          'when another cover replaces it, with DELETE /books/{slug}/cover/, or with the book. Answers the book (its ETag moves); book.updated. ' +
          'The Idempotency-Key is bound to the file\'s bytes, name and declared type.',
        params: SlugParams,
        response: { 200: Type.Ref('Book') },
      },
      config: {
        book: 'update',
        etag: [200],
        idempotency: 'deferred',
        multipart: { fileField: FILE_FIELD, description: 'One file part named `file`: a photo (JPEG, PNG, HEIC, WebP…).' },
        errors: ['plan_limit_exceeded', 413, 415],
      },
      onRequest: [declaredLengthWithinCeiling],
      onResponse: discardLeftoverUpload(services),
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { slug } = request.params;
      let findings: CoverFindings | undefined;
      const outcome = await receiveUpload(
        request,
        reply,
        async (file) => {
          const staged = await services.media.stageCover(actor, slug, file);
          try {
            // Read once, outside the transaction: its size, its subject, its scan.
            findings = await services.books.examineCover(staged);
          } catch (err) {
            await services.media.discardStaged(staged).catch((e) => request.log.warn({ err: e }, 'could not discard a staged upload; the sweep will'));
            throw err;
          }
          return staged;
        },
        (tx, staged) => services.books.putCover(tx, actor, slug, staged, findings!),
        (staged) => services.media.discardStaged(staged),
      );
      if (!outcome) return reply;
      setEtag(reply, outcome.value.etag);
      return outcome.value;
    },
  );
}

/** DELETE /books/{slug}/cover/: back to the automatic choice. */
export function deleteCover(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/cover/',
    {
      schema: {
        operationId: 'deleteBookCover',
        tags: ['books'],
        summary: "Return the book's cover to the automatic choice",
        description:
          'Owner or admin. The cover becomes null: the printed book, share cards and the web form take the first pinned memory\'s photo again. ' +
          'An uploaded cover is removed with its bytes; a memory\'s photo stays in its memory. Answers the book (its ETag moves; book.updated); ' +
          'without a cover, the book as it is.',
        params: SlugParams,
        response: { 200: Type.Ref('Book') },
      },
      config: { book: 'update', etag: [200] },
    },
    async (request, reply) => {
      const book = await services.books.deleteCover(unitOf(request), actorOf(request), request.params.slug);
      setEtag(reply, book.etag);
      return book;
    },
  );
}
