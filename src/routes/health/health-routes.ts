import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';

/** Liveness and readiness, outside /api/v1 and without auth. */
export function registerHealthRoutes(app: FastifyInstance, { db }: RouteContext) {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.get('/healthz', { schema: { hide: true }, config: { internal: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { internal: true } }, async (_request, reply) => {
    if (draining) return reply.code(503).send({ status: 'draining' });
    try {
      await db.query('SELECT 1');
      return { status: 'ready', database: db.kind };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: db.kind });
    }
  });
}
