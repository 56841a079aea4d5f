/**
 * ETag, Last-Modified, Location and Retry-After are sent only where a route
 * (its config) or a plugin that wraps it declares them, and the document
 * lists them from those declarations: an undeclared one is refused (an error
 * where mistakes should be loud, a logged error and no header in production).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { errors } from '../../../src/errors.js';
import { errorHandler, SUCCESS_HEADERS } from '../../../src/http/error-handler.js';
import { DECLARED_HEADERS } from '../../../src/http/header-declarations.js';
import { installErrorResponses, registerOpenApi } from '../../../src/http/openapi.js';
import { REPLAYED_HEADERS } from '../../../src/http/plugins/idempotency.js';
import { checkDeclaredHeaders, installHeaderGuard, setEtag, setLocation } from '../../../src/http/response-headers.js';
import '../../../src/http/route-config.js';
import { ErrorEnvelope, ValidationErrorBody } from '../../../src/http/schemas/common.js';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';

const Thing = { type: 'object', properties: { etag: { type: 'string' } }, description: 'A thing' } as const;

/** A small API with the real guard, error handler and document: routes that declare their headers, and routes that forget to. */
async function smallApi(throws: boolean, log?: string[]): Promise<FastifyInstance> {
  const logger = log ? { level: 'error', stream: new Writable({ write: (chunk, _enc, done) => (log.push(String(chunk)), done()) }) } : false;
  const app = Fastify({ logger });
  app.addSchema(ErrorEnvelope);
  app.addSchema(ValidationErrorBody);
  installErrorResponses(app);
  installHeaderGuard(app, { throws });
  app.setErrorHandler(errorHandler);
  await registerOpenApi(app);
  await app.register(
    async (api) => {
      api.addHook('onSend', checkDeclaredHeaders);
      const read = (operationId: string) => ({ operationId, tags: ['books'], summary: operationId, response: { 200: Thing } });
      api.get('/declared/', { schema: read('declaredThing'), config: { auth: 'none', etag: [200] } }, async (_request, reply) => {
        setEtag(reply, '"1"');
        return { etag: '"1"' };
      });
      api.get('/forgot-etag/', { schema: read('forgotEtag'), config: { auth: 'none' } }, async (_request, reply) => {
        setEtag(reply, '"1"');
        return { etag: '"1"' };
      });
      // Set by hand, past the helper: the onSend guard still sees it.
      api.get('/hand-set-location/', { schema: read('handSetLocation'), config: { auth: 'none' } }, async (_request, reply) => {
        reply.header('location', '/elsewhere/');
        return { etag: '"1"' };
      });
      // A 429 from a route's own cap: Retry-After only where declared (no rate-limit plugin wraps these).
      api.get('/own-cap/', { schema: read('ownCap'), config: { auth: 'none', errors: [429], retryAfter: [429] } }, async () => {
        throw errors.rateLimited(7);
      });
      api.get('/own-cap-undeclared/', { schema: read('ownCapUndeclared'), config: { auth: 'none', errors: [429] } }, async () => {
        throw errors.rateLimited(7);
      });
      api.post(
        '/made/',
        { schema: { operationId: 'makeThing', tags: ['books'], summary: 'Make', response: { 201: Thing } }, config: { auth: 'none', location: [201] } },
        async (_request, reply) => {
          setLocation(reply.code(201), '/api/v1/made/1/');
          return { etag: '"1"' };
        },
      );
    },
    { prefix: '/api/v1' },
  );
  await app.ready();
  return app;
}

