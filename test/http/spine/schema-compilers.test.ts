import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifySchemaCompiler } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileDeferredSchemas, createSchemaCompilers } from '../../../src/http/validation.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';

describe('the whole app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });

  it('compiles every validator and serializer on demand, each once (what used to fail the start fails here)', async () => {
    const user = await newUser(t);
    const book = await newBook(t, user);
    const before = await t.get(`/api/v1/books/${book.slug}/`, { token: user.token });
    expect(before.status).toBe(200);
    expect(compileDeferredSchemas(t.app)).toBeGreaterThan(300);
    expect(compileDeferredSchemas(t.app)).toBe(0);
    const after = await t.get(`/api/v1/books/${book.slug}/`, { token: user.token });
    expect(after.text).toBe(before.text);
  });
});

/** The app's Ajv options, compiled when the route is ready: what Fastify did before the compilers were deferred. */
function eagerValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = new Ajv.default({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes: false, strict: false });
  const query = new Ajv.default({ allErrors: false, removeAdditional: false, useDefaults: true, coerceTypes: 'array', strict: false });
  addFormats.default(body);
  addFormats.default(query);
  return ({ schema, httpPart }) => (httpPart === 'body' ? body : query).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
}

const Item = {
  $id: 'Item',
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['id', 'name'],
};

async function sampleApp(mode: 'deferred' | 'eager'): Promise<FastifyInstance> {
  const compilers = createSchemaCompilers();
  const app = Fastify(mode === 'deferred' ? { schemaController: { compilersFactory: compilers.compilersFactory } } : {});
  app.setValidatorCompiler(mode === 'deferred' ? compilers.validatorCompiler : eagerValidatorCompiler());
  app.addSchema(Item);
  app.post(
    '/items/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
        querystring: { type: 'object', properties: { tag: { type: 'array', items: { type: 'string' } }, limit: { type: 'integer', default: 20 } } },
        body: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' }, flag: { type: 'boolean', default: false } },
          required: ['name'],
          additionalProperties: false,
        },
        response: {
          200: { type: 'object', properties: { item: { $ref: 'Item#' }, limit: { type: 'integer' }, flag: { type: 'boolean' } } },
          400: { type: 'object', properties: { errors: { type: 'array', items: { type: 'object', additionalProperties: true } } } },
        },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) return reply.code(400).send({ errors: request.validationError.validation });
      const { id } = request.params as { id: number };
      const { tag, limit } = request.query as { tag: string[]; limit: number };
      const { name, flag } = request.body as { name: string; flag: boolean };
      return { item: { id, name, tags: tag, secret: 'never sent' }, limit, flag, extra: 'dropped' };
    },
  );
  await app.ready();
  return app;
}

describe('deferred compilers', () => {
  const requests = [
    { url: '/items/7?tag=a', payload: { name: 'x' } },
    { url: '/items/7?tag=a&tag=b&limit=5', payload: { name: 'x', flag: true } },
    { url: '/items/0?limit=many', payload: { name: 'x' } },
    { url: '/items/7', payload: { name: '', email: 'nope', flag: 'true', other: 1 } },
    { url: '/items/7', payload: {} },
  ];

  it('validate, coerce, default and serialise exactly as compiling at ready does', async () => {
    const deferred = await sampleApp('deferred');
    const eager = await sampleApp('eager');
    try {
      for (const r of requests) {
        const [a, b] = await Promise.all([deferred, eager].map((app) => app.inject({ method: 'POST', ...r })));
        expect({ url: r.url, status: a.statusCode, body: a.body }).toEqual({ url: r.url, status: b.statusCode, body: b.body });
      }
    } finally {
      await deferred.close();
      await eager.close();
    }
  });

  it('compile nothing until used, then each schema once', async () => {
    const app = await sampleApp('deferred');
    try {
      await app.inject({ method: 'POST', ...requests[0] });
      // Left: the 400 serializer (the request above was valid), and the HEAD-less route has nothing else.
      expect(compileDeferredSchemas(app)).toBe(1);
      expect(compileDeferredSchemas(app)).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('fail the first request of a route whose schema cannot compile, and compileDeferredSchemas throws', async () => {
    const compilers = createSchemaCompilers();
    const app = Fastify({ schemaController: { compilersFactory: compilers.compilersFactory } });
    app.setValidatorCompiler(compilers.validatorCompiler);
    app.get('/broken', { schema: { response: { 200: { $ref: 'Missing#' } } } }, async () => ({ ok: true }));
    await app.ready();
    try {
      expect((await app.inject({ method: 'GET', url: '/broken' })).statusCode).toBe(500);
      expect(() => compileDeferredSchemas(app)).toThrow(/Missing/);
    } finally {
      await app.close();
    }
  });
});
