import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { BillingRecord, SlugParams } from './schemas.js';

export function getBilling(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/billing/',
    {
      schema: {
        operationId: 'getBookBilling',
        tags: ['billing'],
        summary: "The book's latest billing record, with its plan and a quota snapshot",
        description: 'Owner only.',
        params: SlugParams,
        response: { 200: BillingRecord },
      },
      config: { book: 'read_billing', errors: [403] },
    },
    async (request) => services.billing.getBilling(actorOf(request), request.params.slug),
  );
}
