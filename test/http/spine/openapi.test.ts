import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { installErrorResponses, registerOpenApi } from '../../../src/http/openapi.js';
import '../../../src/http/route-config.js';
import { ErrorEnvelope, ValidationErrorBody } from '../../../src/http/schemas/common.js';
import { THEMES, USE_CASES } from '../../../src/services/books/book-types.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { createResponseValidator, strictResponses } from '../../helpers/openapi-validator.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op, where: `${method.toUpperCase()} ${path}` })),
  );
const deref = (node: any, kind: 'parameters' | 'headers' | 'schemas') =>
  typeof node?.$ref === 'string' ? doc.components[kind][node.$ref.split('/').pop()] : node;
const headerParams = (op: any) => (op.parameters ?? []).map((p: any) => deref(p, 'parameters')).filter((p: any) => p.in === 'header');
const bodySchema = (op: any) => op.requestBody?.content?.['application/json']?.schema;

/** Every schema object under `node`, depth first, with where it is. */
function* schemasIn(node: any, at: string): Generator<[any, string]> {
  if (!node || typeof node !== 'object') return;
  yield [node, at];
  for (const [k, v] of Object.entries<any>(node.properties ?? {})) yield* schemasIn(v, `${at}.${k}`);
  for (const k of ['items', 'additionalProperties', 'not']) if (node[k] && typeof node[k] === 'object') yield* schemasIn(node[k], `${at}.${k}`);
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) for (const [i, v] of (node[k] ?? []).entries()) yield* schemasIn(v, `${at}.${k}[${i}]`);
}
const responseSchemas = function* (): Generator<[any, string]> {
  for (const [name, s] of Object.entries(doc.components.schemas)) yield* schemasIn(s, `components.schemas.${name}`);
  for (const { op, where } of operations()) {
    for (const [status, r] of Object.entries<any>(op.responses)) yield* schemasIn(r.content?.['application/json']?.schema, `${where} ${status}`);
  }
};

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is committed as openapi.json at the repository root, up to date', () => {
    const served = JSON.stringify(doc, null, 2) + '\n';
    let committed = '';
    try {
      committed = readFileSync(path.join(REPO_ROOT, 'openapi.json'), 'utf8');
    } catch {
      /* missing: reported below */
    }
    if (served !== committed) {
      const a = served.split('\n');
      const b = committed.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(
        `openapi.json is stale: run \`npm run openapi:export\` and commit it.\n` +
          `  first difference at line ${line + 1}:\n  served:    ${a[line]?.trim()}\n  committed: ${b[line]?.trim() ?? '(end of file)'}`,
      );
    }
  });

  it('uses a relative server, so "Try it out" calls the origin the docs were opened from', () => {
    expect(doc.servers).toEqual([{ url: '/' }]);
  });

  it('names every operation (unique camelCase operationId, a described tag, summary)', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Map((doc.tags ?? []).map((x: any) => [x.name, x.description]));
    for (const { where, op } of operations()) {
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags) expect(tags.get(tag), `${where}: tag ${tag} has no description in the top-level tags`).toBeTruthy();
      expect(op.summary, where).toBeTruthy();
    }
  });

  it('documents the error envelope on every operation, and 401 wherever credentials are needed', () => {
    for (const { method, where, op } of operations()) {
      const statuses = Object.keys(op.responses);
      for (const s of ['400', '404', '405', '500', '503']) expect(statuses, where).toContain(s);
      const json = op.responses['404'].content['application/json'].schema;
      expect(json.$ref, where).toBe('#/components/schemas/ErrorEnvelope');
      const open = Array.isArray(op.security) && op.security.length === 0;
      if (!open) expect(statuses, where).toContain('401');
      if (method !== 'get') {
        for (const s of ['413', '415', '422']) expect(statuses, where).toContain(s);
      }
    }
    expect(Object.keys(doc.paths['/api/v1/books/{slug}/submissions/'].post.responses)).toContain('429');
  });

  it('describes every 2xx for what it is', () => {
    for (const { where, op } of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 300) expect(r.description, `${where} ${status}`).not.toMatch(/^(Default Response|OK|Success)$/);
      }
    }
    expect(doc.paths['/api/v1/books/'].post.responses['201'].description).toMatch(/^Created/);
  });

  it('declares the bearer and session security schemes, and every path with its trailing slash', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'sessionCookie']);
    expect(doc.components.schemas.ErrorEnvelope.required.sort()).toEqual(['code', 'details', 'message', 'request_id']);
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/api\/v1\/.*\/$/);
  });
});

