/**
 * /api/v1/docs leads with the operations: the page's copy of the document
 * keeps a short introduction and links to the error catalogue, served as a
 * page of its own; the document itself (/api/v1/openapi.json) keeps the table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('the docs page', () => {
  it('shows no catalogue table above the operations, and links to the catalogue page', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/api/v1/docs/json' });
    expect(page.statusCode).toBe(200);
    const description: string = page.json().info.description;
    expect(description).toContain('[the error catalogue](/api/v1/docs/errors/)');
    expect(description).not.toContain('| code | status |');
    expect(description).not.toContain('precondition_failed');
    // The operations are all there.
    expect(Object.keys(page.json().paths)).toContain('/api/v1/books/');

    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(doc.json().info.description).toContain('| `precondition_failed` | 412 |');
  });

  it('serves the catalogue page: every code, without a script', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/docs/errors/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    for (const code of ['precondition_failed', 'original_unavailable', 'not_found', 'rate_limited']) expect(res.body).toContain(`<tr id="${code}">`);
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain('href="/api/v1/docs/"');
  });
});
