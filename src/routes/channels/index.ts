import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { SlugParams } from '../books/schemas.js';
import { ChannelList } from './schemas.js';

export function registerChannelRoutes(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/books/:slug/channels/',
    {
      schema: {
        operationId: 'listBookChannels',
        tags: ['channels'],
        summary: "The status of a book's channels",
        description:
          'Owner or admin: one row for each of web, email, sms, rcs, imessage, whatsapp and telegram, in that order, all on one page ' +
          '(has_more false): enabled, plan_allowed, platform_configured, and the contributor-facing address and deep link.',
        params: SlugParams,
        response: { 200: ChannelList },
      },
      config: { book: 'read_channels', errors: [403] },
    },
    async (request) => ({ items: await services.channels.listChannels(actorOf(request), request.params.slug), next_cursor: null, has_more: false }),
  );
}
