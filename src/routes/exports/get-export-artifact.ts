import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { ExportArtifact, ExportParams, jobIdMustBeWellFormed } from './schemas.js';

export function getExportArtifact(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/exports/:job_id/artifact/',
    {
      schema: {
        operationId: 'getExportArtifact',
        tags: ['exports'],
        summary: "A signed link to the export's file",
        description:
          'Owner or admin. 200 {download_url, cover_download_url, expires_at}: signed URLs valid 15 minutes, minted afresh on every call ' +
          "(cover_download_url: a shop PDF's cover wrap, null for other exports). 404 for an unknown job or " +
          "another book's; 409 export_not_ready while pending or processing; 410 export_failed when it failed, its 7 days are over or the file is " +
          'gone; 502 storage_unavailable (with Retry-After) when the link cannot be made just now: the file is kept, retry after 1, 2, 4, 8 s (at most 60 s).',
        params: ExportParams,
        response: { 200: ExportArtifact },
      },
      config: { book: 'read_exports', errors: ['export_not_ready', 'export_failed', 'storage_unavailable'], retryAfter: [502] },
      onRequest: jobIdMustBeWellFormed,
    },
    async (request) => services.exports.getArtifact(actorOf(request), request.params.slug, request.params.job_id),
  );
}
