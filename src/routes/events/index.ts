import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { getEvent } from './get-event.js';
import { listEvents } from './list-events.js';

export function registerEventRoutes(app: FastifyInstance, ctx: RouteContext) {
  listEvents(app, ctx);
  getEvent(app, ctx);
}
