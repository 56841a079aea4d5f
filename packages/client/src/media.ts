import type { HelperContext } from './call.js';
import { MediaProcessingError, MediaUnavailableError, MemorybookApiError, WaitTimeoutError } from './errors.js';
import { sleep } from './transport.js';
import type { Media } from './types.js';

/** A media file's address: its book, its submission, its id. */
export interface MediaRef {
  slug: string;
  submissionId: string;
  mediaId: string;
}

/**
 * What an upload takes: a Blob or File (browsers and Node), a file path
 * (Node), a ReadableStream or a Node stream (any async iterable of bytes), or
 * the bytes themselves. A stream is read into memory first, so that a retry
 * can send the same bytes again; pass a path for large files.
 */
export type FileInput = Blob | string | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | ArrayBuffer;

export interface WaitOptions {
  /** Give up after this long (default 2 minutes): WaitTimeoutError. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface UploadOptions {
  slug: string;
  submissionId: string;
  file: FileInput;
  /** The file's name (default: the path's or the File's name, else "upload"). */
  filename?: string;
  /** The declared type (advisory: the server detects the type from the bytes). Default: the Blob's type, else guessed from the name. */
  contentType?: string;
  /** Wait until processing is complete and answer the processed file (default true). */
  wait?: boolean | WaitOptions;
  /** Your own Idempotency-Key (default: a fresh one, kept across retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface FreshOptions {
  /** URLs lapsing within this long count as lapsed (default 60 s). */
  marginMs?: number;
  signal?: AbortSignal;
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

const basename = (p: string) => p.split(/[\\/]/).pop() || 'upload';
const guessType = (name: string) => TYPES_BY_EXTENSION[name.split('.').pop()?.toLowerCase() ?? ''] ?? '';

/** A file path as a Blob backed by the file (Node only: the import is resolved at run time, so bundlers for browsers leave it alone). */
async function fileBlob(path: string, type: string): Promise<Blob> {
  const fs = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:fs') as
    | { openAsBlob?: (path: string, options?: { type?: string }) => Promise<Blob> }
    | undefined;
  if (!fs?.openAsBlob) throw new TypeError('Uploading from a file path needs Node.js 20.16 or later; in a browser pass a File or Blob.');
  return fs.openAsBlob(path, { type });
}

export async function toBlob(input: FileInput, o: { filename?: string; contentType?: string }): Promise<{ blob: Blob; filename: string }> {
  if (typeof input === 'string') {
    const filename = o.filename ?? basename(input);
    return { blob: await fileBlob(input, o.contentType ?? guessType(filename)), filename };
  }
  let blob: Blob;
  let filename = o.filename;
  if (input instanceof Blob) {
    blob = input;
    filename ??= (input as Blob & { name?: string }).name;
  } else if (input instanceof Uint8Array || input instanceof ArrayBuffer) {
    blob = new Blob([input as BlobPart]);
  } else if (typeof ReadableStream !== 'undefined' && input instanceof ReadableStream) {
    blob = await new Response(input).blob();
  } else {
    const chunks: Uint8Array[] = [];
    for await (const chunk of input as AsyncIterable<Uint8Array>) chunks.push(chunk);
    blob = new Blob(chunks as BlobPart[]);
  }
  filename ||= 'upload';
  const type = o.contentType ?? (blob.type || guessType(filename));
  return { blob: type && type !== blob.type ? blob.slice(0, blob.size, type) : blob, filename };
}

const mediaPath = '/api/v1/books/{slug}/submissions/{id}/media/{media_id}/';

export function createMediaHelpers({ call, fetchFile }: HelperContext) {
  const get = async (ref: MediaRef, signal?: AbortSignal): Promise<Media> =>
    (await call<Media>('get', mediaPath, { path: { slug: ref.slug, id: ref.submissionId, media_id: ref.mediaId }, signal })).data;

  /** Polls a media file (soon at first, then every few seconds) until `done` says so. */
  async function poll(ref: MediaRef, done: (m: Media) => boolean, what: string, o: WaitOptions = {}): Promise<Media> {
    const deadline = Date.now() + (o.timeoutMs ?? 120_000);
    for (let pause = 250; ; pause = Math.min(5000, pause * 2)) {
      const m = await get(ref, o.signal);
      if (done(m)) return m;
      if (Date.now() + pause > deadline) throw new WaitTimeoutError(`media ${ref.mediaId}: ${what} did not happen in time (processing_status ${m.processing_status})`);
      await sleep(pause, o.signal);
    }
  }

  const helpers = {
    /** Reads a media file, with freshly signed URLs. */
    get: (ref: MediaRef, options: { signal?: AbortSignal } = {}) => get(ref, options.signal),

    /**
     * Uploads a file to a submission (multipart, field `file`), then by
     * default waits until its processing is complete. A dropped connection is
     * retried with the same Idempotency-Key: the file is attached once.
     */
    async upload(o: UploadOptions): Promise<Media> {
      const { blob, filename } = await toBlob(o.file, o);
      const form = new FormData();
      form.append('file', blob, filename);
      const { data } = await call<Media>('post', '/api/v1/books/{slug}/submissions/{id}/media/', {
        path: { slug: o.slug, id: o.submissionId },
        body: form,
        headers: o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : undefined,
        signal: o.signal,
      });
      if (o.wait === false) return data;
      return helpers.waitUntilProcessed({ slug: o.slug, submissionId: o.submissionId, mediaId: data.id }, { signal: o.signal, ...(typeof o.wait === 'object' ? o.wait : {}) });
    },

    /** Polls until `processing_status` is `complete` (MediaProcessingError when it ends `failed`). */
    async waitUntilProcessed(ref: MediaRef, options: WaitOptions = {}): Promise<Media> {
      const m = await poll(ref, (x) => x.processing_status === 'complete' || x.processing_status === 'failed', 'processing', options);
      if (m.processing_status === 'failed') throw new MediaProcessingError(m);
      return m;
    },

    /**
     * A media read whose signed URLs are good for a while yet: `current` when
     * its `urls_expire_at` is more than the margin away, else read again.
     * Keep the media, not its URLs, and pass it through this before use.
     */
    async fresh(ref: MediaRef, current?: Media | null, options: FreshOptions = {}): Promise<Media> {
      const expires = current?.urls_expire_at ? Date.parse(current.urls_expire_at) : NaN;
      if (current?.download_url && expires - Date.now() > (options.marginMs ?? 60_000)) return current;
      return get(ref, options.signal);
    },

    /**
     * Fetches the file itself. A URL that is not there yet (`download_status:
     * unavailable` while the file waits for its scan, or signing failed for a
     * moment) is polled for; one that lapsed on the way is fetched afresh.
     */
    async download(ref: MediaRef, options: WaitOptions & { current?: Media | null } = {}): Promise<Response> {
      let m = await helpers.fresh(ref, options.current, { signal: options.signal });
      if (!m.download_url) {
        m = await poll(ref, (x) => x.download_url !== null || x.scan_result === 'infected' || x.processing_status === 'failed', 'a download URL', options);
        if (!m.download_url) throw new MediaUnavailableError(m);
      }
      let res = await fetchFile(m.download_url, options.signal);
      if (res.status === 403) {
        // Lapsed between the read and the fetch (or a clock apart): one more read mints a new URL.
        await res.body?.cancel().catch(() => {});
        m = await get(ref, options.signal);
        if (m.download_url) res = await fetchFile(m.download_url, options.signal);
      }
      if (!res.ok) throw new MemorybookApiError(res, await res.json().catch(() => null));
      return res;
    },
  };
  return helpers;
}
export type MediaHelpers = ReturnType<typeof createMediaHelpers>;
