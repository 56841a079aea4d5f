import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { accessState } from '../../http/plugins/book-access.js';
import { requireBook } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { allowedActions } from '../../services/books/book-access.js';
import { PLAN_FEATURES } from '../../services/plans/plan-types.js';
import { Permissions, SlugParams } from './schemas.js';

export function getPermissions(app: FastifyInstance, _ctx: RouteContext) {
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
    async (request) => {
      const ctx = requireBook(request.book);
      const features = Object.fromEntries(PLAN_FEATURES.filter((f) => f.startsWith('feature_')).map((f) => [f, ctx.planFeatures[f] === true]));
      return { book_slug: ctx.book.slug, role: ctx.role, ...features, actions: ctx.role ? allowedActions(accessState(ctx)) : [] };
    },
  );
}
