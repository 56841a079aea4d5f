import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { inSpan, SpanKind } from '../lib/tracing.js';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config/config.js';
import { AppError, errors } from '../errors.js';
import { assertTtl } from './local-url-signer.js';
import { attachmentDisposition } from './content-disposition.js';
import { assertObjectKey, checkRange, ObjectNotFoundError, SigningError, type ObjectStore } from './object-store.js';

export type S3ObjectStoreOptions = NonNullable<Config['storage']['s3']> & {
  /** Overrides the keys above and the default chain (tests: a provider that fails). */
  credentials?: S3ClientConfig['credentials'];
};

/** S3's smallest part (but the last): a streamed upload holds two of these, one on its way and one filling. */
const PART_SIZE = 5 * 1024 * 1024;

/**
 * Any S3-compatible store (AWS, MinIO, R2, …). Uploads stream in 5 MiB
 * parts (one PutObject when the whole body fits in one); a failed or
 * aborted upload aborts its multipart upload, so no object and no orphaned
 * parts remain. Downloads are presigned SigV4 GETs.
 */
export function createS3ObjectStore(options: S3ObjectStoreOptions): ObjectStore {
  const { bucket } = options;
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint ?? undefined,
    forcePathStyle: options.forcePathStyle,
    // Without keys the AWS default chain (env, profile, instance role) applies.
    credentials:
      options.credentials ??
      (options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined),
    // Flexible checksums only where S3 requires them: many S3-compatible stores reject or mangle the
    // default CRC32 trailers, and presigned GETs stay plain (no x-amz-checksum-mode).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
  // Every call the store makes goes through here: a store that is down, cut off or throttling (after the
  // SDK's own retries) is an outage, 503 with Retry-After, not a failure of ours.
  const send = client.send.bind(client) as (command: unknown, options?: unknown) => Promise<unknown>;
  (client as unknown as { send: (command: unknown, options?: unknown) => Promise<unknown> }).send = async (command, options) => {
    try {
      // A client span per call (tracing on), named by the command (PutObject…); the SDK's own retries inside it.
      const operation = (command as { constructor: { name: string } }).constructor.name.replace(/Command$/, '');
      return await inSpan(
        `S3.${operation}`,
        { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'aws-api', 'rpc.service': 'S3', 'rpc.method': operation, 'aws.s3.bucket': bucket } },
        () => send(command, options),
      );
    } catch (err) {
      throw storeOutage(err) ?? err;
    }
  };

  return {
    kind: 's3',

    async put(key, body, { contentType, signal }) {
      let upload: PartedUpload | undefined;
      try {
        assertObjectKey(key);
        signal?.throwIfAborted();
        upload = new PartedUpload(client, bucket, key, contentType, signal);
        // An abort ends the body at once and cancels the request in flight.
        await pipeline(body, upload, { signal });
        if (signal?.aborted) throw abortReason(signal);
        return { sizeBytes: upload.sizeBytes };
      } catch (err) {
        body.destroy();
        await upload?.abandon();
        throw err;
      }
    },

    async get(key, range) {
      assertObjectKey(key);
      if (range) checkRange(range, Number.MAX_SAFE_INTEGER);
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        );
        return out.Body as Readable;
      } catch (err) {
        if (isMissing(err)) throw new ObjectNotFoundError(key);
        if (statusOf(err) === 416) throw new RangeError(`Range ${range?.start}-${range?.end} is not satisfiable for ${key}`);
        throw err;
      }
    },

    async head(key) {
      assertObjectKey(key);
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { sizeBytes: out.ContentLength ?? 0, contentType: out.ContentType ?? null };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async delete(key) {
      assertObjectKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    },

    async discardInterrupted(key) {
      assertObjectKey(key);
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      do {
        const page = await client.send(
          new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
        for (const u of page.Uploads ?? []) {
          if (u.Key !== key || !u.UploadId) continue;
          await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: u.UploadId })).catch((err) => {
            if (!isMissing(err) && (err as Error).name !== 'NoSuchUpload') throw err;
          });
        }
        keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
        uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
      } while (keyMarker);
    },

    async signedUrl(key, { ttlSeconds, downloadName, contentType, now = new Date() }) {
      assertObjectKey(key);
      assertTtl(ttlSeconds);
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentDisposition: downloadName === undefined ? undefined : attachmentDisposition(downloadName, contentType),
        ResponseContentType: contentType,
      });
      let url: string;
      try {
        url = await getSignedUrl(client, command, { expiresIn: ttlSeconds, signingDate: now });
      } catch (err) {
        // No credentials, an expired role, a failing provider: no URL rather than a broken one.
        throw new SigningError('Could not presign the S3 URL', { cause: err });
      }
      // X-Amz-Date has whole seconds; the URL dies ttl seconds after that.
      return { url, expiresAt: new Date(Math.floor(now.getTime() / 1000) * 1000 + ttlSeconds * 1000) };
    },

    async localCopy(key, options = {}) {
      assertObjectKey(key);
      options.signal?.throwIfAborted();
      const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-object-'));
      const release = () => rm(dir, { recursive: true, force: true });
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: options.signal });
        const file = path.join(dir, path.basename(key));
        await pipeline(out.Body as Readable, createWriteStream(file, { mode: 0o600 }), { signal: options.signal });
        return { path: file, release };
      } catch (err) {
        await release();
        throw isMissing(err) ? new ObjectNotFoundError(key) : err;
      }
    },

    async close() {
      client.destroy();
    },
  };
}

