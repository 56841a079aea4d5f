import type { Readable } from 'node:stream';

/**
 * The object-store port: where media originals, their derived files (poster
 * frames, share cards) and export artifacts live. Two drivers implement it:
 * `local-store.ts` (files under DATA_DIR/objects, the default; the service
 * serves signed URLs itself at /files/…) and `s3-store.ts` (any S3-compatible
 * store, presigned SigV4 URLs). Services see only this interface.
 *
 * Keys are relative paths of `[A-Za-z0-9._-]` segments joined by `/`, none
 * starting with a dot (e.g. `media/<book_id>/<media_id>/original`); never
 * user input.
 */
export interface ObjectStore {
  readonly kind: 'local' | 's3';

  /**
   * Streams `body` into `key`, never holding the whole object in memory.
   * The object appears whole or not at all: when the body errors, the signal
   * aborts or the store fails, the promise rejects and nothing is left under
   * `key` (a partial upload is removed). Resolves with the bytes written.
   */
  put(key: string, body: Readable, options: { contentType: string; signal?: AbortSignal }): Promise<{ sizeBytes: number }>;

  /**
   * Reads the object, whole or the inclusive byte range (an end past the last
   * byte is clamped, as in HTTP); rejects with ObjectNotFoundError when
   * missing and RangeError when the range starts past the end.
   */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;

  /** Size and type of the object, or null when there is none. */
  head(key: string): Promise<{ sizeBytes: number; contentType: string | null } | null>;

  /** Removes the object; removing a missing one is not an error (cleanup may run twice). */
  delete(key: string): Promise<void>;

  /**
   * Removes what a put of `key` that never finished left behind because its
   * process died mid-upload (a failed put cleans up itself): the local
   * store's staging file, an S3 multipart upload still open with its parts.
   * Only for a key no live put is writing (the sweep of pending objects).
   */
  discardInterrupted(key: string): Promise<void>;

  /**
   * A URL anyone can GET the object from until `expiresAt`, without other
   * credentials: S3 presigned SigV4 (`X-Amz-Expires`), or the local store's
   * HMAC-signed URL of the same query shape. `downloadName` sets
   * Content-Disposition: attachment; `contentType` overrides the stored type;
   * `now` dates the URL (tests). `expiresAt` is X-Amz-Date (whole seconds) +
   * ttl. Throws SigningError when it cannot sign (callers fail closed: no URL
   * rather than a broken one), RangeError for a ttl outside 1 s to 7 days.
   */
  signedUrl(key: string, options: { ttlSeconds: number; downloadName?: string; contentType?: string; now?: Date }): Promise<{ url: string; expiresAt: Date }>;

  /** A readable local path for tools that need a file (ffprobe, sharp): the file itself on disk, a temporary download on S3. `release` removes a temporary copy. */
  localCopy(key: string, options?: { signal?: AbortSignal }): Promise<{ path: string; release(): Promise<void> }>;

  /** Stops background work and closes connections. */
  close(): Promise<void>;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No object at ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class SigningError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningError';
  }
}

/**
 * Rejects keys that could escape the store's root or be mistaken for URLs.
 * No segment may start with a dot: `.`/`..` never, and the local store keeps
 * its own `.staging/` and `.meta/` beside the objects.
 */
export function assertObjectKey(key: string): void {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/.test(key) || key.length > 1024) {
    throw new Error(`Invalid object key: ${JSON.stringify(key)}`);
  }
}

/** An inclusive range within an object of `size` bytes; the end is clamped to the last byte, as HTTP does. */
export function checkRange(range: { start: number; end: number }, size: number): { start: number; end: number } {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || start >= size) {
    throw new RangeError(`Range ${start}-${end} is not satisfiable for ${size} bytes`);
  }
  return { start, end: Math.min(end, size - 1) };
}
