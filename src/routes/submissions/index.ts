import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { createSubmission } from './create-submission.js';
import { deleteSubmission } from './delete-submission.js';
import { getSubmission } from './get-submission.js';
import { listSubmissions } from './list-submissions.js';
import { moderateSubmission } from './moderate-submission.js';
import { updateSubmission } from './update-submission.js';

export function registerSubmissionRoutes(app: FastifyInstance, ctx: RouteContext) {
  listSubmissions(app, ctx);
  createSubmission(app, ctx);
  getSubmission(app, ctx);
  updateSubmission(app, ctx);
  deleteSubmission(app, ctx);
  moderateSubmission(app, ctx);
}
