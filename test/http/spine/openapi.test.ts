import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  );

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names every operation (unique camelCase operationId, tag, summary)', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations()) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      expect(op.summary, `${method} ${path}`).toBeTruthy();
    }
  });

  it('documents the error envelope on every operation, and 401 wherever credentials are needed', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      for (const s of ['400', '404', '500']) expect(statuses, `${method} ${path}`).toContain(s);
      const json = op.responses['404'].content['application/json'].schema;
      expect(json.$ref, `${method} ${path}`).toBe('#/components/schemas/ErrorEnvelope');
      const open = Array.isArray(op.security) && op.security.length === 0;
      if (!open) expect(statuses, `${method} ${path}`).toContain('401');
      if (method !== 'get') {
        for (const s of ['413', '415', '422']) expect(statuses, `${method} ${path}`).toContain(s);
      }
    }
  });

  it('declares the bearer and session security schemes, and every path with its trailing slash', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'sessionCookie']);
    expect(doc.components.schemas.ErrorEnvelope.required.sort()).toEqual(['code', 'details', 'message', 'request_id']);
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/api\/v1\/.*\/$/);
  });
});
