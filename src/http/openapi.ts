import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { assertValidDeprecation } from './deprecation.js';
import { isStorable, MAX_KEY_LENGTH } from './plugins/idempotency.js';
import { BOOK_ACTIONS, type BookAction } from '../services/books/book-access.js';
import { EmptyBody, SERVICE_ENUM_KEYWORD } from './schemas/common.js';

// 503: the database was busy (a timeout, a deadlock); retry after Retry-After.
// 405: every path answers it for the methods it does not define.
const SHARED_ERRORS = [400, 404, 405, 500, 503];
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request (validation_failed, query_param_invalid, invalid_json, …)',
  401: 'Missing, malformed or revoked credentials (unauthorized)',
  402: 'Payment or plan limit',
  403: 'Forbidden (insufficient_role, csrf_failed, …)',
  404: 'Not found, or not visible to the caller (not_found)',
  405: 'Method not allowed on this path (method_not_allowed); Allow lists the methods it answers',
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
  503: 'Service unavailable (service_unavailable); see Retry-After',
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

/**
 * What the document says about an operation beyond its route schema, read
 * from the route's config when it is registered (see `finishDocument`).
 */
interface OperationFacts {
  /** Needs an Idempotency-Key (the idempotency plugin's rule). */
  idempotent: boolean;
  /** Honours If-Match: it is the routes that answer 412 precondition_failed. */
  ifMatch: boolean;
  /** A multipart/form-data body read as a stream by the handler (no body schema to validate). */
  multipart?: { fileField: string; description: string };
  /** Takes no body: the route schema only has the EmptyBody that rejects one. */
  bodyless: boolean;
  rateLimited: boolean;
  deprecated: boolean;
}

/** Per app, keyed by operationId (unique across the API; the OpenAPI test checks it). */
const factsByApp = new WeakMap<FastifyInstance, Map<string, OperationFacts>>();

/** Adds the shared error bodies to every API route's response schema, so the document lists every status. */
export function installErrorResponses(app: FastifyInstance) {
  const facts = new Map<string, OperationFacts>();
  factsByApp.set(app, facts);
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
    if (!schema.body && !route.config?.multipart && methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m))) schema.body = EmptyBody;
    const response = ((schema as { response?: Record<string, unknown> }).response ??= {});
    const statuses = errorStatusesFor(route);
    for (const status of statuses) {
      if (response[status]) continue;
      response[status] =
        status === 422
          ? { description: ERROR_DESCRIPTIONS[422], anyOf: [{ $ref: 'ValidationError#' }, { $ref: 'ErrorEnvelope#' }] }
          : { description: ERROR_DESCRIPTIONS[status] ?? 'Error', $ref: 'ErrorEnvelope#' };
    }
    const operationId = (schema as { operationId?: string }).operationId;
    if (operationId) {
      facts.set(operationId, {
        idempotent: statuses.includes(428),
        ifMatch: statuses.includes(412),
        bodyless: schema.body === EmptyBody,
        multipart: route.config?.multipart,
        rateLimited: Boolean(route.config?.rateLimit),
        deprecated: Boolean(route.config?.deprecated),
      });
    }
  });
}

/** Tags of the document, in this order; an operation's tag missing here is a lint warning (no description). */
const TAGS: { name: string; description: string }[] = [
  { name: 'auth', description: 'API keys: issue one from a browser session, revoke one or all, and see who is calling.' },
  { name: 'identity', description: 'Your profile and your quotas.' },
  { name: 'billing', description: "The public plan catalog and a book's billing record." },
  { name: 'books', description: 'Memory books: create, list, read, update, archive, restore and delete them; your permissions on one.' },
  { name: 'submissions', description: 'The memories sent into a book, and their moderation: approve, reject, pin, unpin.' },
  { name: 'media', description: 'Photos, audio and video attached to submissions.' },
  { name: 'members', description: 'Who else works on a book, and in which role.' },
  { name: 'invitations', description: 'Invitations to join a book.' },
  { name: 'channels', description: 'How contributors reach a book: web, email, SMS, RCS, iMessage, WhatsApp and Telegram.' },
  { name: 'notifications', description: "Notification subscriptions: who hears about a book's new memories (each one, or a daily digest) and over which channel." },
  { name: 'exports', description: 'PDF, JSON and ZIP exports of a book.' },
  { name: 'account', description: 'Your account as a whole: data export, deletion with a step-up, and the mail streams you can leave.' },
];

/** Request headers, declared as parameters of the operations that read them (never validated as a schema). */
const HEADER_PARAMETERS = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description:
      'Any unique string (a UUIDv4 is suggested). A retry with the same key and body replays the first answer ' +
      '(Idempotent-Replayed: true) for 24 hours; the same key with another body is 422 idempotency_key_reused; ' +
      'while the first request still runs, 409 idempotency_key_in_use. Missing: 428 idempotency_key_required.',
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
    example: '6f1c1b2e-3d4a-4f5b-9c8d-7e6f5a4b3c2d',
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The etag you last read. When the resource has changed since: 412 precondition_failed with details.current_etag. ' +
      '`*` matches any existing resource. Absent: the last write wins.',
    schema: { type: 'string' },
    example: '"2026-11-21T10:00:00.123456Z"',
  },
} as const;

