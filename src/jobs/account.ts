import { Type } from '@sinclair/typebox';
import { defineJob } from './queue.js';

export const UserIdPayload = Type.Object({ userId: Type.String({ minLength: 36, maxLength: 36 }) });
export const DayPayload = Type.Object({ day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) });

/**
 * Retries off-site backup erasure of an account whose deletion answered 202
 * deletion_queued, until the operator's endpoint accepts it; then the account
 * is deleted (scrubbed, signed out, purge queued). Like a book's, it never
 * gives up: the account stays "deletion requested" meanwhile.
 */
export const eraseAccountBackupJob = defineJob({
  name: 'account.erase-backup',
  payload: UserIdPayload,
  options: { retryForever: { maxDelaySeconds: 3600 }, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, policy: 'stately', singletonKey: (p) => p.userId },
  summarize: (p) => ({ userId: p.userId }),
  async handle({ userId }, ctx) {
    if (!(await ctx.services.account.completeErasure(userId))) throw new Error('backup erasure endpoint did not confirm; will retry');
  },
});

/** Removes a deleted account's books, memories in other books, and history; safe to run again. */
export const purgeAccountJob = defineJob({
  name: 'account.purge',
  payload: UserIdPayload,
  options: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 900 },
  summarize: (p) => ({ userId: p.userId }),
  async handle({ userId }, ctx) {
    await ctx.services.account.purge(userId);
  },
});

/** The daily digest of new memories for `day` (queued once a day; see MailStreamService.scheduleDaily). */
export const dailyDigestsJob = defineJob({
  name: 'mail.digests',
  payload: DayPayload,
  options: { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 900, policy: 'stately', singletonKey: (p) => p.day },
  summarize: (p) => ({ day: p.day }),
  async handle({ day }, ctx) {
    const queued = await ctx.services.mailStreams.sendDigests(day);
    ctx.log.info({ day, queued }, 'daily digests queued');
  },
});

/** Nudges owners of books with no new memory for a while (queued once a day). */
export const activityRemindersJob = defineJob({
  name: 'mail.activity-reminders',
  payload: DayPayload,
  options: { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 900, policy: 'stately', singletonKey: (p) => p.day },
  summarize: (p) => ({ day: p.day }),
  async handle({ day }, ctx) {
    const queued = await ctx.services.mailStreams.sendActivityReminders();
    ctx.log.info({ day, queued }, 'activity reminders queued');
  },
});
