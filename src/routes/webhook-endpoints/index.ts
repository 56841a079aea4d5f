import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { createEndpoint } from './create-endpoint.js';
import { deleteEndpoint } from './delete-endpoint.js';
import { getEndpoint } from './get-endpoint.js';
import { listDeliveries } from './list-deliveries.js';
import { listEndpoints } from './list-endpoints.js';
import { retryDelivery } from './retry-delivery.js';
import { rotateSecret } from './rotate-secret.js';
import { testEndpoint } from './test-endpoint.js';
import { updateEndpoint } from './update-endpoint.js';

export function registerWebhookEndpointRoutes(app: FastifyInstance, ctx: RouteContext) {
  listEndpoints(app, ctx);
  createEndpoint(app, ctx);
  getEndpoint(app, ctx);
  updateEndpoint(app, ctx);
  deleteEndpoint(app, ctx);
  rotateSecret(app, ctx);
  testEndpoint(app, ctx);
  listDeliveries(app, ctx);
  retryDelivery(app, ctx);
}
