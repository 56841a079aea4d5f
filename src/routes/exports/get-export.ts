import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { ExportParams, jobIdMustBeWellFormed } from './schemas.js';

export function getExport(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/exports/:job_id/',
    {
      schema: {
        operationId: 'getExport',
        tags: ['exports'],
        summary: 'Read an export job',
        description: 'Owner or admin. Poll until status is complete (then fetch the artifact) or failed (error says why). Another book’s job id is 404.',
        params: ExportParams,
        response: { 200: Type.Ref('ExportJob', { description: 'The export job' }) },
      },
      config: { book: 'read_exports', errors: [403] },
      onRequest: jobIdMustBeWellFormed,
    },
    async (request) => services.exports.getExport(actorOf(request), request.params.slug, request.params.job_id),
  );
}