/**
 * One streamed upload, as the sink of the body: bytes are copied into a
 * part buffer; a full part is sent while the next one fills (a multipart
 * upload is begun with the first full part), and a write waits when the next
 * part is full before the last one is through, which holds the body back. A
 * body that ends within the first part goes in one PutObject. Memory: two
 * part buffers, reused part after part; every network chunk is free once
 * copied.
 */
class PartedUpload extends Writable {
  sizeBytes = 0;
  /** The first part, as it came, until it is whole. */
  private head: Buffer[] = [];
  private headBytes = 0;
  /** The part buffer being filled, from the moment the body outgrows one part. */
  private filling: Buffer | undefined;
  private filled = 0;
  /** The buffer of the part being sent (or last sent): free again once that part is through. */
  private onItsWay: Buffer | undefined;
  private uploadId: Promise<string> | undefined;
  private sending: Promise<CompletedPart> | undefined;
  private readonly parts: CompletedPart[] = [];
  /** The write or final still at work (a request may be on its way), which abandon() waits out. */
  private busy: Promise<void> | undefined;
  /** The object may exist under its key: PutObject or CompleteMultipartUpload was sent. */
  private storing = false;
  /** Cancels the requests on their way once the upload is abandoned (a refusal must not wait for a part to go through). */
  private readonly cancel = new AbortController();
  private readonly requestOptions: { abortSignal: AbortSignal };
  /** Only the caller's signal: a multipart upload begun must be known by its id, so abandon() can abort it. */
  private readonly beginOptions: { abortSignal: AbortSignal | undefined };

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly contentType: string,
    signal: AbortSignal | undefined,
  ) {
    super();
    this.requestOptions = { abortSignal: signal ? AbortSignal.any([signal, this.cancel.signal]) : this.cancel.signal };
    this.beginOptions = { abortSignal: signal };
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.sizeBytes += chunk.length;
    if (!this.filling) {
      if (this.headBytes + chunk.length <= PART_SIZE) {
        this.head.push(chunk);
        this.headBytes += chunk.length;
        return callback();
      }
      // More than one part after all: from here on the bytes are copied into part buffers.
      this.filling = Buffer.allocUnsafe(PART_SIZE);
      for (const b of this.head) this.filled += b.copy(this.filling, this.filled);
      this.head = [];
    }
    const filling = this.filling;
    if (this.filled + chunk.length < PART_SIZE) {
      // The common case: the chunk fits, no promise spent on it.
      this.filled += chunk.copy(filling, this.filled);
      return callback();
    }
    this.busy = this.copyAcrossParts(chunk);
    this.busy.then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.busy = this.complete();
    this.busy.then(() => callback(), callback);
  }

  /**
   * After a failure: the requests on their way are cancelled, then no part
   * may stay behind (a failed abort is tried once more), nor an object that
   * was stored, or may have been, just before.
   */
  async abandon(): Promise<void> {
    this.cancel.abort();
    await this.busy?.catch(() => {});
    await this.sending?.catch(() => {});
    const uploadId = await this.uploadId?.catch(() => undefined);
    if (uploadId) {
      const abort = new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId });
      await this.client.send(abort).catch(() => this.client.send(abort).catch(() => {}));
    }
    // The key is this upload's own: deleting it cannot take anyone else's object.
    if (this.storing) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key }));
  }

  private async copyAcrossParts(chunk: Buffer): Promise<void> {
    for (let offset = 0; offset < chunk.length; ) {
      if (this.filled === PART_SIZE) await this.sendFilled();
      const n = chunk.copy(this.filling!, this.filled, offset);
      this.filled += n;
      offset += n;
    }
  }

  /** Sends what is left and completes the object. */
  private async complete(): Promise<void> {
    const options = this.requestOptions;
    if (!this.filling) {
      const body = this.head.length === 1 ? this.head[0] : Buffer.concat(this.head, this.headBytes);
      this.storing = true;
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentType: this.contentType }), options);
      return;
    }
    if (this.filled > 0) await this.sendFilled();
    this.parts.push(await this.sending!);
    this.sending = undefined;
    const uploadId = await this.uploadId;
    this.storing = true;
    await this.client.send(
      new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId, MultipartUpload: { Parts: this.parts } }),
      options,
    );
  }

  /** Waits for the part on its way, then sends the filled one; the buffer the finished part used fills next. */
  private async sendFilled(): Promise<void> {
    this.uploadId ??= this.client
      .send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, ContentType: this.contentType }), this.beginOptions)
      .then((out) => {
        if (!out.UploadId) throw new Error(`S3 began no multipart upload for ${this.key}`);
        return out.UploadId;
      });
    const uploadId = await this.uploadId;
    if (this.sending) this.parts.push(await this.sending);
    // The body failed meanwhile: no new part for an upload that is being abandoned.
    if (this.destroyed) throw new Error(`The upload of ${this.key} was abandoned`);
    const partNumber = this.parts.length + 1;
    const filling = this.filling!;
    const body = this.filled === PART_SIZE ? filling : filling.subarray(0, this.filled);
    this.sending = this.client
      .send(new UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId, PartNumber: partNumber, Body: body }), this.requestOptions)
      .then((out): CompletedPart => {
        if (!out.ETag) throw new Error(`S3 answered part ${partNumber} of ${this.key} without an ETag`);
        return { PartNumber: partNumber, ETag: out.ETag };
      });
    // Awaited before the next part goes, or by complete() or abandon(); meanwhile a failure must not go unhandled.
    this.sending.catch(() => {});
    const free = this.onItsWay;
    this.onItsWay = filling;
    this.filling = free ?? Buffer.allocUnsafe(PART_SIZE);
    this.filled = 0;
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

/** Socket errors of a request to the store (node's errno codes). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/** S3's names for "not now": throttling, its own trouble, a request it timed out. */
const UNAVAILABLE_NAMES = new Set(['SlowDown', 'ServiceUnavailable', 'Throttling', 'ThrottlingException', 'RequestTimeout', 'InternalError', 'TimeoutError']);
const UNAVAILABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/** The store is unreachable or throttling: an AppError naming it, or undefined for anything else (a missing key, an abort, a refusal). */
export function storeOutage(err: unknown): AppError | undefined {
  if (!(err instanceof Error) || err.name === 'AbortError' || err instanceof AppError) return undefined;
  const errno = (err as { code?: unknown }).code;
  const network = typeof errno === 'string' && NETWORK_CODES.has(errno);
  const status = statusOf(err);
  if (network || UNAVAILABLE_NAMES.has(err.name) || (status !== undefined && UNAVAILABLE_STATUSES.has(status))) return errors.dependencyDown('object_store', err);
  return undefined;
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isMissing(err: unknown): boolean {
  if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound')) return true;
  return statusOf(err) === 404 && (err as Error).name !== 'NoSuchBucket';
}
