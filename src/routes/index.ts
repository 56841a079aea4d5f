import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../services/index.js';
import { registerAuthRoutes } from './auth/index.js';
import { registerMeRoutes } from './me/index.js';

/** Every /api/v1 route, registered here so the list reads in one place. */
export async function registerApiRoutes(api: FastifyInstance, ctx: RouteContext) {
  registerAuthRoutes(api, ctx);
  registerMeRoutes(api, ctx);
}