const HTTP_DATE_EXAMPLE = 'Sat, 21 Nov 2026 10:00:00 GMT';

/** Response headers, referenced from the responses that send them. */
const RESPONSE_HEADERS: Record<string, { description: string; required?: boolean; schema: Record<string, unknown>; example?: unknown }> = {
  'X-Request-Id': {
    description: "This request's id: the X-Request-Id you sent when it was valid, else a new one. Equals request_id in an error body.",
    required: true,
    schema: { type: 'string' },
    example: '5b0e6c1e-7d0a-4a3e-9a43-8f1f0f7d2c11',
  },
  ETag: {
    description: "The resource's etag (the same value as its etag field); send it back in If-Match.",
    required: true,
    schema: { type: 'string' },
    example: '"2026-11-21T10:00:00.123456Z"',
  },
  'Last-Modified': {
    description: 'The sync watermark of this list (an HTTP-date): pin the next updated_since to it, not to your clock.',
    required: true,
    schema: { type: 'string' },
    example: HTTP_DATE_EXAMPLE,
  },
  Location: { description: 'Where the created resource lives.', required: true, schema: { type: 'string' }, example: '/api/v1/books/grandma-turns-90/' },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 }, example: 1 },
  'Idempotent-Replayed': {
    description: 'Present when this answer was replayed from an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': { description: 'The scheme to authenticate with.', schema: { type: 'string' }, example: 'Bearer' },
  Deprecation: { description: 'When this operation was deprecated (RFC 9745; @ and Unix seconds).', schema: { type: 'string' }, example: '@1796083200' },
  Sunset: { description: 'When this operation stops answering (RFC 8594; an HTTP-date).', schema: { type: 'string' }, example: HTTP_DATE_EXAMPLE },
  Link: { description: 'Where to read about the replacement (rel="deprecation").', schema: { type: 'string' } },
  Allow: { description: 'The methods this path answers.', schema: { type: 'string' }, example: 'GET, PATCH, DELETE' },
  'X-RateLimit-Limit': { description: "Requests allowed in the rate limit's window; sent once the request was counted.", schema: { type: 'integer' }, example: 30 },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' }, example: 29 },
};

const TWO_XX_FALLBACK: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No content' };

export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Memory Book Integrator API',
        version: '1.0.0',
        description:
          'Owner-scoped REST API over memory books and the memories (submissions) people send into them. ' +
          'Every non-GET route needs an Idempotency-Key header. Errors carry {code, message, details, request_id}; ' +
          'body schema failures answer 422 {detail: [{loc, msg, type}]}. Paths end with a slash; the form without it answers 308. ' +
          'Response objects may gain fields within v1: ignore the ones you do not know.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the docs page's "Try it out" calls the origin it was opened from.
      servers: [{ url: '/' }],
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
    transformObject: (generated) =>
      finishDocument((generated as { openapiObject: unknown }).openapiObject as OpenApiDoc, factsByApp.get(app) ?? new Map()) as object,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/v1/docs',
    uiConfig: { deepLinking: true, persistAuthorization: false },
    staticCSP: true,
  });
}

