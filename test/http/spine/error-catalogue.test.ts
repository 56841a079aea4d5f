/**
 * The error catalogue: every code of the table is in it and in the document,
 * each with an example in the operations that can answer it (derived from
 * the route config, so a route added later gets its examples too), and every
 * example the document gives validates against its schema.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../../src/errors.js';
import { renderErrorCatalogue } from '../../../src/http/error-catalogue.js';
import { unresolvedErrors } from '../../../src/http/openapi.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { strictResponses } from '../../helpers/openapi-validator.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path: p, method, op, where: `${method.toUpperCase()} ${p}` })),
  );
const pointer = (...parts: string[]) => parts.map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const exampleValue = (e: any) => (typeof e?.$ref === 'string' ? doc.components.examples[e.$ref.split('/').pop()].value : e.value);
const envelopeCodes = ERROR_CODES.filter((c) => ERROR_STATUS[c] >= 300);
/** Codes answered only outside the documented operations (signed file links, webhooks, web pages), or not at present. */
const OUTSIDE: ErrorCode[] = ['forbidden', 'invitation_expired', 'invitation_revoked', 'invitation_accepted', 'range_not_satisfiable', 'locked'];

describe('error catalogue', () => {
  it('describes every code of the table: meaning, what to do, a details schema or none, and an example that fits it', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    for (const code of ERROR_CODES) {
      const info = ERROR_CATALOGUE[code];
      expect(info.meaning.length, code).toBeGreaterThan(20);
      expect(info.action.length, code).toBeGreaterThan(5);
      const details = info.example.details ?? null;
      if (info.details) {
        const v = ajv.compile(JSON.parse(JSON.stringify(info.details)));
        expect(v(details) ? [] : v.errors, code).toEqual([]);
      } else expect(details, code).toBeNull();
    }
  });

  it('is in the document: the envelope lists every code, one variant per code with its details schema', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.properties.code.enum).toEqual(envelopeCodes);
    expect(envelope.oneOf.map((v: any) => v.properties.code.enum[0])).toEqual(envelopeCodes);
    expect(doc.components.schemas.PreconditionFailedDetails).toMatchObject({ required: ['current_etag'], properties: { current_etag: { type: 'string' } } });
    for (const code of envelopeCodes) expect(doc.info.description, code).toContain(`| \`${code}\` |`);
  });

  it('gives every code answered by the API an example in at least one operation; the rest are answered outside it', () => {
    const answered = new Set<string>();
    for (const { op } of operations()) {
      for (const r of Object.values<any>(op.responses)) for (const code of Object.keys(r.content?.['application/json']?.examples ?? {})) answered.add(code);
    }
    const missing = envelopeCodes.filter((c) => !answered.has(c));
    expect(missing.sort()).toEqual([...OUTSIDE].sort());
    for (const code of OUTSIDE) expect(ERROR_CATALOGUE[code].where, code).toEqual(['outside']);
  });

  it('puts each code under its own status, lists every code in the status description, and pins every declared status to codes', () => {
    for (const { where, op } of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const examples = Object.keys(r.content['application/json'].examples ?? {});
        expect(examples.length, `${where} ${status}: no example`).toBeGreaterThan(0);
        expect(r.description, `${where} ${status}`).not.toContain('…');
        for (const code of examples) {
          if (code === 'schema_validation') continue;
          const statuses = [ERROR_STATUS[code as ErrorCode], ...(ERROR_CATALOGUE[code as ErrorCode].otherStatuses ?? [])];
          expect(statuses, `${where} ${status} ${code}`).toContain(Number(status));
          expect(r.description, `${where} ${status}`).toContain(code);
        }
      }
    }
    // A route that declares a bare status several codes share must name its codes in config.errors.
    expect(unresolvedErrors(t.app)).toEqual({});
  });

  it('derives codes from the route config, not one example everywhere', () => {
    const codes = (p: string, method: string, status: number) => Object.keys(doc.paths[p][method].responses[status].content['application/json'].examples);
    expect(codes('/api/v1/books/{slug}/', 'patch', 412)).toEqual(['precondition_failed']);
    expect(codes('/api/v1/books/{slug}/', 'patch', 422)).toEqual(['schema_validation', 'idempotency_key_reused']);
    expect(codes('/api/v1/books/{slug}/', 'patch', 403)).toEqual(expect.arrayContaining(['insufficient_role', 'book_grace_period', 'csrf_failed']));
    expect(codes('/api/v1/books/{slug}/submissions/{id}/approve/', 'post', 423)).toEqual(['book_grace_period']);
    expect(codes('/api/v1/books/{slug}/submissions/', 'post', 403)).toContain('feature_gated');
    expect(codes('/api/v1/books/{slug}/exports/{job_id}/artifact/', 'get', 409)).toEqual(['export_not_ready']);
    expect(codes('/api/v1/books/{slug}/exports/{job_id}/artifact/', 'get', 410)).toEqual(['export_failed']);
    expect(codes('/api/v1/books/', 'post', 402)).toEqual(['payment_required']);
    expect(codes('/api/v1/plans/', 'get', 404)).toEqual(['not_found']);
    expect(doc.paths['/api/v1/plans/'].get.responses['401']).toBeUndefined();
    expect(doc.paths['/api/v1/books/'].get.responses['412']).toBeUndefined();
    expect(doc.paths['/api/v1/books/'].get.responses['422']).toBeUndefined();
  });

  it('validates every example in the document against its schema', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(strictResponses(doc), 'openapi.json');
    // One validator per distinct schema: most responses share the envelope's.
    const bySchema = new Map<string, ReturnType<typeof ajv.getSchema>>();
    const check = (schemaPointer: string, value: unknown, where: string) => {
      const schema = schemaPointer.split('/').slice(1).reduce((node: any, k) => node[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      const key = typeof schema?.$ref === 'string' ? schema.$ref : JSON.stringify(schema);
      if (!bySchema.has(key)) bySchema.set(key, ajv.getSchema(`openapi.json${typeof schema?.$ref === 'string' ? schema.$ref : `#${schemaPointer}`}`));
      const v = bySchema.get(key)!;
      expect(v(value) ? [] : v.errors, where).toEqual([]);
    };
    let checked = 0;
    for (const { path: p, method, op, where } of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const media = r.content?.['application/json'];
        if (!media) continue;
        const at = pointer('', 'paths', p, method, 'responses', status, 'content', 'application/json', 'schema');
        if (media.example !== undefined) {
          check(at, media.example, `${where} ${status} example`);
          checked++;
        }
        for (const [name, e] of Object.entries<any>(media.examples ?? {})) {
          check(at, exampleValue(e), `${where} ${status} ${name}`);
          checked++;
        }
      }
      const body = op.requestBody?.content?.['application/json'];
      for (const e of body?.schema?.examples ?? []) {
        check(pointer('', 'paths', p, method, 'requestBody', 'content', 'application/json', 'schema'), e, `${where} body`);
        checked++;
      }
    }
    for (const [name, s] of Object.entries<any>(doc.components.schemas)) {
      for (const e of s.examples ?? []) {
        check(pointer('', 'components', 'schemas', name), e, `schema ${name}`);
        checked++;
      }
    }
    for (const [name, h] of Object.entries<any>({ ...doc.components.headers, ...doc.components.parameters })) {
      if (h.example === undefined) continue;
      const v = ajv.compile(h.schema);
      expect(v(h.example) ? [] : v.errors, name).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });

  it("shows an export's 202 as the pending job it is, and no fixed Idempotency-Key", () => {
    const accepted = doc.paths['/api/v1/books/{slug}/exports/'].post.responses['202'].content['application/json'];
    expect(accepted.example).toMatchObject({ status: 'pending', completed_at: null, size_bytes: null });
    expect(doc.components.parameters['Idempotency-Key'].example).toBeUndefined();
  });

  it('docs/errors.md is generated from the table and up to date', () => {
    const committed = readFileSync(path.join(REPO_ROOT, 'docs/errors.md'), 'utf8');
    expect(committed === renderErrorCatalogue(doc), 'docs/errors.md is stale: run `npm run openapi:export` and commit it').toBe(true);
    for (const code of envelopeCodes) expect(committed, code).toContain(`## \`${code}\``);
  });

  it('answers a real 412 and 405 with the details the catalogue declares', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const res = await t.patch(`/api/v1/books/${slug}/`, { title: 'x' }, { token: owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(res.status).toBe(412);
    expect(typeof res.body.details.current_etag).toBe('string');
    const put = await t.app.inject({ method: 'PUT', url: `/api/v1/books/${slug}/`, headers: { authorization: `Bearer ${owner.token}` } });
    expect(put.statusCode).toBe(405);
    expect(put.json().details.allowed).toEqual(expect.arrayContaining(['GET', 'PATCH', 'DELETE']));
  });
});
