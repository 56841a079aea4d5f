import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { errors } from '../errors.js';
import type { ValidationDetail } from './error-handler.js';

export const MAX_JSON_DEPTH = 64;

type JsonPath = (string | number)[];

declare module 'fastify' {
  interface FastifyRequest {
    /** Where the JSON body holds a string (or key) with U+0000; answered 422 where schema validation runs. */
    jsonNulLocations: JsonPath[] | null;
  }
}

/** True when brackets nest deeper than `max` (strings skipped); no body of ours needs more, and deeper ones only cost stack. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Every place in a parsed JSON value where a string or an object key contains U+0000, as paths from the root. */
export function findNulStrings(value: unknown, at: JsonPath = [], found: JsonPath[] = []): JsonPath[] {
  if (typeof value === 'string') {
    if (value.includes('\0')) found.push(at);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => findNulStrings(item, [...at, i], found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = [...at, key];
      const badKey = key.includes('\0');
      if (badKey) found.push(path);
      // A string under a bad key has the same location; report it once.
      if (!(badKey && typeof item === 'string')) findNulStrings(item, path, found);
    }
  }
  return found;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Installs the JSON body parser on the root (web pages keep their form
 * parser too) and returns the setup for JSON-only scopes. Bodies are read as
 * bytes so invalid UTF-8 is refused instead of silently replaced. Empty
 * bodies are "no body" (POST …/archive/ with Content-Type set); bad bytes,
 * bad JSON and absurd nesting are 400 invalid_json. A string holding U+0000
 * (PostgreSQL refuses it in text and jsonb) is only noted here: it is a
 * schema failure, answered by `rejectNulStrings` after authentication, book
 * access and the idempotency claim, as the contract orders them.
 */
export function installJsonBody(app: FastifyInstance): (scope: FastifyInstance) => void {
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  type Done = (err: Error | null, body?: unknown) => void;
  const parseJson = (request: FastifyRequest, body: Buffer, done: Done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body);
    } catch {
      return done(errors.invalidJson('The request body is not valid UTF-8.'));
    }
    if (text.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      return done(errors.invalidJson(`The request body is JSON nested deeper than ${MAX_JSON_DEPTH} levels.`));
    }
    defaultJson(request, text, (err: Error | null, parsed?: unknown) => {
      if (err) return done(err);
      // Only an escape can put U+0000 in a parsed string (a raw one is invalid JSON), so most bodies skip the walk.
      if (text.includes('\\u0000')) {
        const found = findNulStrings(parsed);
        if (found.length) request.jsonNulLocations = found;
      }
      done(null, parsed);
    });
  };

  app.decorateRequest('jsonNulLocations', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
  // The API speaks JSON only (multipart is added by the upload routes); web pages keep form bodies.
  return (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
    scope.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'buffer' }, parseJson);
  };
}

/** preValidation (a callback hook): a body with U+0000 in a string is a 422 naming each such field; nothing reaches the route. */
export function rejectNulStrings(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
  const locations = request.jsonNulLocations;
  if (!locations) return done();
  request.errorCode = 'validation_error';
  const detail: ValidationDetail[] = locations.map((at) => ({
    loc: ['body', ...at],
    msg: 'String must not contain the NUL character (U+0000)',
    type: 'string_nul',
  }));
  reply.code(422).send({ detail }); // answered: the request goes no further
}
