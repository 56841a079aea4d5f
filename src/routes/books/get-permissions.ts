import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { Permissions, SlugParams } from './schemas.js';

export function getPermissions(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/permissions/',
    {
      schema: {
        operationId: 'getBookPermissions',
        tags: ['books'],
        summary: 'Your role, the plan features and the actions you may take on a book',
        description: 'Any signed-in caller who can see the book. A non-member of a public book gets role null and no actions; of a private one, 404.',
        params: SlugParams,
        response: { 200: Permissions },
      },
      config: { book: 'visible' },
    },
    async (request) => services.books.getPermissions(actorOf(request), request.params.slug),
  );
}
