import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SubmissionParams, submissionIdMustBeWellFormed } from './schemas.js';

export function getSubmission(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/submissions/:id/',
    {
      schema: {
        operationId: 'getSubmission',
        tags: ['submissions'],
        summary: 'Read a submission',
        description: 'Owner or admin. An id of another book, or a malformed one, is 404 not_found.',
        params: SubmissionParams,
        response: { 200: Type.Ref('Submission') },
      },
      config: { book: 'list_submissions', errors: [403], etag: [200] },
      onRequest: submissionIdMustBeWellFormed,
    },
    async (request, reply) => {
      const submission = await services.submissions.getSubmission(actorOf(request), request.params.slug, request.params.id);
      setEtag(reply, submission.etag);
      return submission;
    },
  );
}
