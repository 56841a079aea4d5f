import type { HelperContext } from './call.js';
import { toBlob, type FileInput } from './media.js';
import type { Book } from './types.js';

export interface CoverUploadOptions {
  slug: string;
  /** A photo (JPEG, PNG, HEIC, WebP…): a Blob or File, a path (Node), a stream or the bytes. */
  file: FileInput;
  filename?: string;
  /** The declared type (advisory: the server detects the type from the bytes). */
  contentType?: string;
  /** Your own Idempotency-Key (default: a fresh one, kept across retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface CoverHelpers {
  /** PUT /books/{slug}/cover/: uploads a photo as the book's cover (focused on its detected subject) and answers the book. */
  put(o: CoverUploadOptions): Promise<Book>;
  /** DELETE /books/{slug}/cover/: back to the automatic choice; answers the book. */
  delete(o: { slug: string; idempotencyKey?: string; signal?: AbortSignal }): Promise<Book>;
}

/**
 * The book's cover. Choosing a memory's photo or moving the focus is a book
 * update: `mb.update('/api/v1/books/{slug}/', {params: {path: {slug}}}, () => ({cover_media_id, cover_focal_point}))`.
 */
export function createCoverHelpers({ call }: HelperContext): CoverHelpers {
  return {
    async put(o) {
      const { blob, filename } = await toBlob(o.file, o);
      const form = new FormData();
      form.append('file', blob, filename);
      return (
        await call<Book>('put', '/api/v1/books/{slug}/cover/', {
          path: { slug: o.slug },
          body: form,
          headers: o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : undefined,
          signal: o.signal,
        })
      ).data;
    },
    async delete(o) {
      return (
        await call<Book>('delete', '/api/v1/books/{slug}/cover/', {
          path: { slug: o.slug },
          headers: o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : undefined,
          signal: o.signal,
        })
      ).data;
    },
  };
}
