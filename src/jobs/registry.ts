import { activityRemindersJob, dailyDigestsJob, eraseAccountBackupJob, purgeAccountJob } from './account.js';
import { expireAccountExportJob, writeAccountExportJob } from './account-export.js';
import { eraseBookBackupJob, purgeBookJob } from './delete-book.js';
import { expireExportJob, renderExportJob } from './exports.js';
import type { JobDefinition, JobPayloads } from './queue.js';
import { deleteObjectsJob, processMediaJob, renderShareCardJob } from './media.js';
import { sendMailJob } from './send-mail.js';
import { sendSmsJob } from './send-sms.js';
import { sendTelegramJob } from './send-telegram.js';
import { notificationDigestJob, notifyNewSubmissionJob } from './notifications.js';

/**
 * Every job the service runs, registered by both the API (to send) and the
 * worker (to handle). Add each new job file here and its payload to
 * JobPayloads in queue.ts (see the note at the top of that file); a name
 * missing from JobPayloads does not type-check.
 */
export const jobs: readonly JobDefinition<keyof JobPayloads & string>[] = [
  sendMailJob,
  sendSmsJob,
  sendTelegramJob,
  eraseBookBackupJob,
  purgeBookJob,
  eraseAccountBackupJob,
  purgeAccountJob,
  writeAccountExportJob,
  expireAccountExportJob,
  dailyDigestsJob,
  activityRemindersJob,
  processMediaJob,
  deleteObjectsJob,
  renderShareCardJob,
  renderExportJob,
  expireExportJob,
  notifyNewSubmissionJob,
  notificationDigestJob,
] as JobDefinition<
  keyof JobPayloads & string
>[];
