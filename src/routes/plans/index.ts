import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../services/index.js';
import { PlanList } from '../books/schemas.js';

export function registerPlanRoutes(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/plans/',
    {
      schema: {
        operationId: 'listPlans',
        tags: ['billing'],
        summary: 'The public plan catalog',
        description: 'Anyone, unauthenticated. The whole catalog in one page (has_more false).',
        security: [],
        response: { 200: PlanList },
      },
      config: { auth: 'none' },
    },
    async () => ({ items: await services.plans.listPlans(), next_cursor: null, has_more: false }),
  );
}
