import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { assertValidDeprecation } from './deprecation.js';
import { isStorable, MAX_KEY_LENGTH } from './plugins/idempotency.js';
import { BOOK_ACTIONS, type BookAction } from '../services/books/book-access.js';
import { webhooksSection } from './webhooks-doc.js';
import { EmptyBody, SERVICE_ENUM_KEYWORD } from './schemas/common.js';
import { ERROR_CATALOGUE_PAGE, errorCataloguePage, errorCatalogueTable } from './error-catalogue.js';
import { MovedBody, NOT_ERRORS } from './not-errors.js';
import { DECLARED_HEADERS, isKeyedRoute, type DeclaredHeader } from './header-declarations.js';
import { declaredHeadersOf } from './response-headers.js';
import { REDIRECT_TO_SLASHED } from './routing.js';
import { ERROR_CATALOGUE, ERROR_CODES, ERROR_STATUS, type ErrorCode, type ErrorScope } from '../errors.js';

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  402: 'Payment or a larger plan needed',
  403: 'Forbidden',
  404: 'Not found, or not visible to the caller',
  405: 'Method not allowed on this path; Allow lists the methods it answers',
  408: 'The request did not arrive in time',
  409: 'Conflict',
  410: 'Gone',
  412: 'If-Match did not match',
  413: 'Too large',
  414: 'URL too long',
  415: 'Content-Type not supported',
  422: 'Schema validation failed ({detail}), or the Idempotency-Key was used for another request',
  423: 'Locked',
  428: 'Idempotency-Key header required',
  429: 'Rate limited; see Retry-After',
  431: 'Request headers too large',
  500: 'Internal error',
  502: 'Upstream storage unavailable; see Retry-After',
  503: 'Service unavailable; see Retry-After',
};

/** What a route is, as the error scopes of the catalogue read it (see ErrorScope in src/errors.ts). */
interface RouteShape {
  signedIn: boolean;
  unsafe: boolean;
  multipart: boolean;
  query: boolean;
  keyed: boolean;
  ifMatch: boolean;
  rateLimited: boolean;
  sessionOnly: boolean;
  tokenOnly: boolean;
  book: ReturnType<typeof bookAccessExtension> | null;
}

function shapeOf(route: RouteOptions): RouteShape {
  const rc = route.config ?? {};
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
  const unsafe = methods.some((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m));
  const signedIn = (rc.auth ?? 'required') !== 'none';
  const declared = rc.errors ?? [];
  return {
    signedIn,
    unsafe,
    multipart: Boolean(rc.multipart),
    query: Boolean((route.schema as { querystring?: unknown } | undefined)?.querystring),
    keyed: isKeyedRoute(route),
    ifMatch: declared.includes(412) || declared.includes('precondition_failed'),
    rateLimited: Boolean(rc.rateLimit),
    sessionOnly: Boolean(rc.sessionOnly),
    tokenOnly: Boolean(rc.tokenOnly),
    book: rc.book ? bookAccessExtension(rc.book) : null,
  };
}

function holds(scope: ErrorScope, r: RouteShape): boolean {
  switch (scope) {
    case 'every':
      return true;
    case 'signed_in':
      return r.signedIn;
    case 'session_write':
      return r.unsafe && r.signedIn;
    case 'session_only':
      return r.sessionOnly;
    case 'token_only':
      return r.tokenOnly;
    case 'write':
      return r.unsafe;
    case 'json_body':
      return r.unsafe && !r.multipart;
    case 'query':
      return r.query;
    case 'keyed':
      return r.keyed;
    case 'if_match':
      return r.ifMatch;
    case 'rate_limited':
      return r.rateLimited;
    case 'book':
      return r.book !== null;
    case 'book_role':
      return r.book !== null && r.book.min_role !== 'visible';
    case 'book_grace':
      return r.book?.grace_status != null;
    case 'book_feature':
      return r.book?.feature != null;
    case 'named':
    case 'outside':
      return false;
  }
}

