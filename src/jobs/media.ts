import { Type } from '@sinclair/typebox';
import { defineJob } from './queue.js';

export const MediaIdPayload = Type.Object({ mediaId: Type.String({ minLength: 36, maxLength: 36 }) });
export const DeleteObjectsPayload = Type.Object({ keys: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 1000 }) });
export const ShareCardPayload = Type.Object({
  submissionId: Type.String({ minLength: 36, maxLength: 36 }),
  token: Type.String({ minLength: 36, maxLength: 36 }),
});

/** Dimensions, duration, poster frame and virus scan of one uploaded file; failed for good after the last retry. */
export const processMediaJob = defineJob({
  name: 'media.process',
  payload: MediaIdPayload,
  options: { retryLimit: 4, retryDelay: 15, retryBackoff: true, expireInSeconds: 900, concurrency: 2 },
  summarize: (p) => ({ mediaId: p.mediaId }),
  async handle({ mediaId }, ctx) {
    await ctx.services.mediaProcessing.process(mediaId, { signal: ctx.signal, lastAttempt: ctx.attempt > ctx.retryLimit, log: ctx.log });
  },
});

/** Removes stored objects whose rows are gone (deleted media, submissions, books, replaced share cards). */
export const deleteObjectsJob = defineJob({
  name: 'storage.delete-objects',
  payload: DeleteObjectsPayload,
  options: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 600 },
  summarize: (p) => ({ count: p.keys.length }),
  async handle({ keys }, ctx) {
    await ctx.services.media.deleteObjects(keys);
  },
});

/** Renders the share card of one approval. */
export const renderShareCardJob = defineJob({
  name: 'share-card.render',
  payload: ShareCardPayload,
  options: { retryLimit: 4, retryDelay: 15, retryBackoff: true, expireInSeconds: 300 },
  summarize: (p) => ({ submissionId: p.submissionId }),
  async handle({ submissionId, token }, ctx) {
    const outcome = await ctx.services.shareCards.render(submissionId, token, { signal: ctx.signal });
    ctx.log.info({ job: ctx.id, submission: submissionId, outcome }, 'share card');
  },
});
