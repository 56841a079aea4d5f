import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';

/** Liveness and readiness, outside /api/v1 and without auth. */
export function registerHealthRoutes(app: FastifyInstance, { services }: RouteContext) {
  app.get('/healthz', { schema: { hide: true }, config: { internal: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { internal: true } }, async (_request, reply) => {
    // Shutting down (http/drain.ts): a balancer that polls this stops routing here while requests finish.
    if (app.drain.draining) return reply.code(503).send({ status: 'draining' });
    const { ready, database } = await services.health.databaseReady();
    return ready ? { status: 'ready', database } : reply.code(503).send({ status: 'unavailable', database });
  });
}
