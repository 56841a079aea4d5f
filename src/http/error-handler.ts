import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorEnvelope } from '../errors.js';
import { translatePgError } from '../db/pg-errors.js';
import { noteOutage, outageOf } from './dependency-outage.js';
import { RESOURCE_HEADERS } from './response-headers.js';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

function pathOf(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

const TYPE_NAMES: Record<string, string> = { string: 'string', integer: 'int', number: 'float', boolean: 'bool', object: 'dict', array: 'list', null: 'none' };

function describe(e: AjvError): { extra?: string; msg: string; type: string } {
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return { extra: String(p.missingProperty), msg: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return { extra: String(p.additionalProperty), msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'type': {
      const t = String(p.type).split(',').find((x) => x !== 'null') ?? String(p.type);
      return { msg: `Input should be a valid ${t}`, type: `${TYPE_NAMES[t] ?? t}_type` };
    }
    case 'enum':
      return { msg: `Input should be ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`, type: 'enum' };
    case 'const':
      return { msg: `Input should be ${JSON.stringify(p.allowedValue)}`, type: 'literal_error' };
    case 'maxLength':
      return { msg: `String should have at most ${p.limit} characters`, type: 'string_too_long' };
    case 'minLength':
      return { msg: `String should have at least ${p.limit} characters`, type: 'string_too_short' };
    case 'maximum':
      return { msg: `Input should be less than or equal to ${p.limit}`, type: 'less_than_equal' };
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${p.limit}`, type: 'greater_than_equal' };
    case 'maxItems':
      return { msg: `List should have at most ${p.limit} items`, type: 'too_long' };
    case 'maxProperties':
      return { msg: `Object should have at most ${p.limit} properties`, type: 'too_long' };
    case 'pattern':
    case 'format':
      return { msg: `String should match ${e.keyword === 'format' ? `format "${p.format}"` : 'the expected pattern'}`, type: 'string_pattern_mismatch' };
    default:
      return { msg: e.message ?? 'Invalid value', type: 'value_error' };
  }
}

/** Ajv errors as `{loc, msg, type}`, one entry per offending field (the deepest, most specific error wins). */
export function toValidationDetails(errors: AjvError[], root: string): ValidationDetail[] {
  const byLoc = new Map<string, ValidationDetail>();
  const combinators = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'not']);
  for (const e of errors) {
    if (combinators.has(e.keyword)) continue;
    const d = describe(e);
    const loc = [root, ...pathOf(e.instancePath), ...(d.extra !== undefined ? [d.extra] : [])];
    const k = JSON.stringify(loc);
    if (!byLoc.has(k)) byLoc.set(k, { loc, msg: d.msg, type: d.type });
  }
  if (byLoc.size === 0 && errors.length) {
    const e = errors[0];
    const loc = [root, ...pathOf(e.instancePath)];
    byLoc.set(JSON.stringify(loc), { loc, msg: e.message ?? 'Invalid value', type: 'value_error' });
  }
  return [...byLoc.values()];
}

/** Headers that describe a resource made or sent, set by a handler before it failed: the declared ones that do (RESOURCE_HEADERS). */
export const SUCCESS_HEADERS = RESOURCE_HEADERS;

function envelope(request: FastifyRequest, code: string, message: string, details: Record<string, unknown> | null): ErrorEnvelope {
  return { code, message, details, request_id: String(request.id) };
}

/** The one place errors become responses: the envelope for 4xx/5xx, `{detail}` for body schema failures. */
export function errorHandler(err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) {
  // A handler that failed late (its transaction's COMMIT cut off by an outage) may have named what it made: an error names nothing.
  for (const h of SUCCESS_HEADERS) reply.removeHeader(h);
  if (err instanceof AppError) {
    // An outage, not a bug: the operator sees which dependency, the client a 503 with Retry-After.
    if (err.dependency) noteOutage(request, err);
    request.errorCode = err.code;
    request.errorTransient = err.transient;
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    return reply.code(err.status).send(envelope(request, err.code, err.message, err.details));
  }

  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation) {
    const ctx = fe.validationContext ?? 'body';
    if (ctx === 'params') {
      request.errorCode = 'not_found';
      return reply.code(404).send(envelope(request, 'not_found', 'The requested resource was not found.', null));
    }
    if (ctx === 'querystring') {
      const first = fe.validation[0];
      const param =
        pathOf(first.instancePath)[0]?.toString() ??
        String(first.params.additionalProperty ?? first.params.missingProperty ?? '');
      const value = (request.query as Record<string, unknown> | undefined)?.[param] ?? null;
      request.errorCode = 'query_param_invalid';
      return reply
        .code(400)
        .send(envelope(request, 'query_param_invalid', `Query parameter "${param}" is invalid.`, { param, value: rawQueryValue(request, param) ?? value }));
    }
    if (ctx === 'headers') {
      request.errorCode = 'bad_request';
      return reply.code(400).send(envelope(request, 'bad_request', 'A request header is invalid.', null));
    }
    request.errorCode = 'validation_error';
    return reply.code(422).send({ detail: toValidationDetails(fe.validation, ctx) });
  }

  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return sendCode(request, reply, 'unsupported_media_type', 'Send the body as application/json.', {
        content_type: request.headers['content-type'] ?? null,
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendCode(request, reply, 'payload_too_large', 'The request body is too large.', null);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendCode(request, reply, 'invalid_json', 'The request body is not valid JSON.', null);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendCode(request, reply, 'bad_request', 'The Content-Length header does not match the body.', null);
  }
  if (err instanceof SyntaxError || fe.statusCode === 400) {
    return sendCode(request, reply, err instanceof SyntaxError ? 'invalid_json' : 'bad_request', err instanceof SyntaxError ? 'The request body is not valid JSON.' : 'The request is malformed.', null);
  }
  if (fe.statusCode === 413) return sendCode(request, reply, 'payload_too_large', 'The request body is too large.', null);
  if (fe.statusCode === 415) return sendCode(request, reply, 'unsupported_media_type', 'Unsupported Content-Type.', null);

  // A database error no service translated, but one the client can act on (a conflict, a timeout): never a 500.
  const fromDb = translatePgError(err);
  if (fromDb) {
    request.log.warn({ err, request_id: request.id, code: fromDb.code }, 'database error answered without a service translating it');
    return errorHandler(fromDb, request, reply);
  }

  // A lost database connection that reached here without passing the Db (a driver's own error): an outage too.
  const outage = outageOf(err);
  if (outage) return errorHandler(outage, request, reply);

  // Anything else is our fault: log everything, tell the client nothing but the request id.
  request.log.error({ err, request_id: request.id }, 'unhandled error');
  request.errorCode = 'internal_error';
  return reply.code(500).send(envelope(request, 'internal_error', 'An internal error occurred. Quote the request_id when reporting it.', null));
}

function sendCode(request: FastifyRequest, reply: FastifyReply, code: keyof typeof ERROR_STATUS, message: string, details: Record<string, unknown> | null) {
  request.errorCode = code;
  return reply.code(ERROR_STATUS[code]).send(envelope(request, code, message, details));
}

function rawQueryValue(request: FastifyRequest, param: string): string | null {
  const qs = request.url.split('?')[1];
  if (!qs) return null;
  return new URLSearchParams(qs).get(param);
}
