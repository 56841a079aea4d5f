/**
 * pending (queued) → processing (a worker took it; also while a retry waits) → complete, or failed once its
 * runs are spent; complete → expired when its 30 days are over and the file is removed.
 */
export const ACCOUNT_EXPORT_STATUSES = ['pending', 'processing', 'complete', 'failed', 'expired'] as const;
export type AccountExportStatus = (typeof ACCOUNT_EXPORT_STATUSES)[number];

/** One export per user per 24 hours (a failed one does not count). */
export const ACCOUNT_EXPORT_WINDOW_SECONDS = 24 * 3600;
/** Finished files are kept 30 days, then removed (status expired). */
export const ACCOUNT_EXPORT_RETENTION_SECONDS = 30 * 24 * 3600;
/** Download links last 60 minutes and are minted afresh on each poll. */
export const ACCOUNT_EXPORT_URL_TTL_SECONDS = 3600;
/** The first wait on a 502 from the poll (the contract's backoff advice: 1, 2, 4, 8 s, at most 60). */
export const ACCOUNT_EXPORT_RETRY_AFTER_SECONDS = 1;
/** Runs of the job before it is failed for good (the queue keeps one spare run; see jobs/account-export.ts). */
export { ACCOUNT_EXPORT_RUNS } from '../../jobs/job-catalog.js';

export const ACCOUNT_EXPORT_CONTENT_TYPE = 'application/gzip';
export const ACCOUNT_EXPORT_FORMAT_VERSION = 1;

/** One prefix per user, so everything of an account can be found. */
export const accountExportKey = (userId: string, exportId: string) => `account-exports/${userId}/${exportId}.json.gz`;

export interface AccountExportRow {
  id: string;
  user_id: string;
  status: AccountExportStatus;
  object_key: string | null;
  size_bytes: number | null;
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  removed_at: string | null;
}
