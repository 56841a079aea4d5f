import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';

/** Liveness and readiness, outside /api/v1 and without auth. */
export function registerHealthRoutes(app: FastifyInstance, { services }: RouteContext) {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.get('/healthz', { schema: { hide: true }, config: { internal: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { internal: true } }, async (_request, reply) => {
    if (draining) return reply.code(503).send({ status: 'draining' });
    const { ready, database } = await services.health.databaseReady();
    return ready ? { status: 'ready', database } : reply.code(503).send({ status: 'unavailable', database });
  });
}
