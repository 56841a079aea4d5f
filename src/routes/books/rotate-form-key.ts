import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { EmptyBody } from '../../http/schemas/common.js';
import { SlugParams } from './schemas.js';

/** A new form key for the book's contributor form; links with the old key stop opening it. */
export function rotateFormKey(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/books/:slug/form_key/rotate/',
    {
      schema: {
        operationId: 'rotateBookFormKey',
        tags: ['books'],
        summary: "Rotate the key of the book's contributor form",
        description:
          'Owner only. The contributor form of a book that is not public opens only with its key (/b/{slug}/?key=<key>); ' +
          'this makes a new key, so links with the old one answer 404 from now on. Answers the web channel row, ' +
          'whose address and deep_link carry the new key. A public book gets a new key too (used once it is made private).',
        params: SlugParams,
        body: EmptyBody,
        response: { 200: Type.Ref('ChannelStatus') },
      },
      config: { book: 'rotate_form_key', errors: [403] },
    },
    async (request) => services.channels.rotateFormKey(unitOf(request), actorOf(request), request.params.slug),
  );
}