/** The status a code is answered with on this route (book_grace_period: the action's grace status). */
function statusOn(code: ErrorCode, r: RouteShape): number {
  if (code === 'book_grace_period' && r.book?.grace_status) return r.book.grace_status;
  return ERROR_STATUS[code];
}

/** The catalogue's codes a route of this shape can answer; many routes share a shape, so each shape is worked out once. */
const codesByShape = new Map<string, ErrorCode[]>();
function catalogueCodes(r: RouteShape): ErrorCode[] {
  const key = JSON.stringify(r);
  let codes = codesByShape.get(key);
  if (!codes) {
    codes = ERROR_CODES.filter((code) => ERROR_CATALOGUE[code].where.some((scope) => holds(scope, r)));
    codesByShape.set(key, codes);
  }
  return codes;
}

export interface RouteErrors {
  /** Every error status the route can answer, ascending. */
  statuses: number[];
  /** The codes answered with each status. */
  codes: Map<number, ErrorCode[]>;
  /** Bare statuses in `config.errors` that no rule explains and several codes share: the route should name its codes. */
  unresolved: number[];
}

/**
 * Which codes, with which statuses, a route can answer: the catalogue's
 * scopes applied to the route's config, plus the codes and statuses it
 * names in `config.errors`. A route added later gets its errors the same way.
 */
export function errorsFor(route: RouteOptions): RouteErrors {
  const r = shapeOf(route);
  const declared = route.config?.errors ?? [];
  const codes = new Map<number, ErrorCode[]>();
  const add = (code: ErrorCode) => {
    const status = statusOn(code, r);
    const list = codes.get(status) ?? [];
    if (!list.includes(code)) codes.set(status, [...list, code]);
  };
  for (const code of catalogueCodes(r)) add(code);
  for (const x of declared) if (typeof x === 'string') add(x);
  const unresolved: number[] = [];
  for (const x of declared) {
    if (typeof x !== 'number' || codes.has(x)) continue;
    const candidates = ERROR_CODES.filter((c) => ERROR_STATUS[c] === x && !ERROR_CATALOGUE[c].where.includes('outside'));
    if (candidates.length !== 1) unresolved.push(x);
    codes.set(x, candidates);
  }
  const statuses = new Set(codes.keys());
  // A schema failure answers 422 {detail} on every route that reads a body.
  if (r.unsafe) statuses.add(422);
  return { statuses: [...statuses].sort((a, b) => a - b), codes, unresolved };
}

/** Which error statuses a route can answer, from its method and config; see errorsFor. */
export function errorStatusesFor(route: RouteOptions): number[] {
  return errorsFor(route).statuses;
}

function describeStatus(status: number, codes: ErrorCode[]): string {
  const title = STATUS_TITLES[status] ?? 'Error';
  return codes.length ? `${title}: ${codes.join(', ')}` : title;
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
  /** The statuses on which it sends ETag, Last-Modified, Location and Retry-After: its own declarations and its plugins' (see declaredHeadersOf). */
  headers: Record<DeclaredHeader, number[]>;
  /** The error codes each status answers (see errorsFor). */
  errorCodes: Map<number, ErrorCode[]>;
  /** Bare declared statuses the catalogue could not pin to one code. */
  unresolvedErrors: number[];
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
    const errs = errorsFor(route);
    const statuses = errs.statuses;
    for (const status of statuses) {
      if (response[status]) continue;
      const codes = errs.codes.get(status) ?? [];
      response[status] =
        status === 422
          ? codes.length
            ? { description: describeStatus(422, codes), anyOf: [{ $ref: 'ValidationError#' }, { $ref: 'ErrorEnvelope#' }] }
            : { description: 'Schema validation failed ({detail})', $ref: 'ValidationError#' }
          : { description: describeStatus(status, codes), $ref: 'ErrorEnvelope#' };
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
        headers: declaredHeadersOf(route),
        errorCodes: errs.codes,
        unresolvedErrors: errs.unresolved,
      });
    }
  });
}

