import path from 'node:path';
import type { Readable } from 'node:stream';
import type { DataStore } from '@tus/server';
import type { Config } from '../config/config.js';

/** An unfinished resumable upload older than this is refused by the store (410) and swept by housekeeping. */
export const UPLOAD_EXPIRY_SECONDS = 24 * 3600;

/**
 * The parts of resumable (tus) uploads, in the configured store: under
 * `DATA_DIR/uploads/` on disk (@tus/file-store), or under `tus-parts/` in the
 * S3 bucket as one multipart upload each (@tus/s3-store). The tus server writes
 * through `datastore`; the finished file is read back with `read` and streamed
 * through the same intake as every upload into the object store, then its parts
 * are removed. Ids are the server's random upload ids; the S3 prefix is added
 * here, so URLs never carry it.
 */
export interface UploadParts {
  datastore: DataStore;
  /** The store's own id for an upload id (the S3 prefix added). */
  storeId(uploadId: string): string;
  /** The upload id in a URL for a store id. */
  uploadId(storeId: string): string;
  /** The whole file of a finished upload. */
  read(uploadId: string): Promise<Readable>;
  /** Removes an upload's parts and its record; an upload already gone is no error. */
  remove(uploadId: string): Promise<void>;
  /** Unfinished uploads past the expiry that nothing references any more (disk only: the S3 bucket's lifecycle rule covers S3). */
  removeExpiredOrphans(): Promise<number>;
}

const S3_PREFIX = 'tus-parts/';

function isGone(err: unknown): boolean {
  const e = err as { status_code?: number; code?: string; name?: string } | undefined;
  return e?.status_code === 404 || e?.status_code === 410 || e?.code === 'ENOENT' || e?.name === 'NoSuchKey' || e?.name === 'NoSuchUpload';
}

export async function createUploadParts(config: Config): Promise<UploadParts> {
  const expirationPeriodInMilliseconds = UPLOAD_EXPIRY_SECONDS * 1000;
  if (config.storage.kind === 's3') {
    const s3 = config.storage.s3;
    if (!s3) throw new Error('STORAGE=s3 without S3 settings');
    const { S3Store } = await import('@tus/s3-store');
    const store = new S3Store({
      // S3's smallest part but the last: the browser's 1 MiB parts are gathered into one before they go up.
      partSize: 5 * 1024 * 1024,
      expirationPeriodInMilliseconds,
      s3ClientConfig: {
        bucket: s3.bucket,
        region: s3.region,
        endpoint: s3.endpoint ?? undefined,
        forcePathStyle: s3.forcePathStyle,
        credentials: s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : undefined,
        // As the object store: many S3-compatible stores reject the default CRC32 trailers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      },
    });
    return {
      datastore: store,
      storeId: (id) => S3_PREFIX + id,
      uploadId: (storeId) => storeId.slice(S3_PREFIX.length),
      read: (id) => store.read(S3_PREFIX + id),
      async remove(id) {
        const key = S3_PREFIX + id;
        try {
          await store.remove(key);
        } catch (err) {
          if (!isGone(err)) throw err;
          // A finished upload has no multipart upload left to abort, and the store gives up before deleting its
          // objects: the assembled file, its info and an unfinished part go here.
          const client = (store as unknown as { client: import('@aws-sdk/client-s3').S3 }).client;
          await client.deleteObjects({ Bucket: s3.bucket, Delete: { Objects: [{ Key: key }, { Key: `${key}.info` }, { Key: `${key}.part` }] } });
        }
      },
      // store.deleteExpired lists every multipart upload of the bucket, the object store's own among them: not called.
      removeExpiredOrphans: async () => 0,
    };
  }
  const { FileStore } = await import('@tus/file-store');
  const store = new FileStore({ directory: path.join(config.dataDir, 'uploads'), expirationPeriodInMilliseconds });
  return {
    datastore: store,
    storeId: (id) => id,
    uploadId: (storeId) => storeId,
    read: async (id) => store.read(id),
    async remove(id) {
      try {
        await store.remove(id);
      } catch (err) {
        if (!isGone(err)) throw err;
      }
    },
    async removeExpiredOrphans() {
      try {
        return await store.deleteExpired();
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return 0; // no upload yet: no folder
        throw err;
      }
    },
  };
}
