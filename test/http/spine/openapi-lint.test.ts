/**
 * The served document passes Redocly's recommended rules with no error and
 * no warning, as an integrator's CI would lint it. The one rule switched off
 * is no-path-trailing-slash: the contract puts a slash at the end of every path.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

let t: TestApp;
let source: string;
beforeAll(async () => {
  t = await buildTestApp();
  source = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).body;
});

describe('OpenAPI document: Redocly lint', () => {
  it('passes the recommended rules with zero errors and zero warnings', async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-path-trailing-slash': 'off' } });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const report = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
    expect(report).toEqual([]);
  });

  it('would report a problem (the lint really runs)', async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-path-trailing-slash': 'off' } });
    const broken = JSON.parse(source);
    delete broken.paths['/api/v1/books/'].get.summary;
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => p.ruleId)).toContain('operation-summary');
  });
});
