import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config/config.js';
import { assertTtl } from './local-url-signer.js';
import { attachmentDisposition } from './content-disposition.js';
import { assertObjectKey, checkRange, ObjectNotFoundError, SigningError, type ObjectStore } from './object-store.js';

export type S3ObjectStoreOptions = NonNullable<Config['storage']['s3']> & {
  /** Overrides the keys above and the default chain (tests: a provider that fails). */
  credentials?: S3ClientConfig['credentials'];
};

/** Parts of a streamed upload: at most (QUEUE_SIZE + 1) × PART_SIZE bytes are in memory per put. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * Any S3-compatible store (AWS, MinIO, R2, …). Uploads stream through
 * lib-storage in 5 MiB parts; a failed or aborted upload aborts its
 * multipart upload, so no object and no orphaned parts remain. Downloads
 * are presigned SigV4 GETs.
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

  return {
    kind: 's3',

    async put(key, body, { contentType, signal }) {
      let sizeBytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          sizeBytes += chunk.length;
          callback(null, chunk);
        },
      });
      // An abort ends the body: the upload fails through its own error path, which aborts the multipart
      // upload before done() settles (Upload's own abortController would settle first and clean up after).
      const onAbort = () => body.destroy(abortReason(signal));
      let upload: Upload | undefined;
      try {
        assertObjectKey(key);
        signal?.throwIfAborted();
        signal?.addEventListener('abort', onAbort, { once: true });
        const piped = pipeline(body, counter);
        piped.catch(() => {}); // the same error reaches the upload through `counter`
        upload = new Upload({
          client,
          params: { Bucket: bucket, Key: key, Body: counter, ContentType: contentType },
          partSize: PART_SIZE,
          queueSize: QUEUE_SIZE,
          leavePartsOnError: false,
        });
        await upload.done();
        if (signal?.aborted) {
          // Aborted while the last request was in flight: the object was written, and must not stay.
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
          throw abortReason(signal);
        }
        return { sizeBytes };
      } catch (err) {
        body.destroy();
        counter.destroy();
        // Upload aborts its multipart upload itself; if that request failed, try once more.
        if (upload?.uploadId) {
          await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.uploadId })).catch(() => {});
        }
        throw err;
      } finally {
        signal?.removeEventListener('abort', onAbort);
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
        ResponseContentDisposition: downloadName === undefined ? undefined : attachmentDisposition(downloadName),
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

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isMissing(err: unknown): boolean {
  if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound')) return true;
  return statusOf(err) === 404 && (err as Error).name !== 'NoSuchBucket';
}
