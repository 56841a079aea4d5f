import { eraseBookBackupJob, purgeBookJob } from './delete-book.js';
import type { JobDefinition, JobPayloads } from './queue.js';
import { sendMailJob } from './send-mail.js';

/**
 * Every job the service runs, registered by both the API (to send) and the
 * worker (to handle). Add each new job file here and its payload to
 * JobPayloads in queue.ts (see the note at the top of that file); a name
 * missing from JobPayloads does not type-check.
 */
export const jobs: readonly JobDefinition<keyof JobPayloads & string>[] = [sendMailJob, eraseBookBackupJob, purgeBookJob] as JobDefinition<
  keyof JobPayloads & string
>[];
