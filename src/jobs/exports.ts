import { Type } from '@sinclair/typebox';
import { defineJob } from './queue.js';

export const ExportIdPayload = Type.Object({ exportId: Type.String({ minLength: 36, maxLength: 36 }) });

/** Renders per export job; the queue keeps one run more in reserve (see the handler). */
export const EXPORT_RENDERS = 4;

/**
 * Renders one export (PDF, JSON or ZIP) into the store. Up to four renders,
 * backing off from 30 s; the fourth that fails records the job as failed
 * with its reason. The queue's retry limit is one higher: when the worker of
 * the last render dies, that spare run records the failure, so a job never
 * stays `processing` for good. A lease of 30 minutes covers the largest
 * books; a killed worker's job is taken up again once it lapses.
 */
export const renderExportJob = defineJob({
  name: 'export.render',
  payload: ExportIdPayload,
  options: { retryLimit: EXPORT_RENDERS, retryDelay: 30, retryBackoff: true, expireInSeconds: 1800, concurrency: 1 },
  summarize: (p) => ({ exportId: p.exportId }),
  async handle({ exportId }, ctx) {
    await ctx.services.exportRendering.run(exportId, { signal: ctx.signal, attempt: ctx.attempt, attempts: EXPORT_RENDERS, log: ctx.log });
  },
});

/** Removes an export's file once its 7 days are over (queued, delayed, when it completes). */
export const expireExportJob = defineJob({
  name: 'export.expire',
  payload: ExportIdPayload,
  options: { retryLimit: 10, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
  summarize: (p) => ({ exportId: p.exportId }),
  async handle({ exportId }, ctx) {
    await ctx.services.exportRendering.expire(exportId);
  },
});