type Json = Record<string, any>;
interface OpenApiDoc {
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Json>>;
  components: Json;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * The generated document, finished for client generators: header parameters,
 * body-less actions without a body, response headers, real 2xx descriptions,
 * one enum style, and the tag list. Everything here is documentation only;
 * the route schemas that Fastify validates with are untouched.
 */
export function finishDocument(doc: OpenApiDoc, facts: Map<string, OperationFacts>): OpenApiDoc {
  const usedParameters = new Set<keyof typeof HEADER_PARAMETERS>();
  const usedHeaders = new Set<string>();
  const ref = (name: string) => {
    usedHeaders.add(name);
    return { $ref: `#/components/headers/${name}` };
  };
  const usedTags = new Set<string>();

  for (const item of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      for (const tag of op.tags ?? []) usedTags.add(tag);
      const f = facts.get(op.operationId);

      const headerParams = [...(f?.idempotent ? ['Idempotency-Key' as const] : []), ...(f?.ifMatch ? ['If-Match' as const] : [])];
      if (headerParams.length) {
        op.parameters = [...(op.parameters ?? []), ...headerParams.map((p) => ({ $ref: `#/components/parameters/${p}` }))];
        headerParams.forEach((p) => usedParameters.add(p));
      }

      if (f?.multipart) {
        op.requestBody = {
          required: true,
          description: f.multipart.description,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: [f.multipart.fileField],
                properties: { [f.multipart.fileField]: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file' } },
                additionalProperties: false,
              },
              encoding: { [f.multipart.fileField]: { contentType: 'image/*, audio/*, video/*' } },
            },
          },
        };
      } else if (f?.bodyless) delete op.requestBody;
      else if (op.requestBody && mayBeOmitted(op.requestBody.content?.['application/json']?.schema)) op.requestBody.required = false;

      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const code = Number(status);
        if (code < 300 && response.description === 'Default Response') response.description = TWO_XX_FALLBACK[status] ?? 'Success';
        if (code === 201 && !response.description.startsWith('Created')) response.description = `Created: ${lowerFirst(response.description)}`;
        const names = ['X-Request-Id'];
        if (code >= 200 && code < 300 && sendsEtag(response, doc)) names.push('ETag');
        if (code === 200 && method === 'get' && (op.parameters ?? []).some((p: Json) => p.in === 'query' && p.name === 'updated_since')) names.push('Last-Modified');
        // A 202 that answers with the job it started (POST …/exports/) says where to poll it: `x-location-on-202` on the route schema.
        if (code === 201 || (code === 202 && op['x-location-on-202'] === true)) names.push('Location');
        if ([202, 429, 502, 503].includes(code) || (code === 409 && f?.idempotent)) names.push('Retry-After');
        if (f?.idempotent && (code < 300 || isStorable(code, null))) names.push('Idempotent-Replayed');
        if (code === 401) names.push('WWW-Authenticate');
        if (code === 405) names.push('Allow');
        // Every 429 says which limit it met (a route's own cap, e.g. unfinished exports, as well as a rate limit).
        if (f?.rateLimited || code === 429) names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining');
        if (f?.deprecated || op.deprecated) names.push('Deprecation', 'Sunset', 'Link');
        response.headers = Object.fromEntries(names.map((n) => [n, ref(n)]));
      }
      delete op['x-location-on-202'];
    }
  }

  normalizeEnums(doc);

  doc.components.parameters = Object.fromEntries([...usedParameters].map((p) => [p, HEADER_PARAMETERS[p]]));
  doc.components.headers = Object.fromEntries(Object.keys(RESPONSE_HEADERS).filter((h) => usedHeaders.has(h)).map((h) => [h, RESPONSE_HEADERS[h]]));
  doc.tags = [
    ...TAGS.filter((t) => usedTags.has(t.name)),
    ...[...usedTags].filter((t) => !TAGS.some((x) => x.name === t)).map((name) => ({ name })),
  ];
  // Top-level keys in the conventional order (info, servers, tags before paths) for a readable diff.
  const { openapi, info, servers, security, tags, paths, components, ...rest } = doc as Json;
  return { openapi, info, servers, security, tags, paths, components, ...rest } as OpenApiDoc;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

const resolve = (schema: Json | undefined, doc: OpenApiDoc): Json | undefined => {
  const r = schema?.$ref;
  return typeof r === 'string' && r.startsWith('#/components/schemas/') ? doc.components.schemas?.[r.slice('#/components/schemas/'.length)] : schema;
};

/**
 * Detail resources carry `etag` and send it as the ETag header: a body that
 * is one (Book, Submission, Profile), or wraps one in a field (a moderation
 * result's submission). Lists do not: their items carry it.
 */
function sendsEtag(response: Json, doc: OpenApiDoc): boolean {
  const body = resolve(response.content?.['application/json']?.schema, doc);
  if (!body?.properties) return false;
  if (body.properties.etag) return true;
  return Object.values(body.properties as Record<string, Json>).some((p) => p.$ref && resolve(p, doc)?.properties?.etag);
}

/** A body that may be null and needs no field may be left out: the server reads a missing body as {}. */
function mayBeOmitted(schema: Json | undefined): boolean {
  return Array.isArray(schema?.type) && schema.type.includes('null') && !(schema.required?.length > 0);
}

/**
 * One enum style: a union of single-value string enums (what a union of
 * literals becomes) is written as one string `enum`; a service-checked enum
 * (see ServiceCheckedEnum) becomes a real `enum`, marked so readers know an
 * unknown value answers 400 rather than 422.
 */
function normalizeEnums(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(normalizeEnums);
  if (!node || typeof node !== 'object') return;
  const s = node as Json;
  const serviceEnum = s[SERVICE_ENUM_KEYWORD];
  if (Array.isArray(serviceEnum)) {
    const nullable = Array.isArray(s.type) && s.type.includes('null');
    s.enum = nullable ? [...serviceEnum, null] : [...serviceEnum];
    delete s[SERVICE_ENUM_KEYWORD];
    s['x-unknown-value'] = '400 validation_failed with details.offered';
  }
  const singleString = (b: Json) =>
    b && b.type === 'string' && Array.isArray(b.enum) && b.enum.length === 1 && Object.keys(b).every((k) => k === 'type' || k === 'enum');
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0 && s.anyOf.every(singleString)) {
    const values = s.anyOf.map((b: Json) => b.enum[0]);
    delete s.anyOf;
    s.type = 'string';
    s.enum = values;
  }
  Object.values(s).forEach(normalizeEnums);
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
