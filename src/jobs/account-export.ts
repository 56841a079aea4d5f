import { Type } from '@sinclair/typebox';
import { ACCOUNT_EXPORT_RUNS } from '../services/account/account-export-types.js';
import { defineJob } from './queue.js';

export const AccountExportIdPayload = Type.Object({ exportId: Type.String({ minLength: 36, maxLength: 36 }) });

/**
 * Writes one GDPR data export (gzip-compressed JSON) into the store. Three
 * runs, backing off from 30 s; the third that fails records the export as
 * failed with its reason. The queue's retry limit is one higher: when the
 * worker of the last run dies, that spare run records the failure, so an
 * export never stays `processing` for good.
 */
export const writeAccountExportJob = defineJob({
  name: 'account.export',
  payload: AccountExportIdPayload,
  options: { retryLimit: ACCOUNT_EXPORT_RUNS, retryDelay: 30, retryBackoff: true, expireInSeconds: 1800, concurrency: 1 },
  summarize: (p) => ({ exportId: p.exportId }),
  async handle({ exportId }, ctx) {
    await ctx.services.accountExports.run(exportId, { signal: ctx.signal, attempt: ctx.attempt, attempts: ACCOUNT_EXPORT_RUNS, log: ctx.log });
  },
});

/** Removes an account export's file once its 30 days are over (queued, delayed, when it completes). */
export const expireAccountExportJob = defineJob({
  name: 'account.export-expire',
  payload: AccountExportIdPayload,
  options: { retryLimit: 10, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
  summarize: (p) => ({ exportId: p.exportId }),
  async handle({ exportId }, ctx) {
    await ctx.services.accountExports.expire(exportId);
  },
});