describe('OpenAPI document: request headers and bodies', () => {
  it('declares Idempotency-Key (required, at most 200 characters) exactly where the server requires one', () => {
    for (const { where, op } of operations()) {
      const key = headerParams(op).find((p: any) => p.name === 'Idempotency-Key');
      // 428 idempotency_key_required is answered exactly where a key is needed.
      expect(Boolean(key), where).toBe('428' in op.responses);
      if (key) expect(key, where).toMatchObject({ required: true, schema: { type: 'string', maxLength: 200 } });
    }
    expect(headerParams(doc.paths['/api/v1/books/'].post).map((p: any) => p.name)).toEqual(['Idempotency-Key']);
    expect(headerParams(doc.paths['/api/v1/books/'].get)).toEqual([]);
  });

  it('declares an optional If-Match on the PATCH routes that honour it', () => {
    const withIfMatch = operations()
      .filter(({ op }) => headerParams(op).some((p: any) => p.name === 'If-Match' && p.required === false))
      .map(({ op }) => op.operationId)
      .sort();
    expect(withIfMatch).toEqual(['updateBook', 'updateProfile', 'updateSubmission', 'updateTranscription', 'updateWebhookEndpoint']);
  });

  it('keeps the headers out of validation: a missing key on a book the caller cannot see is still 404, then 428 for the owner', async () => {
    const owner = await newUser(t);
    const stranger = await newUser(t);
    const { slug } = await newBook(t, owner);
    const hidden = await t.post(`/api/v1/books/${slug}/archive/`, undefined, { token: stranger.token, idempotencyKey: false });
    expect(hidden.status).toBe(404);
    const keyless = await t.post(`/api/v1/books/${slug}/archive/`, undefined, { token: owner.token, idempotencyKey: false });
    expect(keyless.status).toBe(428);
    expect(keyless.body.code).toBe('idempotency_key_required');
  });

  it('declares no request body on body-less actions, an optional one on reject, and a body still answers 422', async () => {
    const bodyless = operations().filter(({ op }) => !op.requestBody && '428' in op.responses).map(({ op }) => op.operationId).sort();
    expect(bodyless).toEqual(
      expect.arrayContaining(['approveSubmission', 'archiveBook', 'deleteBook', 'deleteSubmission', 'pinSubmission', 'restoreBook', 'revokeAllApiTokens', 'revokeApiToken', 'unpinSubmission']),
    );
    const reject = doc.paths['/api/v1/books/{slug}/submissions/{id}/reject/'].post;
    expect(reject.requestBody.required).toBe(false);
    expect(Object.keys(bodySchema(reject).properties)).toEqual(['reason']);
    // Bodies whose every field is optional may be left out: reject's {reason}, the deletion code's {channel}, the one-click unsubscribe link's form,
    // and the actions whose request the contract writes as {} (an optional empty object, so a typed client may pass {}).
    const optionalBodies = ['rejectSubmission', 'sendDeletionCode', 'unsubscribeWithToken', 'requestAccountExport', 'unsubscribeFromStream'];
    for (const path of ['/api/v1/me/export/', '/api/v1/me/unsubscribe/{stream}/']) {
      const body = doc.paths[path].post.requestBody;
      expect(body.required, path).toBe(false);
      expect(bodySchema(doc.paths[path].post), path).toMatchObject({ type: ['object', 'null'], properties: {}, additionalProperties: false });
    }
    for (const { where, op } of operations()) if (op.requestBody && !optionalBodies.includes(op.operationId)) expect(op.requestBody.required, where).toBe(true);

    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const res = await t.post(`/api/v1/books/${slug}/archive/`, { surprise: 1 }, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'surprise']);
  });

  it('request bodies reject unknown fields', () => {
    for (const { where, op } of operations()) {
      const s = bodySchema(op);
      if (s?.properties) expect(s.additionalProperties, where).toBe(false);
    }
  });
});