/** Operations whose bare declared statuses the catalogue could not pin to one code (they should name their codes in `config.errors`). */
export function unresolvedErrors(app: FastifyInstance): Record<string, number[]> {
  const facts = factsByApp.get(app) ?? new Map<string, OperationFacts>();
  return Object.fromEntries([...facts].filter(([, f]) => f.unresolvedErrors.length).map(([id, f]) => [id, f.unresolvedErrors]));
}

/** Tags of the document, in this order; an operation's tag missing here is a lint warning (no description). */
const TAGS: { name: string; description: string }[] = [
  { name: 'auth', description: 'API keys: issue one from a browser session, revoke one or all, and see who is calling.' },
  { name: 'identity', description: 'Your profile, your quotas, and your own things across books: the books you belong to, your memories, your notification subscriptions.' },
  { name: 'billing', description: "The public plan catalog and a book's billing record." },
  { name: 'books', description: 'Memory books: create, list, read, update, archive, restore and delete them; your permissions on one.' },
  { name: 'submissions', description: 'The memories sent into a book, and their moderation: approve, reject, pin, unpin.' },
  { name: 'media', description: 'Photos, audio and video attached to submissions.' },
  { name: 'members', description: 'Who else works on a book, and in which role.' },
  { name: 'invitations', description: 'Invitations to join a book.' },
  { name: 'channels', description: 'How contributors reach a book: web, email, SMS, RCS, iMessage, WhatsApp and Telegram.' },
  { name: 'notifications', description: "Notification subscriptions: who hears about a book's new memories (each one, or a daily digest) and over which channel." },
  { name: 'exports', description: 'PDF, JSON and ZIP exports of a book.' },
  { name: 'events', description: 'What changed in your books (the last 30 days): the same events the webhooks send.' },
  { name: 'webhook_endpoints', description: 'Where your events are sent: signed (Standard Webhooks), retried, with a delivery log.' },
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
    // No example: a fixed one, sent twice, is 422 idempotency_key_reused.
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
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
  Location: {
    description: 'Where the resource lives: the one created (201), the job to poll (202), or, on a 308, this path with its trailing slash (the query kept).',
    required: true,
    schema: { type: 'string' },
    example: '/api/v1/books/grandma-turns-90/',
  },
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

/** The declared headers, in the order a response lists them. */
const DOCUMENTED_HEADERS = Object.entries(DECLARED_HEADERS).map(([key, h]) => [key as DeclaredHeader, h.name] as const);

const TWO_XX_FALLBACK: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No content' };

const ERROR_CODES_HEADING = '## Error codes\n\n';

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
          'body schema failures answer 422 {detail: [{loc, msg, type}]}. Paths end with a slash; the form without it answers 308 (code moved, not an error) with Location. ' +
          'Response objects may gain fields within v1: ignore the ones you do not know.\n\n' +
          ERROR_CODES_HEADING +
          'Each operation lists the codes it can answer under each status, with an example of each. ' +
          '`details` has one shape per code (the ErrorEnvelope schema, one variant per code); docs/errors.md in the repository says more.\n\n' +
          errorCatalogueTable(),
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
    uiConfig: {
      deepLinking: true,
      persistAuthorization: false,
      // The service's own page: no Swagger top bar (its logo and the document URL box).
      layout: 'BaseLayout',
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      // Runs in the browser (serialised into the page's script): every write sent from "Try it out" without a key gets a fresh one.
      requestInterceptor: freshIdempotencyKey,
    },
    theme: {
      title: 'Memory Book Integrator API reference',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: DOCS_ICON }],
    },
    validatorUrl: null,
    // The docs' copy of the document: the key may be left empty on this page, since the page adds one.
    transformSpecification: (spec: unknown) => docsPageDocument(spec as OpenApiDoc),
    staticCSP: DOCS_CSP,
  } as unknown as Parameters<typeof swaggerUi>[1]);
  const cataloguePage = errorCataloguePage();
  app.get(ERROR_CATALOGUE_PAGE, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-security-policy', DOCS_CSP).type('text/html; charset=utf-8').send(cataloguePage),
  );
}

