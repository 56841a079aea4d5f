import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { assertValidDeprecation } from './deprecation.js';
import { BOOK_ACTIONS, type BookAction } from '../services/books/book-access.js';
import { EmptyBody } from './schemas/common.js';

// 503: the database was busy (a timeout, a deadlock); retry after Retry-After.
const SHARED_ERRORS = [400, 404, 500, 503];
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request (validation_failed, query_param_invalid, invalid_json, …)',
  401: 'Missing, malformed or revoked credentials (unauthorized)',
  402: 'Payment or plan limit',
  403: 'Forbidden (insufficient_role, csrf_failed, …)',
  404: 'Not found, or not visible to the caller (not_found)',
  409: 'Conflict (idempotency_key_in_use, name_taken, invalid_state, …)',
  410: 'Gone',
  412: 'If-Match did not match (precondition_failed; details.current_etag)',
  413: 'Body too large (payload_too_large)',
  415: 'Content-Type not supported (unsupported_media_type)',
  422: 'Schema validation failed ({detail}) or idempotency_key_reused (envelope)',
  423: 'Locked (book_grace_period on approve)',
  428: 'Idempotency-Key header required (idempotency_key_required)',
  429: 'Rate limited (rate_limited); see Retry-After',
  500: 'Internal error (internal_error)',
  502: 'Upstream storage unavailable (storage_unavailable)',
  503: 'Service unavailable',
};

/** Which error statuses a route can answer, from its method and config; routes add their own in `config.errors`. */
export function errorStatusesFor(route: RouteOptions): number[] {
  const rc = route.config ?? {};
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
  const unsafe = methods.some((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m));
  const s = new Set<number>(SHARED_ERRORS);
  if ((rc.auth ?? 'required') !== 'none') s.add(401);
  if (unsafe && (rc.auth ?? 'required') !== 'none') s.add(403); // CSRF on sessions
  if (rc.sessionOnly) s.add(403);
  if (unsafe) [413, 415, 422].forEach((x) => s.add(x));
  if (unsafe && rc.idempotency !== false && (rc.auth ?? 'required') !== 'none') [409, 422, 428].forEach((x) => s.add(x));
  if (rc.rateLimit) s.add(429);
  for (const x of rc.errors ?? []) s.add(x);
  return [...s].sort((a, b) => a - b);
}

/** Adds the shared error bodies to every API route's response schema, so the document lists every status. */
export function installErrorResponses(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/v1/') || route.config?.internal || (route.schema as { hide?: boolean })?.hide) return;
    if (route.config?.deprecated) {
      assertValidDeprecation(route.url, route.config.deprecated);
      route.schema = { ...route.schema, deprecated: true } as typeof route.schema;
    }
    const schema = (route.schema ??= {});
    // Who may call a book route, machine-readable, from the same table the services enforce.
    const action = route.config?.book;
    if (action) (schema as Record<string, unknown>)['x-book-access'] = bookAccessExtension(action);
    // A route that takes no body still rejects one (unknown fields are never silently dropped).
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
    if (!schema.body && methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m))) schema.body = EmptyBody;
    const response = ((schema as { response?: Record<string, unknown> }).response ??= {});
    for (const status of errorStatusesFor(route)) {
      if (response[status]) continue;
      response[status] =
        status === 422
          ? { description: ERROR_DESCRIPTIONS[422], anyOf: [{ $ref: 'ValidationError#' }, { $ref: 'ErrorEnvelope#' }] }
          : { description: ERROR_DESCRIPTIONS[status] ?? 'Error', $ref: 'ErrorEnvelope#' };
    }
  });
}

export async function registerOpenApi(app: FastifyInstance, publicUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Memory Book Integrator API',
        version: '1.0.0',
        description:
          'Owner-scoped REST API over memory books and the memories (submissions) people send into them. ' +
          'Every non-GET route needs an Idempotency-Key header. Errors carry {code, message, details, request_id}; ' +
          'body schema failures answer 422 {detail: [{loc, msg, type}]}.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_live_…', description: 'API key' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'mb_session', description: 'Browser session; unsafe methods also need X-CSRFToken and a same-origin Referer' },
        },
      },
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => String((json as { $id?: string }).$id ?? `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/v1/docs',
    uiConfig: { deepLinking: true, persistAuthorization: false },
    staticCSP: true,
  });
}

/**
 * `x-book-access` on every /books/{slug}/ operation: the action it takes and
 * what that needs (least role, or 'visible'; whether it writes, and so stops
 * in a grace period; the plan feature; whether a contributor may act on
 * their own rows only).
 */
export function bookAccessExtension(action: BookAction | 'visible') {
  if (action === 'visible') {
    return { action, min_role: 'visible', write: false, allowed_in_grace: true, grace_status: null, feature: null, own_rows_only: false };
  }
  const rule: { role: string; write: boolean; feature?: string; allowedInGrace?: boolean; graceStatus?: number } = BOOK_ACTIONS[action];
  return {
    action,
    min_role: rule.role,
    write: rule.write,
    allowed_in_grace: !rule.write || rule.allowedInGrace === true,
    grace_status: rule.write && !rule.allowedInGrace ? (rule.graceStatus ?? 403) : null,
    feature: rule.feature ?? null,
    own_rows_only: rule.role === 'contributor',
  };
}
