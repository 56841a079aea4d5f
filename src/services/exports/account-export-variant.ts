import { Readable, pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Db } from '../../db/client.js';
import { isoMicro } from '../../lib/time.js';
import { ObjectNotFoundError, type ObjectStore } from '../../storage/object-store.js';
import { findDeletionState } from '../account/account-reads.js';
import { accountExportChunks } from './account-export-content.js';
import { ExportRunError, type ExportVariant } from './export-pipeline.js';
import { ACCOUNT_EXPORT_CONTENT_TYPE, ACCOUNT_EXPORT_RETENTION_SECONDS, accountExportKey, isAccountExport, type ExportRow } from './export-types.js';

/** Bytes the document stream buffers before it stops pulling (from the database or a file being encoded). */
const SOURCE_HIGH_WATER_MARK = 64 * 1024;

/**
 * The account kind of the export pipeline (see export-pipeline.ts): a user's
 * own data (GDPR) as gzip-compressed JSON, each media entry with its original
 * inline (base64), streamed page by page and file chunk by file chunk into
 * the store, never a whole file or the whole document in memory; finished
 * files are kept 30 days.
 */
export function createAccountExportVariant(deps: { db: Db; store: ObjectStore; now: () => Date }): ExportVariant {
  const { db, store } = deps;

  const accountOf = (job: ExportRow): string => {
    if (!isAccountExport(job)) throw new Error(`export ${job.id} is not an account export`);
    return job.account_id;
  };

  return {
    work: 'writing',
    retentionSeconds: ACCOUNT_EXPORT_RETENTION_SECONDS,
    expireJob: 'account.export-expire',
    async gone(job) {
      const user = await findDeletionState(db, accountOf(job));
      return !user || user.deleted_at ? 'The account was deleted before the export was written.' : null;
    },
    async render(job, { signal, log }) {
      const userId = accountOf(job);
      const key = accountExportKey(userId, job.id);
      let missing = 0;
      const openOriginal = async (mediaKey: string): Promise<Readable | null> => {
        try {
          return await store.get(mediaKey);
        } catch (err) {
          if (!(err instanceof ObjectNotFoundError)) throw err;
          missing++;
          return null;
        }
      };
      const chunks = accountExportChunks(db, userId, isoMicro(deps.now()), openOriginal);
      let readFailure: unknown;
      // Bytes, not objects: the stream holds at most SOURCE_HIGH_WATER_MARK ahead of gzip, whatever the chunks' count.
      const source = Readable.from(
        (async function* () {
          try {
            for await (const chunk of chunks) yield Buffer.from(chunk, 'utf8');
          } catch (err) {
            readFailure = err;
            throw err;
          }
        })(),
        { objectMode: false, highWaterMark: SOURCE_HIGH_WATER_MARK },
      );
      // An error on either side tears both down (the callback only keeps pipeline from throwing):
      // the store's put rejects and leaves nothing behind.
      const gzipped = pipeline(source, createGzip(), () => {});
      try {
        const { sizeBytes } = await store.put(key, gzipped, { contentType: ACCOUNT_EXPORT_CONTENT_TYPE, signal });
        if (missing) log?.warn({ export: job.id, missing }, 'media files gone from the store are null in the account export');
        return { key, bytes: sizeBytes, pageCount: null };
      } catch (err) {
        if (signal.aborted) throw err;
        if (readFailure) throw new ExportRunError('Your data could not be read.', { cause: readFailure });
        throw new ExportRunError('The file could not be saved to storage.', { cause: err });
      }
    },
  };
}