/** The page's icon: an open book, in the service's colours. */
const DOCS_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#7a4b2a" d="M2 7c5-2 10-2 14 1v19c-4-3-9-3-14-1z"/>' +
  '<path fill="#b07a4f" d="M30 7c-5-2-10-2-14 1v19c4-3 9-3 14-1z"/></svg>';

/** The docs page's policy: scripts, styles, images and calls from the service itself only (no CDN, nothing inline). */
const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'self'; " +
  "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self'";

/** Swagger UI's request interceptor, run in the browser: a fresh Idempotency-Key for every write that has none. */
function freshIdempotencyKey(req: { method?: string; headers: Record<string, string> }) {
  const method = String(req.method || 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return req;
  if (Object.keys(req.headers).some((h) => h.toLowerCase() === 'idempotency-key' && req.headers[h])) return req;
  const c = globalThis.crypto;
  let key: string;
  if (typeof c.randomUUID === 'function') key = c.randomUUID();
  else {
    const b = c.getRandomValues(new Uint8Array(16));
    key = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }
  req.headers['Idempotency-Key'] = key;
  return req;
}

/** The document as the docs page shows it: Idempotency-Key optional there (the page sends a fresh one). */
function docsPageDocument(doc: OpenApiDoc): OpenApiDoc {
  // The page leads with the operations: the catalogue's long table is a link away (the document itself keeps it).
  const info = (doc as Json).info as { description?: string } | undefined;
  const at = info?.description?.indexOf(ERROR_CODES_HEADING) ?? -1;
  if (info?.description && at >= 0) {
    info.description =
      info.description.slice(0, at) +
      '## Error codes\n\n' +
      'Each operation lists the codes it can answer under each status, with an example of each. ' +
      `Every code, its meaning and what to do about it: [the error catalogue](${ERROR_CATALOGUE_PAGE}).`;
  }
  const key = doc.components?.parameters?.['Idempotency-Key'];
  if (key) {
    key.required = false;
    key.description = `Leave it empty on this page: each "Try it out" sends a fresh key. ${key.description}`;
  }
  return doc;
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
  const usedExamples = new Set<ErrorCode>();

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
        // Only what the route and its plugins declare they send on this status (the guard refuses anything else).
        for (const [header, name] of DOCUMENTED_HEADERS) if (f?.headers[header].includes(code)) names.push(name);
        if (f?.idempotent && (code < 300 || isStorable(code, null))) names.push('Idempotent-Replayed');
        if (code === 401) names.push('WWW-Authenticate');
        if (code === 405) names.push('Allow');
        // Every 429 says which limit it met (a route's own cap, e.g. unfinished exports, as well as a rate limit).
        if (f?.rateLimited || code === 429) names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining');
        if (f?.deprecated || op.deprecated) names.push('Deprecation', 'Sunset', 'Link');
        response.headers = Object.fromEntries(names.map((n) => [n, ref(n)]));
        const json = response.content?.['application/json'];
        if (code >= 400 && json) {
          const examples: Json = {};
          if (code === 422) examples.schema_validation = { $ref: '#/components/examples/schema_validation' };
          for (const c of f?.errorCodes.get(code) ?? []) {
            examples[c] = { $ref: `#/components/examples/${c}` };
            usedExamples.add(c);
          }
          if (Object.keys(examples).length) json.examples = examples;
        }
        // A route may give a 2xx its own example where the schema's is wrong for it (an export's 202 is pending, not complete).
        const own = op['x-response-examples']?.[status];
        if (own !== undefined && json) json.example = own;
      }
      delete op['x-response-examples'];
      // The router answers every operation's path without its trailing slash (see installFallbacks).
      op.responses[String(REDIRECT_TO_SLASHED.status)] = { $ref: '#/components/responses/Moved' };
    }
  }

  normalizeEnums(doc);
  documentErrors(doc, usedExamples);
  documentRedirect(doc, ref);

  doc.components.parameters = Object.fromEntries([...usedParameters].map((p) => [p, HEADER_PARAMETERS[p]]));
  doc.components.headers = Object.fromEntries(Object.keys(RESPONSE_HEADERS).filter((h) => usedHeaders.has(h)).map((h) => [h, RESPONSE_HEADERS[h]]));
  doc.tags = [
    ...TAGS.filter((t) => usedTags.has(t.name)),
    ...[...usedTags].filter((t) => !TAGS.some((x) => x.name === t)).map((name) => ({ name })),
  ];
  (doc as Json).webhooks = webhooksSection();
  // Top-level keys in the conventional order (info, servers, tags before paths) for a readable diff.
  const { openapi, info, servers, security, tags, paths, components, ...rest } = doc as Json;
  return { openapi, info, servers, security, tags, paths, components, ...rest } as OpenApiDoc;
}