describe('declared response headers: the guard', () => {
  it('sends a declared header, and refuses an undeclared one with a 500 where mistakes are loud', async () => {
    const app = await smallApi(true);
    try {
      const ok = await app.inject({ method: 'GET', url: '/api/v1/declared/' });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers.etag).toBe('"1"');

      const made = await app.inject({ method: 'POST', url: '/api/v1/made/' });
      expect(made.statusCode).toBe(201);
      expect(made.headers.location).toBe('/api/v1/made/1/');

      for (const url of ['/api/v1/forgot-etag/', '/api/v1/hand-set-location/']) {
        const refused = await app.inject({ method: 'GET', url });
        expect(refused.statusCode, url).toBe(500);
        expect(refused.json().code, url).toBe('internal_error');
        expect(refused.headers.etag, url).toBeUndefined();
        expect(refused.headers.location, url).toBeUndefined();
      }

      const capped = await app.inject({ method: 'GET', url: '/api/v1/own-cap/' });
      expect(capped.statusCode).toBe(429);
      expect(capped.headers['retry-after']).toBe('7');
      const undeclared = await app.inject({ method: 'GET', url: '/api/v1/own-cap-undeclared/' });
      expect(undeclared.statusCode).toBe(500);
      expect(undeclared.headers['retry-after']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('in production answers without the undeclared header and logs an error naming the route', async () => {
    const log: string[] = [];
    const app = await smallApi(false, log);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/forgot-etag/' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ etag: '"1"' });
      expect(res.headers.etag).toBeUndefined();
      const capped = await app.inject({ method: 'GET', url: '/api/v1/own-cap-undeclared/' });
      expect(capped.statusCode).toBe(429);
      expect(capped.headers['retry-after']).toBeUndefined();
      const lines = log.map((l) => JSON.parse(l));
      expect(lines.map((l) => l.msg)).toEqual([
        expect.stringMatching(/^GET \/api\/v1\/forgot-etag\/ sends ETag on 200 without declaring it/),
        expect.stringMatching(/^GET \/api\/v1\/own-cap-undeclared\/ sends Retry-After on 429 without declaring it/),
      ]);
      expect(lines.every((l) => l.level === 50)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('documents exactly what is declared: the route, and the plugins that wrap it', async () => {
    const app = await smallApi(true);
    const doc = app.swagger() as any;
    await app.close();
    const headers = (path: string, method: string, status: string) => Object.keys(doc.paths[`/api/v1${path}`][method].responses[status].headers ?? {});
    expect(headers('/declared/', 'get', '200')).toContain('ETag');
    expect(headers('/forgot-etag/', 'get', '200')).not.toContain('ETag');
    expect(headers('/hand-set-location/', 'get', '200')).not.toContain('Location');
    expect(headers('/made/', 'post', '201')).toContain('Location');
    expect(headers('/own-cap/', 'get', '429')).toContain('Retry-After');
    expect(headers('/own-cap-undeclared/', 'get', '429')).not.toContain('Retry-After');
    // The outage declares 503 with Retry-After on every route; the idempotency plugin its 409 on keyed routes only (none here).
    for (const path of ['/declared/', '/forgot-etag/']) expect(headers(path, 'get', '503')).toContain('Retry-After');
    expect(doc.paths['/api/v1/made/'].post.responses['409']).toBeUndefined();
  });
});

describe('declared response headers: the lists that follow them', () => {
  it('a replay carries every declared header; an error answer drops those that describe a resource', () => {
    for (const h of Object.values(DECLARED_HEADERS)) expect(REPLAYED_HEADERS).toContain(h.name.toLowerCase());
    expect([...SUCCESS_HEADERS].sort()).toEqual(['etag', 'last-modified', 'location']);
  });

  it('a replayed create answers the same ETag and Location as the first, on the real service', async () => {
    const t = await buildTestApp();
    const owner = await newUser(t);
    const key = crypto.randomUUID();
    const first = await t.post('/api/v1/books/', { title: 'Grandma turns 90' }, { token: owner.token, idempotencyKey: key });
    expect(first.status).toBe(201);
    const again = await t.post('/api/v1/books/', { title: 'Grandma turns 90' }, { token: owner.token, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.location).toBe(first.headers.location);
    // A read of the book sends the ETag its route declares; the unslashed path is the router's 308 (Moved, with Location).
    const slug = first.body.slug;
    expect((await t.get(`/api/v1/books/${slug}/`, { token: owner.token })).headers.etag).toBeTruthy();
    const moved = await t.get(`/api/v1/books/${slug}`, { token: owner.token });
    expect(moved.status).toBe(308);
    expect(moved.headers.location).toBe(`/api/v1/books/${slug}/`);
    expect(moved.body.code).toBe('moved');
  });
});
