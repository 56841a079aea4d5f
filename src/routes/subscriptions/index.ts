import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { cancelSubscription } from './cancel-subscription.js';
import { listSubscriptions } from './list-subscriptions.js';

export function registerSubscriptionRoutes(app: FastifyInstance, ctx: RouteContext) {
  listSubscriptions(app, ctx);
  cancelSubscription(app, ctx);
}
