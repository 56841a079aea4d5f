import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { EmptyBody } from '../../http/schemas/common.js';
import { mustBeStream } from '../../services/mail-streams/mail-stream-service.js';
import type { RouteContext } from '../../services/index.js';
import { EmptyObjectBody, OneClickForm, StreamParams, Unsubscribed, UnsubscribeTokenQuery } from './schemas.js';

/** Mail clients post the one-click form (RFC 8058); nothing in it is needed beyond its arrival. */
const FORM_LIMIT_BYTES = 16 * 1024;

export async function registerUnsubscribeRoutes(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/me/unsubscribe/:stream/',
    {
      schema: {
        operationId: 'unsubscribeFromStream',
        tags: ['account'],
        summary: 'Leave a mail stream',
        description:
          'Streams: onboarding, digests (the daily digest of new memories in your books), activity_reminders (a nudge when a book you own has been quiet). ' +
          'Mail of a stream you left is never sent. Repeating it answers already_unsubscribed: true. An unknown stream is 400 unknown_stream with details.offered.',
        params: StreamParams,
        body: EmptyObjectBody,
        response: { 200: Unsubscribed },
      },
      config: { errors: ['unknown_stream'] },
      // An unknown stream names nothing: answered before the Idempotency-Key is claimed, so it is never stored.
      onRequest: async (request) => {
        mustBeStream((request.params as { stream: string }).stream);
      },
    },
    async (request) => services.mailStreams.unsubscribe(unitOf(request), actorOf(request), request.params.stream),
  );

  // The link in onboarding mail: no credential but its token, no Idempotency-Key, and the
  // form bodies of RFC 8058 one-click unsubscribes besides JSON, in a scope of its own.
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, parseQueryString(body as string));
    });
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: FORM_LIMIT_BYTES }, (_request, _body, done) => done(null, {}));

    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/me/unsubscribe/:stream/token/',
      {
        schema: {
          operationId: 'unsubscribeWithToken',
          tags: ['account'],
          summary: 'Leave a mail stream from the link in a mail',
          description:
            'The List-Unsubscribe link of every onboarding mail, also for one-click unsubscribes (RFC 8058: a form post of List-Unsubscribe=One-Click). ' +
            'No other credential and no Idempotency-Key. Works for onboarding only: another stream is 400 stream_not_token_supported (checked first), ' +
            'then a missing or invalid token is 401 unauthorized.',
          security: [],
          params: StreamParams,
          querystring: UnsubscribeTokenQuery,
          body: {
            content: {
              'application/json': { schema: EmptyBody },
              'application/x-www-form-urlencoded': { schema: OneClickForm },
              'multipart/form-data': { schema: OneClickForm },
            },
          },
          response: { 200: Unsubscribed },
        },
        config: { auth: 'none', idempotency: false, errors: ['unauthorized', 'unknown_stream', 'stream_not_token_supported'] },
      },
      async (request) => services.mailStreams.unsubscribeWithToken(request.params.stream, request.query.token),
    );
  });
}
