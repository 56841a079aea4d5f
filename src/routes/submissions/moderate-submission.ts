import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag } from '../../http/response-headers.js';
import { EmptyBody } from '../../http/schemas/common.js';
import type { RouteContext } from '../../services/index.js';
import { ModerationResult, RejectBody, SubmissionParams, submissionIdMustBeWellFormed } from './schemas.js';

const ROUTES = [
  {
    action: 'approve',
    operationId: 'approveSubmission',
    book: 'approve_submission',
    errors: ['plan_limit_exceeded', 423],
    body: EmptyBody,
    summary: 'Approve a submission',
    description:
      'From pending or rejected. 423 book_grace_period while the book is in its grace period; 400 validation_failed while attached media ' +
      "is not processed or was found infected; 402 plan_limit_exceeded beyond the plan's max_approved_submissions_per_book.",
  },
  {
    action: 'reject',
    operationId: 'rejectSubmission',
    book: 'moderate_submissions',
    errors: [409],
    body: RejectBody,
    summary: 'Reject a submission',
    description: 'From pending or approved (unpins it, clears the share card). The optional reason is emailed to the contributor. An empty body is accepted.',
  },
  { action: 'pin', operationId: 'pinSubmission', book: 'moderate_submissions', errors: ['invalid_state'], body: EmptyBody, summary: 'Pin a submission', description: 'Only an approved submission: otherwise 409 invalid_state.' },
  { action: 'unpin', operationId: 'unpinSubmission', book: 'moderate_submissions', errors: [409], body: EmptyBody, summary: 'Unpin a submission', description: 'A submission that is not pinned answers changed: false, in any state.' },
] as const;

/** approve, reject, pin, unpin: owner or admin; each answers {action, changed, submission}, changed false when nothing moved. */
export function moderateSubmission(app: FastifyInstance, { services }: RouteContext) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const r of ROUTES) {
    api.post(
      `/books/:slug/submissions/:id/${r.action}/`,
      {
        schema: {
          operationId: r.operationId,
          tags: ['submissions'],
          summary: r.summary,
          description: `${r.description} Moving to the state already held answers 200 with changed: false.`,
          params: SubmissionParams,
          body: r.body,
          response: { 200: ModerationResult },
        },
        config: { book: r.book, errors: [...r.errors], etag: [200] },
        onRequest: submissionIdMustBeWellFormed,
      },
      async (request, reply) => {
        const reason = r.action === 'reject' ? ((request.body as { reason?: string | null } | null)?.reason ?? null) : null;
        const result = await services.submissions.moderate(unitOf(request), actorOf(request), request.params.slug, request.params.id, r.action, reason);
        setEtag(reply, result.submission.etag);
        return result;
      },
    );
  }
}
