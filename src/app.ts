import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { addDeprecationHeaders } from './http/deprecation.js';
import { installDrain } from './http/drain.js';
import { answerClientError, answerStalledSocket } from './http/client-errors.js';
import { errorHandler } from './http/error-handler.js';
import { installJsonBody, rejectNulStrings } from './http/json-body.js';
import { installErrorResponses, registerOpenApi } from './http/openapi.js';
import { createAuthenticate } from './http/plugins/authenticate.js';
import { createBookAccessHook } from './http/plugins/book-access.js';
import { createIdempotencyHooks } from './http/plugins/idempotency.js';
import { installMetrics } from './http/plugins/metrics.js';
import { createRateLimit } from './http/plugins/rate-limit.js';
import './http/route-config.js';
import { checkDeclaredHeaders, installHeaderGuard } from './http/response-headers.js';
import { installFallbacks } from './http/routing.js';
import { ErrorEnvelope, ValidationErrorBody } from './http/schemas/common.js';
import { createSchemaCompilers } from './http/validation.js';
import { registerApiRoutes, SHARED_SCHEMAS } from './routes/index.js';
import { registerHealthRoutes } from './routes/health/health-routes.js';
import { registerFileRoutes } from './routes/files/file-routes.js';
import { registerWebhookRoutes } from './routes/webhooks/webhook-routes.js';
import { registerStripeWebhook } from './routes/webhooks/stripe-webhook.js';
import { contextFromHeaders, markSpanError, SpanKind, startSpan, tracingOn, withActiveSpan, type Span } from './lib/tracing.js';
import { createServices, type AppDeps, type RouteContext } from './services/index.js';
import { registerWebPages } from './web/index.js';

export { jsonDepthExceeds } from './http/json-body.js';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuildAppOptions {
  /** Pino logger options or false; the process entry passes its own. */
  logger?: boolean | Record<string, unknown>;
}

