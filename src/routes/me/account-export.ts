import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import { actorOf, type RouteRateLimit, unitOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import { ACCOUNT_EXPORT_WINDOW_SECONDS } from '../../services/exports/export-types.js';
import { isUuid } from '../../lib/ids.js';
import type { RouteContext } from '../../services/index.js';
import { AccountExportJob, AccountExportParams, AccountExportRequested } from './account-export-schemas.js';
import { EmptyObjectBody } from './schemas.js';

export function registerAccountExportRoutes(app: FastifyInstance, { services }: RouteContext) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  /** One export per user per 24 hours, counted from the exports themselves (a refused request never uses it up). */
  const DAILY_EXPORT: RouteRateLimit = {
    name: 'account_export',
    key: (request) => actorOf(request).id,
    limit: () => 1,
    windowSeconds: () => ACCOUNT_EXPORT_WINDOW_SECONDS,
    check: (request) => services.accountExports.exportAllowance(actorOf(request)),
  };

  api.post(
    '/me/export/',
    {
      schema: {
        operationId: 'requestAccountExport',
        tags: ['account'],
        summary: 'Request an export of all your data',
        description:
          'Answers 202 with the pending job (Location says where to poll it); the file is written in the background. It is gzip-compressed JSON of ' +
          'everything the service holds about you: profile, mail stream settings, memberships, books you own, memories you wrote, your media ' +
          '(each with its original file inline, base64 in original.data, or original null and original_unavailable_reason), invitations you sent, ' +
          'notification subscriptions, book slots, API key names and dates, sign-in sessions, audit events and earlier exports. Never secrets (password or key hashes). One per 24 hours, whatever the Idempotency-Key: the next is 429 rate_limited ' +
          'with Retry-After (seconds until the 24 hours are up); a failed export does not count. A retry with the same key replays the 202 first, ' +
          'so it never counts.',
        body: EmptyObjectBody,
        response: { 202: AccountExportRequested },
      },
      // Replays are answered first and never count; then this limit, before schema validation (the contract's order).
      config: { rateLimit: DAILY_EXPORT, location: [202] },
    },
    async (request, reply) => {
      const job = await services.accountExports.requestExport(unitOf(request), actorOf(request));
      return setLocation(reply.code(202), `/api/v1/me/export/${job.id}/`).send(job);
    },
  );

  api.get(
    '/me/export/:job_id/',
    {
      schema: {
        operationId: 'getAccountExport',
        tags: ['account'],
        summary: 'Poll your data export',
        description:
          'Your own export only (anyone else\'s, or an unknown id: 404). Once complete, download_url is a signed link to the gzip-compressed JSON ' +
          'file, valid 60 minutes and minted afresh on every poll (url_expires_at). Files are kept 30 days after completion (expires_at); then the ' +
          'status is expired and there is no link. 502 storage_unavailable (with Retry-After) when the link cannot be made just now: the file is ' +
          'kept, retry after 1, 2, 4, 8 s (at most 60 s).',
        params: AccountExportParams,
        response: { 200: AccountExportJob },
      },
      config: { errors: [502], retryAfter: [502] },
      // An id not shaped like ours names nothing (404), answered right after authentication.
      onRequest: async (request: FastifyRequest) => {
        if (!isUuid((request.params as { job_id?: string }).job_id)) throw errors.notFound('export');
      },
    },
    async (request) => services.accountExports.getExport(actorOf(request), request.params.job_id),
  );
}
