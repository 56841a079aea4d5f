import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { addDeprecationHeaders } from './http/deprecation.js';
import { errorHandler } from './http/error-handler.js';
import { installErrorResponses, registerOpenApi } from './http/openapi.js';
import { createAuthenticate } from './http/plugins/authenticate.js';
import { createBookAccessHooks } from './http/plugins/book-access.js';
import { createIdempotencyHooks } from './http/plugins/idempotency.js';
import './http/route-config.js';
import { installFallbacks } from './http/routing.js';
import { ErrorEnvelope, ValidationErrorBody } from './http/schemas/common.js';
import { createValidatorCompiler } from './http/validation.js';
import { registerApiRoutes, SHARED_SCHEMAS } from './routes/index.js';
import { registerHealthRoutes } from './routes/health/health-routes.js';
import { createServices, type AppDeps, type RouteContext } from './services/index.js';
import { registerWebPages } from './web/index.js';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuildAppOptions {
  /** Pino logger options or false; the process entry passes its own. */
  logger?: boolean | Record<string, unknown>;
}

/** Builds the whole HTTP app from its dependencies: no listen, no environment reads. */
export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const services = createServices(deps);
  const ctx: RouteContext = { ...deps, services };

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
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    ajv: { customOptions: { removeAdditional: false } },
  });

  app.decorateRequest('auth', null);
  app.decorateRequest('idempotency', null);
  app.decorateRequest('errorCode', null);
  app.decorateRequest('book', null);
  app.setValidatorCompiler(createValidatorCompiler());
  app.addSchema(ErrorEnvelope);
  app.addSchema(ValidationErrorBody);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  // Empty JSON bodies are "no body" (POST …/archive/ with Content-Type set); bad JSON is 400 invalid_json.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  type Done = (err: Error | null, body?: unknown) => void;
  const parseJson = (req: Parameters<typeof defaultJson>[0], body: string | Buffer, done: Done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    defaultJson(req, text, done as NonNullable<Parameters<typeof defaultJson>[2]>);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  // The API speaks JSON only (multipart is added by the upload routes); web pages keep form bodies.
  const jsonOnly = (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
    scope.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parseJson);
  };

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, route: request.routeOptions.url ?? null, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });

  installErrorResponses(app);
  installFallbacks(app);
  app.setErrorHandler(errorHandler);
  await app.register(cookie);
  await app.register(formbody);
  await registerOpenApi(app, deps.config.http.publicUrl);

  registerHealthRoutes(app, ctx);
  await app.register(
    async (api) => {
      jsonOnly(api);
      const idempotency = createIdempotencyHooks(services.idempotency);
      api.addHook('onRequest', createAuthenticate({ config: deps.config, tokens: services.tokens, sessions: services.sessions }));
      const bookAccess = createBookAccessHooks(deps);
      api.addHook('onRequest', bookAccess.loadBook);
      api.addHook('onRequest', addDeprecationHeaders);
      // A body-less POST/PATCH is validated as {} so required fields are reported one by one.
      api.addHook('preValidation', async (request) => {
        if (request.body === undefined && request.routeOptions.schema?.body && !['GET', 'HEAD', 'DELETE'].includes(request.method)) {
          request.body = {};
        }
      });
      api.addHook('preValidation', idempotency.claim);
      api.addHook('preHandler', bookAccess.checkGraceAndPlan);
      api.addHook('onSend', idempotency.record);
      api.addHook('onRequestAbort', idempotency.releaseOnAbort);
      api.addHook('onResponse', idempotency.releaseOnAbort);
      api.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none', internal: true } }, async () => app.swagger());
      await registerApiRoutes(api, ctx);
    },
    { prefix: '/api/v1' },
  );
  await app.register(async (web) => registerWebPages(web, ctx));
  return app;
}
