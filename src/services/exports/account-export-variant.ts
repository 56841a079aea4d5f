import type { Db } from '../../db/client.js';
import { writeAccountZipExport } from '../../exports/zip-export.js';
import { isoMicro } from '../../lib/time.js';
import { ObjectNotFoundError, type ObjectStore } from '../../storage/object-store.js';
import { findDeletionState } from '../account/account-repository.js';
import { accountExportChunks, accountOriginals } from './account-export-content.js';
import { ExportRunError, type ExportVariant } from './export-pipeline.js';
import { ACCOUNT_EXPORT_CONTENT_TYPE, ACCOUNT_EXPORT_RETENTION_SECONDS, accountExportKey, isAccountExport, type ExportRow } from './export-types.js';

/**
 * The account kind of the export pipeline (see export-pipeline.ts): a user's
 * own data (GDPR) as a ZIP archive, `account.json` (the document, see
 * account-export-content.ts) and the original of each of their media files
 * (exports/zip-export.ts writeAccountZipExport), streamed one file at a time
 * into the store, never whole in memory; finished files are kept 30 days.
 */
export function createAccountExportVariant(deps: { db: Db; store: ObjectStore; now?: () => Date }): ExportVariant {
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
      const exportedAt = isoMicro(deps.now?.() ?? new Date());
      let readFailure: unknown;
      /** Reads of the database and the store fail the export as unreadable; a failure of the put, as unsaved. */
      async function* reading<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
        try {
          yield* items;
        } catch (err) {
          readFailure = err;
          throw err;
        }
      }
      try {
        const zipped = await writeAccountZipExport(
          {
            exportedAt,
            originals: () => reading(accountOriginals(db, userId)),
            document: (fileOf) => reading(accountExportChunks(db, userId, exportedAt, fileOf)),
            openMedia: async (mediaKey) => {
              try {
                return await store.get(mediaKey);
              } catch (err) {
                if (!(err instanceof ObjectNotFoundError)) readFailure = err;
                throw err;
              }
            },
            isMissing: (err) => err instanceof ObjectNotFoundError,
          },
          (archive) => store.put(key, archive, { contentType: ACCOUNT_EXPORT_CONTENT_TYPE, signal }),
        );
        if (zipped.missing) log?.warn({ export: job.id, missing: zipped.missing }, 'media files gone from the store were left out of the account export');
        return { key, bytes: zipped.sink.sizeBytes, pageCount: null };
      } catch (err) {
        if (signal.aborted) throw err;
        if (readFailure) throw new ExportRunError('Your data could not be read.', { cause: readFailure });
        throw new ExportRunError('The file could not be saved to storage.', { cause: err });
      }
    },
  };
}
