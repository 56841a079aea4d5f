import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('wire conventions', () => {
  it('echoes a valid X-Request-Id and replaces an invalid one', async () => {
    const ok = await t.get('/api/v1/auth/me/', { headers: { 'x-request-id': 'client-abc.123' } });
    expect(ok.headers['x-request-id']).toBe('client-abc.123');
    expect(ok.body.request_id).toBe('client-abc.123');
    const bad = await t.get('/api/v1/auth/me/', { headers: { 'x-request-id': 'has spaces and <html>' } });
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('308 from the path without the trailing slash, keeping the query', async () => {
    const res = await t.get('/api/v1/me?x=1');
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe('/api/v1/me/?x=1');
  });

  it('405 method_not_allowed with Allow for a known path', async () => {
    const u = await newUser(t);
    const res = await t.request('PUT', '/api/v1/me/', { token: u.token, body: {} });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('method_not_allowed');
    expect(String(res.headers.allow)).toContain('PATCH');
  });

  it('404 not_found envelope for an unknown path', async () => {
    const res = await t.get('/api/v1/nothing-here/');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', details: null });
  });

  it('400 invalid_json for a body that is not JSON; 415 for a non-JSON content type', async () => {
    const u = await newUser(t);
    const bad = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'application/json' }, payload: '{"first_name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_json');
    const form = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'text/plain' }, payload: 'first_name=x' });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe('unsupported_media_type');
  });

  it('a body of the wrong JSON type is a 422 on the body', async () => {
    const u = await newUser(t);
    const res = await t.request('PATCH', '/api/v1/me/', { token: u.token, headers: { 'content-type': 'application/json' }, payload: '[1,2]' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body']);
  });

  it('413 payload_too_large for a body over the limit', async () => {
    const u = await newUser(t);
    const res = await t.patch('/api/v1/me/', { first_name: 'x'.repeat(2 * 1024 * 1024) }, { token: u.token });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('checks authentication before anything else', async () => {
    const res = await t.request('PATCH', '/api/v1/me/', { headers: { 'content-type': 'application/json' }, payload: 'not json', idempotencyKey: false });
    expect(res.status).toBe(401);
  });

  it('serves the OpenAPI 3.1 document and the docs UI without auth', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    const ui = await t.app.inject({ method: 'GET', url: '/api/v1/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toContain('swagger');
    const initializer = await t.app.inject({ method: 'GET', url: '/api/v1/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
  });

  it('health and readiness answer outside /api/v1', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json().status).toBe('ready');
  });
});
