import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../services/index.js';

/** Server-rendered pages outside /api/v1: sign up, sign in, sign out, API tokens. */
export async function registerWebPages(_web: FastifyInstance, _ctx: RouteContext) {}
