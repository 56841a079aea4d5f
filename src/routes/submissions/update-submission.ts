import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAuth, requireBook } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { findSubmission } from '../../services/submissions/submission-repository.js';
import { SubmissionParams, UpdateSubmissionBody, submissionIdMustBeWellFormed } from './schemas.js';

export function updateSubmission(app: FastifyInstance, { services, db }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/books/:slug/submissions/:id/',
    {
      schema: {
        operationId: 'updateSubmission',
        tags: ['submissions'],
        summary: 'Edit a submission',
        description:
          'Owner, admin, or the author. A contributor may edit only a submission they wrote (any other is 404 for them); their edit ' +
          'sends an approved submission back to pending, unpinned, share card cleared. Fields sent with their current value change nothing. ' +
          'Optional If-Match; 412 with details.current_etag when stale.',
        params: SubmissionParams,
        body: UpdateSubmissionBody,
        response: { 200: Type.Ref('Submission') },
      },
      config: {
        book: 'edit_own_submission',
        errors: [412],
        currentEtag: async (request) => {
          const { id } = request.params as { id: string };
          const ctx = requireBook(request.book);
          // A contributor only ever sees their own rows; anyone else's stays unknown to them.
          const authorId = ctx.role === 'contributor' ? requireAuth(request.auth).user.id : undefined;
          const row = await findSubmission(db, ctx.book.id, id, { authorId });
          return row ? `"${row.updated_at}"` : undefined;
        },
      },
      onRequest: submissionIdMustBeWellFormed,
    },
    async (request, reply) => {
      const { user } = requireAuth(request.auth);
      const submission = await services.submissions.updateSubmission(user, requireBook(request.book), request.params.id, request.body, request.headers['if-match']);
      reply.header('etag', submission.etag);
      return submission;
    },
  );
}