describe('OpenAPI document: responses', () => {
  // A shared response (the router's 308) is referenced: its headers are those of components.responses.
  const responseOf = (r: any) => (r?.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r);
  const headersOf = (op: any, status: string) => Object.keys(responseOf(op.responses[status])?.headers ?? {});

  it('declares the headers each response sends, by reference', () => {
    for (const { where, op } of operations()) {
      expect(op.responses['308'], where).toEqual({ $ref: '#/components/responses/Moved' });
      for (const [status, shared] of Object.entries<any>(op.responses)) {
        const r = responseOf(shared);
        expect(headersOf(op, status), `${where} ${status}`).toContain('X-Request-Id');
        for (const [name, h] of Object.entries<any>(r.headers)) {
          expect(h.$ref, `${where} ${status} ${name}`).toBe(`#/components/headers/${name}`);
          expect(doc.components.headers[name], name).toBeTruthy();
        }
      }
      if (op.responses['401']) expect(headersOf(op, '401'), where).toContain('WWW-Authenticate');
      expect(headersOf(op, '405'), where).toContain('Allow');
      expect(headersOf(op, '503'), where).toContain('Retry-After');
      if (op.responses['429']) expect(headersOf(op, '429'), where).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']));
      if (op.responses['201']) expect(headersOf(op, '201'), where).toContain('Location');
      if ('428' in op.responses) {
        expect(headersOf(op, '409'), where).toContain('Retry-After');
        for (const s of Object.keys(op.responses).filter((x) => Number(x) < 300)) expect(headersOf(op, s), `${where} ${s}`).toContain('Idempotent-Replayed');
      }
    }
    const p = (path: string, method = 'get') => doc.paths[`/api/v1${path}`][method];
    expect(headersOf(p('/books/{slug}/'), '200')).toContain('ETag');
    expect(headersOf(p('/books/{slug}/', 'patch'), '200')).toContain('ETag');
    expect(headersOf(p('/books/', 'post'), '201')).toEqual(expect.arrayContaining(['ETag', 'Location']));
    expect(headersOf(p('/me/'), '200')).toContain('ETag');
    expect(headersOf(p('/books/{slug}/submissions/{id}/approve/', 'post'), '200')).toContain('ETag');
    expect(headersOf(p('/books/'), '200')).toEqual(expect.arrayContaining(['Last-Modified']));
    expect(headersOf(p('/books/'), '200')).not.toContain('ETag');
    expect(headersOf(p('/books/{slug}/submissions/'), '200')).toContain('Last-Modified');
    expect(headersOf(p('/books/{slug}/', 'delete'), '202')).toContain('Retry-After');
    // The router's 308 to the slashed path: its body is the Moved schema, Location says where.
    expect(doc.components.responses.Moved.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Moved' });
    expect(headersOf(p('/books/'), '308')).toEqual(['X-Request-Id', 'Location']);
  });

  it('declares Deprecation, Sunset and Link on every response of a deprecated route', async () => {
    const app = Fastify();
    app.addSchema(ErrorEnvelope);
    app.addSchema(ValidationErrorBody);
    installErrorResponses(app);
    await registerOpenApi(app);
    const deprecated = { since: new Date('2026-12-01T00:00:00Z'), sunset: new Date('2027-03-15T00:00:00Z'), link: 'https://docs.example/migrate' };
    await app.register(
      async (api) => {
        api.get('/old/', { schema: { operationId: 'oldThing', tags: ['books'], summary: 'Old', response: { 200: { type: 'object', description: 'Old' } } }, config: { deprecated } }, async () => ({}));
        api.get('/new/', { schema: { operationId: 'newThing', tags: ['books'], summary: 'New', response: { 200: { type: 'object', description: 'New' } } } }, async () => ({}));
      },
      { prefix: '/api/v1' },
    );
    await app.ready();
    const small = app.swagger() as any;
    await app.close();
    for (const [status, r] of Object.entries<any>(small.paths['/api/v1/old/'].get.responses)) {
      // The 308 is the router's (the path without its slash), answered before any route runs: no deprecation headers.
      if (status === '308') continue;
      expect(Object.keys(r.headers), status).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    }
    expect(Object.keys(small.paths['/api/v1/new/'].get.responses['200'].headers)).toEqual(['X-Request-Id']);
    expect(Object.keys(small.components.headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
  });

  it('response schemas allow unknown fields; the test harness still checks them strictly', () => {
    for (const [s, at] of responseSchemas()) expect(s.additionalProperties, at).not.toBe(false);
    const strict = strictResponses(doc);
    expect(strict.components.schemas.Book.additionalProperties).toBe(false);
    expect(doc.components.schemas.Book.additionalProperties).toBeUndefined();
  });

  it('the harness rejects a header a response sends undeclared, and a required one missing', () => {
    const validate = createResponseValidator(doc);
    const plans = JSON.stringify({ items: [], next_cursor: null, has_more: false });
    expect(validate('GET', '/api/v1/plans/', 200, 'application/json', plans, { 'x-request-id': 'r' })).toEqual([]);
    expect(validate('GET', '/api/v1/plans/', 200, 'application/json', plans, { 'x-request-id': 'r', etag: '"x"' })).toEqual([
      expect.stringMatching(/ETag header, which the document does not declare/),
    ]);
    expect(validate('GET', '/api/v1/books/', 200, 'application/json', plans, { 'x-request-id': 'r' })).toEqual([expect.stringMatching(/Last-Modified is always sent/)]);
    expect(validate('GET', '/api/v1/plans/', 200, 'application/json', JSON.stringify({ items: [], next_cursor: null, has_more: false, extra: 1 }), { 'x-request-id': 'r' })).toEqual([
      expect.stringMatching(/must NOT have additional properties/),
    ]);
  });

  it('writes every enum one way (a string enum), and lists the themes and use cases', () => {
    const literal = (b: any) => 'const' in b || (Array.isArray(b.enum) && b.enum.length === 1);
    const all = [...responseSchemas(), ...operations().flatMap(({ op, where }) => [...schemasIn(bodySchema(op), `${where} body`)])];
    for (const [s, at] of all) if (Array.isArray(s.anyOf)) expect(s.anyOf.every(literal), `${at}: a union of literals`).toBe(false);
    for (const { where, op } of operations()) for (const p of op.parameters ?? []) if (p.schema?.anyOf) expect(p.schema.anyOf.every(literal), `${where} ${p.name}`).toBe(false);

    const book = doc.components.schemas.Book.properties;
    expect(book.theme.enum).toEqual([...THEMES]);
    expect(book.use_case_slug.enum).toEqual([...USE_CASES, null]);
    for (const method of ['post', 'patch']) {
      const body = bodySchema(doc.paths[method === 'post' ? '/api/v1/books/' : '/api/v1/books/{slug}/'][method]).properties;
      expect(body.theme.enum).toEqual([...THEMES]);
      expect(body.use_case_slug.enum).toEqual([...USE_CASES, null]);
      expect(body.theme['x-unknown-value']).toMatch(/^400 validation_failed/);
    }
  });

  it('the theme enum is documentation: an unknown theme still answers 400 validation_failed with details.offered', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: 'x', theme: 'neon' }, { token: u.token });
    expect(res.status).toBe(400);
    expect(res.body.details.offered).toEqual([...THEMES]);
  });

  it('gives the main schemas examples that match them', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(strictResponses(doc), 'openapi.json');
    for (const name of ['Book', 'Submission', 'MediaSummary', 'ErrorEnvelope', 'ValidationError']) {
      const examples = doc.components.schemas[name].examples;
      expect(examples?.length, name).toBeGreaterThan(0);
      const v = ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
      for (const e of examples) expect(v(e) ? [] : v.errors, name).toEqual([]);
    }
    // An inline response schema's example moves to its media type.
    const profile = ajv.getSchema('openapi.json#/paths/~1api~1v1~1me~1/get/responses/200/content/application~1json/schema')!;
    const example = doc.paths['/api/v1/me/'].get.responses['200'].content['application/json'].example;
    expect(example, 'Profile').toBeTruthy();
    expect(profile(example) ? [] : profile.errors, 'Profile').toEqual([]);
  });
});
