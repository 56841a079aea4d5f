import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { addDeprecationHeaders, assertValidDeprecation, deprecationHeaders } from '../../../src/http/deprecation.js';
import { installErrorResponses, registerOpenApi } from '../../../src/http/openapi.js';
import '../../../src/http/route-config.js';
import { ErrorEnvelope, ValidationErrorBody } from '../../../src/http/schemas/common.js';

const since = new Date('2026-12-01T00:00:00Z');
const sunset = new Date('2027-03-15T00:00:00Z');

/** A small app built from the same pieces as the real one, with one route marked deprecated. */
async function appWithDeprecatedRoute() {
  const app = Fastify();
  app.addSchema(ErrorEnvelope);
  app.addSchema(ValidationErrorBody);
  installErrorResponses(app);
  await registerOpenApi(app);
  await app.register(
    async (api) => {
      api.addHook('onRequest', addDeprecationHeaders);
      api.get('/old/', { schema: { operationId: 'oldThing', response: { 200: { type: 'object' } } }, config: { auth: 'none', deprecated: { since, sunset, link: 'https://docs.example/migrate' } } }, async () => ({}));
      api.get('/new/', { schema: { operationId: 'newThing', response: { 200: { type: 'object' } } }, config: { auth: 'none' } }, async () => ({}));
    },
    { prefix: '/api/v1' },
  );
  await app.ready();
  return app;
}

describe('route deprecation', () => {
  it('emits Deprecation (RFC 9745 structured date), Sunset (HTTP-date) and a deprecation Link', async () => {
    const app = await appWithDeprecatedRoute();
    const res = await app.inject({ method: 'GET', url: '/api/v1/old/' });
    expect(res.headers.deprecation).toBe(`@${since.getTime() / 1000}`);
    expect(res.headers.sunset).toBe('Mon, 15 Mar 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('<https://docs.example/migrate>; rel="deprecation"; type="text/html"');
    const fresh = await app.inject({ method: 'GET', url: '/api/v1/new/' });
    expect(fresh.headers.deprecation).toBeUndefined();
    expect(fresh.headers.sunset).toBeUndefined();
    await app.close();
  });

  it('marks the operation deprecated in the OpenAPI document', async () => {
    const app = await appWithDeprecatedRoute();
    const doc = app.swagger() as { paths: Record<string, { get: { deprecated?: boolean } }> };
    expect(doc.paths['/api/v1/old/'].get.deprecated).toBe(true);
    expect(doc.paths['/api/v1/new/'].get.deprecated).toBeUndefined();
    await app.close();
  });

  it('refuses a sunset less than 90 days after the deprecation, at registration', () => {
    expect(() => assertValidDeprecation('/x/', { since, sunset: new Date('2027-01-15T00:00:00Z') })).toThrow(/90 days/);
    expect(() => assertValidDeprecation('/x/', { since, sunset })).not.toThrow();
    expect(deprecationHeaders({ since, sunset }).link).toBeUndefined();
  });
});
