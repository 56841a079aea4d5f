import { Type } from '@sinclair/typebox';
import { defineJob } from './queue.js';

export const BookIdPayload = Type.Object({ bookId: Type.String({ minLength: 36, maxLength: 36 }) });

/**
 * Retries backup erasure until the operator's endpoint accepts it; then the
 * book is deleted for good (404) and the purge is queued. Retries back off
 * from BACKUP_ERASURE_RETRY_SECONDS (30 s) up to an hour, then go on hourly
 * for as long as the endpoint refuses: the book meanwhile stays "deletion
 * requested", so giving up would leave it there with nothing retrying.
 */
export const eraseBookBackupJob = defineJob({
  name: 'book.erase-backup',
  payload: BookIdPayload,
  options: { retryForever: { maxDelaySeconds: 3600 }, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, policy: 'stately', singletonKey: (p) => p.bookId },
  summarize: (p) => ({ bookId: p.bookId }),
  async handle({ bookId }, ctx) {
    const done = await ctx.services.bookDeletion.completeErasure(bookId);
    if (!done) throw new Error('backup erasure endpoint did not confirm; will retry');
  },
});

/** Removes a deleted book's rows, files and derived assets; safe to run again. */
export const purgeBookJob = defineJob({
  name: 'book.purge',
  payload: BookIdPayload,
  options: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 900 },
  summarize: (p) => ({ bookId: p.bookId }),
  async handle({ bookId }, ctx) {
    await ctx.services.bookDeletion.purge(bookId);
  },
});
