import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { CreateExportBody } from './schemas.js';

/** What the 202 answers: the job just queued (the schema's own example is a finished one). */
const PENDING_EXAMPLE = {
  id: '01935f50-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  book_slug: 'grandma-turns-90',
  status: 'pending',
  theme: 'botanical_luxe',
  intent: 'shop',
  export_format: 'pdf',
  bleed_mm: 3,
  gutter_mm: 15,
  created_at: '2026-11-21T10:00:00.123456Z',
  updated_at: '2026-11-21T10:00:00.123456Z',
  started_at: null,
  completed_at: null,
  error: null,
  size_bytes: null,
  page_count: null,
  expires_at: null,
  warnings: [],
};

export function createExport(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/exports/',
    {
      schema: {
        operationId: 'createExport',
        tags: ['exports'],
        summary: 'Request an export of the book',
        description:
          'Owner or admin; allowed during a billing grace period. Renders in the background: answers 202 with the pending job (Location says ' +
          'where to poll it). The book as it is when rendering starts: its approved memories, pinned first, then oldest first, with their media. ' +
          'pdf: a 210 × 210 mm book in the theme (page = trim + 2 × bleed, TrimBox and BleedBox set, the gutter added to the inner margin). ' +
          'json: {format_version, exported_at, book, submissions}. zip: that JSON and the original media files. A format the plan lacks, or an ' +
          'unknown theme (details.offered): 400 validation_failed. An identical request while one is still pending answers that job. ' +
          'At most 4 unfinished (pending or processing) exports per book and 10 per caller: one more answers 429 rate_limited with ' +
          'Retry-After (details.scope: book or user). Renders are shared fairly: every caller\'s first waiting export goes before anyone\'s second.',
        params: SlugParams,
        body: CreateExportBody,
        response: { 202: Type.Ref('ExportJob', { description: 'Accepted: the export job, pending' }) },
        'x-response-examples': { 202: PENDING_EXAMPLE },
      },
      // Where to poll the job; its own cap on unfinished exports answers 429 with Retry-After.
      config: { book: 'export', errors: [403, 429], location: [202], retryAfter: [429] },
    },
    async (request, reply) => {
      const job = await services.exports.requestExport(unitOf(request), actorOf(request), request.params.slug, request.body);
      setLocation(reply.code(202), `/api/v1/books/${job.book_slug}/exports/${job.id}/`);
      return job;
    },
  );
}
