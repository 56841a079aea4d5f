import { Type } from '@sinclair/typebox';
import { DayPayload } from './account.js';
import { defineJob } from './queue.js';

export const SubmissionIdPayload = Type.Object({ submissionId: Type.String({ minLength: 36, maxLength: 36 }) });
export { DayPayload };

/**
 * Tells the book's new_submission subscribers about one new memory: queued
 * in the transaction that wrote it; each message goes on its channel's own
 * job (mail.send, sms.send, telegram.send). Safe to run again.
 */
export const notifyNewSubmissionJob = defineJob({
  name: 'notifications.new-submission',
  payload: SubmissionIdPayload,
  options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
  summarize: (p) => ({ submissionId: p.submissionId }),
  async handle({ submissionId }, ctx) {
    const queued = await ctx.services.notifications.notifyNewSubmission(submissionId);
    ctx.log.info({ job: ctx.id, submission_id: submissionId, queued }, 'new-memory notifications queued');
  },
});

/** The daily digest of subscriptions of kind digest for `day` (queued once a day with the other daily jobs). */
export const notificationDigestJob = defineJob({
  name: 'notifications.digest',
  payload: DayPayload,
  options: { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 900, policy: 'stately', singletonKey: (p) => p.day },
  summarize: (p) => ({ day: p.day }),
  async handle({ day }, ctx) {
    const queued = await ctx.services.notifications.sendDigests(day);
    ctx.log.info({ day, queued }, 'subscription digests queued');
  },
});
