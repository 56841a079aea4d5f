import { pipeline, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Db } from '../../db/client.js';
import { isoMicro } from '../../lib/time.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { findDeletionState } from '../account/account-reads.js';
import { accountExportChunks } from './account-export-content.js';
import { ExportRunError, type ExportVariant } from './export-pipeline.js';
import { ACCOUNT_EXPORT_CONTENT_TYPE, ACCOUNT_EXPORT_RETENTION_SECONDS, accountExportKey, isAccountExport, type ExportRow } from './export-types.js';

/**
 * The account kind of the export pipeline (see export-pipeline.ts): a user's
 * own data (GDPR) as gzip-compressed JSON, streamed page by page into the
 * store, never whole in memory; finished files are kept 30 days.
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
    async render(job, { signal }) {
      const userId = accountOf(job);
      const key = accountExportKey(userId, job.id);
      const chunks = accountExportChunks(db, userId, isoMicro(deps.now()));
      let readFailure: unknown;
      const source = Readable.from(
        (async function* () {
          try {
            for await (const chunk of chunks) yield Buffer.from(chunk, 'utf8');
          } catch (err) {
            readFailure = err;
            throw err;
          }
        })(),
      );
      // An error on either side tears both down (the callback only keeps pipeline from throwing):
      // the store's put rejects and leaves nothing behind.
      const gzipped = pipeline(source, createGzip(), () => {});
      try {
        const { sizeBytes } = await store.put(key, gzipped, { contentType: ACCOUNT_EXPORT_CONTENT_TYPE, signal });
        return { key, bytes: sizeBytes, pageCount: null };
      } catch (err) {
        if (signal.aborted) throw err;
        if (readFailure) throw new ExportRunError('Your data could not be read.', { cause: readFailure });
        throw new ExportRunError('The file could not be saved to storage.', { cause: err });
      }
    },
  };
}
