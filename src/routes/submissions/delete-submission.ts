import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SubmissionParams, submissionIdMustBeWellFormed } from './schemas.js';

export function deleteSubmission(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/books/:slug/submissions/:id/',
    {
      schema: {
        operationId: 'deleteSubmission',
        tags: ['submissions'],
        summary: 'Delete a submission permanently',
        description: 'Owner or admin. Irreversible. A replay with the same Idempotency-Key answers the stored 204; a new request for a deleted id is 404.',
        params: SubmissionParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
      config: { book: 'delete_submission' },
      onRequest: submissionIdMustBeWellFormed,
    },
    async (request, reply) => {
      await services.submissions.deleteSubmission(unitOf(request), actorOf(request), request.params.slug, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
