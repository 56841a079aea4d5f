import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../services/index.js';
import { registerAuthRoutes } from './auth/index.js';
import { registerBookRoutes } from './books/index.js';
import { Book, Plan } from './books/schemas.js';
import { registerPlanRoutes } from './plans/index.js';
import { registerMeRoutes } from './me/index.js';
import { registerSubmissionRoutes } from './submissions/index.js';
import { MediaSummary, Submission } from './submissions/schemas.js';

/** Every /api/v1 route, registered here so the list reads in one place. */
export async function registerApiRoutes(api: FastifyInstance, ctx: RouteContext) {
  registerAuthRoutes(api, ctx);
  registerMeRoutes(api, ctx);
  registerPlanRoutes(api, ctx);
  registerBookRoutes(api, ctx);
  registerSubmissionRoutes(api, ctx);
}

/** Resource schemas referenced by $id from several routes; added once at the root so the document lists them in components. */
export const SHARED_SCHEMAS = [Book, Plan, MediaSummary, Submission];
