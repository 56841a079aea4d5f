import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setEtag, setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { CreateSubmissionBody } from './schemas.js';

export function createSubmission(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/submissions/',
    {
      schema: {
        operationId: 'createSubmission',
        tags: ['submissions'],
        summary: 'Create a text memory',
        description:
          "Owner or admin; the book's plan must include api_access (403 feature_gated). The new row is pending; contributor_email is " +
          'always your own and cannot be sent (unknown fields: 422). Media is attached afterwards with a separate upload. ' +
          '30 creates an hour per (user, IP): 429 with Retry-After; idempotent replays do not count.',
        params: SlugParams,
        body: CreateSubmissionBody,
        response: { 201: Type.Ref('Submission') },
      },
      config: {
        book: 'create_submission',
        location: [201],
        etag: [201],
        rateLimit: {
          name: 'submission_create',
          key: (request) => `${request.auth?.user.id}:${request.ip}`,
          limit: (config) => config.limits.submissionRateLimit,
          windowSeconds: (config) => config.limits.submissionRateWindowSeconds,
        },
      },
    },
    async (request, reply) => {
      const submission = await services.submissions.createSubmission(unitOf(request), actorOf(request), request.params.slug, request.body);
      setEtag(setLocation(reply.code(201), `/api/v1/books/${submission.book_slug}/submissions/${submission.id}/`), submission.etag);
      return submission;
    },
  );
}