/** Builds the whole HTTP app from its dependencies: no listen, no environment reads. */
export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const services = deps.services ?? createServices(deps);
  const ctx: RouteContext = { config: deps.config, services };
  const timeouts = deps.config.http.timeouts;
  // Validators and response serializers compile on first use, not at ready (see http/validation.ts).
  const schemaCompilers = createSchemaCompilers();

  const app = Fastify({
    logger: options.logger ?? {
      level: deps.config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    },
    // One line per request, written in onResponse below; never bodies or credentials.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    requestIdHeader: false,
    // A valid incoming X-Request-Id is echoed; anything else gets a fresh one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    // A slow client cannot hold a connection: headers, the whole request (body included) and an idle
    // keep-alive socket each have a limit. A socket silent for as long as a whole request may take is dead.
    connectionTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node enforces both limits only when it sweeps its connections (every 30 s by default).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
    },
    // Errors Node raises before routing (431, 414, bad Content-Length, 408) answer the envelope too.
    clientErrorHandler: answerClientError,
    // A graceful close (see http/drain.ts and server.ts): idle keep-alive connections are closed at once, and a
    // request that still arrives on an open one is served (with `Connection: close`), not refused with a bare 503.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    trustProxy: deps.config.http.trustProxy,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: schemaCompilers.compilersFactory },
    // A path Fastify cannot decode (bad %-escape, over-long segment) is simply not found, in our envelope.
    frameworkErrors: (err, request, reply) => {
      reply.header('x-request-id', request.id);
      const notFound = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      (reply as import("fastify").FastifyReply).code(notFound ? 404 : 500).send({
        code: notFound ? 'not_found' : 'internal_error',
        message: notFound ? 'The requested resource was not found.' : 'An internal error occurred.',
        details: null,
        request_id: String(request.id),
      });
    },
  });

  // A request that stops arriving (a stalled upload) is answered 408 rather than dropped.
  app.server.on('timeout', (socket: import('node:net').Socket) => answerStalledSocket(app.log, socket));
  app.decorateRequest('auth', null);
  app.decorateRequest('idempotency', null);
  app.decorateRequest('errorCode', null);
  app.decorateRequest('errorTransient', false);
  app.decorateRequest('rateLimited', false);
  app.setValidatorCompiler(schemaCompilers.validatorCompiler);
  app.addSchema(ErrorEnvelope);
  app.addSchema(ValidationErrorBody);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  // JSON bodies (see http/json-body.ts); `jsonOnly` sets up the API scope, which takes nothing else.
  const jsonOnly = installJsonBody(app);

  // With tracing on (lib/tracing.ts), each request's span: a child of the caller's traceparent, if it sent one.
  const spans = new WeakMap<object, Span>();
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (!tracingOn()) return done();
    const parent = contextFromHeaders(request.headers);
    const span = startSpan(request.method, { kind: SpanKind.SERVER, parent, attributes: requestSpanAttributes(request) });
    if (!span) return done();
    spans.set(request, span);
    withActiveSpan(span, done, parent);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? null;
    request.log.info({ method: request.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    const span = spans.get(request);
    if (span) {
      spans.delete(request);
      if (route) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (request.errorCode) span.setAttribute('memorybook.error_code', request.errorCode);
      if (reply.statusCode >= 500) markSpanError(span, String(reply.statusCode));
      span.end();
    }
    done();
  });
  // Only with tracing on (it starts before the app is built): Fastify listens for 'close' on every request that has an onRequestAbort hook.
  if (tracingOn()) {
    app.addHook('onRequestAbort', (request, done) => {
      const span = spans.get(request);
      if (span) {
        spans.delete(request);
        markSpanError(span, 'aborted');
        span.end();
      }
      done();
    });
  }

  installDrain(app);
  installMetrics(app, { config: deps.config, db: deps.db, queue: deps.queue });
  installErrorResponses(app);
  installHeaderGuard(app, { throws: deps.config.env !== 'production' });
  installFallbacks(app);
  app.setErrorHandler(errorHandler);
  await app.register(cookie);
  await app.register(formbody);
  await registerOpenApi(app);

  registerHealthRoutes(app, ctx);
  registerFileRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  await registerStripeWebhook(app, ctx);
  await app.register(
    async (api) => {
      jsonOnly(api);
      const rateLimit = createRateLimit({ config: deps.config, limiter: services.rateLimiter });
      const idempotency = createIdempotencyHooks({ db: deps.db, store: services.idempotency, rateLimit: rateLimit.apply });
      api.addHook('onRequest', createAuthenticate({ config: deps.config, tokens: services.tokens, sessions: services.sessions }));
      api.addHook(
        'onRequest',
        createBookAccessHook({ access: services.access, submissionAuthor: services.submissions.authorOf, replayIfStored: idempotency.replayIfStored }),
      );
      api.addHook('onRequest', addDeprecationHeaders);
      // A body-less POST/PATCH is validated as {} so required fields are reported one by one.
      // (Callback hooks where there is nothing to wait for: every request runs them.)
      api.addHook('preValidation', (request, _reply, done) => {
        if (request.body === undefined && request.routeOptions.schema?.body && !['GET', 'HEAD', 'DELETE'].includes(request.method)) {
          request.body = {};
        }
        done();
      });
      api.addHook('preValidation', idempotency.claim);
      api.addHook('preValidation', rateLimit.hook);
      api.addHook('preValidation', rejectNulStrings);
      // Before the answer is stored for replay: a header no declaration covers is refused first.
      api.addHook('onSend', checkDeclaredHeaders);
      api.addHook('onSend', idempotency.record);
      // No rollback on a client abort: the handler may still be writing, and onSend ends the transaction either way.
      api.addHook('onResponse', idempotency.abandon);
      api.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none', internal: true } }, async () => app.swagger());
      await registerApiRoutes(api, ctx);
    },
    { prefix: '/api/v1' },
  );
  await app.register(async (web) => registerWebPages(web, ctx));
  return app;
}

/** HTTP server span attributes (OpenTelemetry semantic conventions), the request id among them; never the query string or a credential. */
function requestSpanAttributes(request: import('fastify').FastifyRequest) {
  const q = request.url.indexOf('?');
  const ua = request.headers['user-agent'];
  return {
    'http.request.method': request.method,
    'url.path': q === -1 ? request.url : request.url.slice(0, q),
    'url.scheme': request.protocol,
    'network.protocol.version': request.raw.httpVersion,
    'client.address': request.ip,
    ...(typeof ua === 'string' ? { 'user_agent.original': ua.slice(0, 256) } : {}),
    'memorybook.request_id': String(request.id),
  };
}
