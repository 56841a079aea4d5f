import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SubmissionParams, UpdateSubmissionBody, submissionIdMustBeWellFormed } from './schemas.js';

export function updateSubmission(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/books/:slug/submissions/:id/',
    {
      schema: {
        operationId: 'updateSubmission',
        tags: ['submissions'],
        summary: 'Edit a submission',
        description:
          'Owner, admin, or the author. A contributor may edit only a submission they wrote (any other is 403 insufficient_role for them); their edit ' +
          'sends an approved submission back to pending, unpinned, share card cleared. Fields sent with their current value change nothing. ' +
          'Optional If-Match; 412 with details.current_etag when stale.',
        params: SubmissionParams,
        body: UpdateSubmissionBody,
        response: { 200: Type.Ref('Submission') },
      },
      config: { book: 'edit_own_submission', ownRow: 'submission', errors: [403, 412], etag: [200] },
      onRequest: submissionIdMustBeWellFormed,
    },
    async (request, reply) => {
      const submission = await services.submissions.updateSubmission(unitOf(request), actorOf(request), request.params.slug, request.params.id, request.body, request.headers['if-match']);
      setEtag(reply, submission.etag);
      return submission;
    },
  );
}