/**
 * The router's 308 to the slashed path, as one shared response: not an
 * error, and answered for every operation's path written without its
 * slash. Its headers are the router's declaration.
 */
function documentRedirect(doc: OpenApiDoc, ref: (name: string) => Json): void {
  doc.components.schemas.Moved = plain(MovedBody);
  const headers: Json = { 'X-Request-Id': ref('X-Request-Id') };
  if (REDIRECT_TO_SLASHED.headers.location?.includes(REDIRECT_TO_SLASHED.status)) headers.Location = ref('Location');
  doc.components.responses = {
    Moved: {
      description: `${NOT_ERRORS.moved.meaning} ${NOT_ERRORS.moved.action}`,
      headers,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Moved' } } },
    },
  };
}

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_m, _s, ch: string) => ch.toUpperCase());
/** A TypeBox schema as plain JSON Schema (its symbols dropped). */
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema));
const EXAMPLE_REQUEST_ID = '5b0e6c1e-7d0a-4a3e-9a43-8f1f0f7d2c11';

/** The envelope a code answers, as the document's example of it. */
export function errorExample(code: ErrorCode) {
  const { message, details } = ERROR_CATALOGUE[code].example;
  return { code, message, details: details ?? null, request_id: EXAMPLE_REQUEST_ID };
}

/**
 * The error catalogue in the document: one named example per code
 * (components.examples, referenced by every operation that can answer it),
 * a `details` schema per code, and the envelope as one variant per code, so
 * generated clients narrow `details` by `code`. Documentation only: the
 * route schemas Fastify serialises with keep the plain envelope.
 */
function documentErrors(doc: OpenApiDoc, used: Set<ErrorCode>): void {
  const schemas = (doc.components.schemas ??= {});
  const envelopeCodes = ERROR_CODES;
  const variants = envelopeCodes.map((code) => {
    const info = ERROR_CATALOGUE[code];
    let details: Json = { type: 'null' };
    if (info.details) {
      const json = plain(info.details);
      const nullable = Array.isArray(json.anyOf) && json.anyOf.some((b: Json) => b.type === 'null');
      const object = nullable ? json.anyOf.find((b: Json) => b.type !== 'null') : json;
      const name = `${pascal(code)}Details`;
      schemas[name] = { title: name, description: `details of ${code}`, ...object };
      details = nullable ? { anyOf: [{ $ref: `#/components/schemas/${name}` }, { type: 'null' }] } : { $ref: `#/components/schemas/${name}` };
    }
    // Open like every response object: the envelope's own fields are the base schema's.
    return { title: `${pascal(code)}Error`, properties: { code: { type: 'string', enum: [code] }, details }, required: ['code', 'details'], additionalProperties: true };
  });
  const envelope = schemas.ErrorEnvelope;
  if (envelope) {
    schemas.ErrorEnvelope = {
      ...envelope,
      properties: { ...envelope.properties, code: { ...envelope.properties.code, type: 'string', enum: envelopeCodes } },
      oneOf: variants,
    };
  }
  doc.components.examples = {
    schema_validation: {
      summary: 'A body that does not match the schema',
      value: { detail: [{ loc: ['body', 'title'], msg: 'Field required', type: 'missing' }] },
    },
    ...Object.fromEntries(
      ERROR_CODES.filter((c) => used.has(c)).map((code) => [code, { summary: code, description: ERROR_CATALOGUE[code].meaning, value: errorExample(code) }]),
    ),
  };
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

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
