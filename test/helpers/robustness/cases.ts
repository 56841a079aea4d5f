import { randomBytes } from 'node:crypto';
import type { RequestOptions } from '../build-test-app.js';
import { OTHER_PATH_PARAM_ANSWERS, type RobustnessFixtures } from './fixtures.js';
import { fillPath, type JsonSchema, type Operation } from './operations.js';

/** What a malformed request must get back; a case passes when any one alternative matches. */
export interface Expectation {
  status: number;
  code?: string | string[];
  /** 422 {detail}: some entry's loc starts with this. */
  detailLoc?: (string | number)[];
  wwwAuthenticate?: boolean;
  /** 405: the Allow header lists at least these. */
  allow?: string[];
  location?: string;
  queryParam?: { param: string; value?: string };
}

export interface Case {
  name: string;
  method: string;
  url: string;
  opts: RequestOptions;
  expect: Expectation[];
}

const KB = 1024;
const UNKNOWN = '__robustness_unknown__';
const rand = () => randomBytes(6).toString('hex');
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const base62 = (n: number) => Array.from(randomBytes(n), (b) => BASE62[b % 62]).join('');

const unauthorized: Expectation = { status: 401, code: 'unauthorized', wwwAuthenticate: true };
const notFound: Expectation = { status: 404, code: 'not_found' };
const unprocessable = (loc: (string | number)[]): Expectation => ({ status: 422, detailLoc: loc });
/** Absurd nesting may be refused as a schema failure or as a bad body before it; the contract leaves the code open. */
const tooDeep: Expectation = { status: 400 };

/** JSON values of every type; each property gets those its schema rejects. */
const WRONG_VALUES: unknown[] = [12345, 1.5, 'robustness', true, {}, [], null];
const WRONG_BODIES: unknown[] = [[], [1, 2], 'robustness', 42, true, null];
const INVALID_JSON = ['{"a":', "{'a': 1}", '{"a": 1}}', 'NaN', '{"a": undefined}', '{"a":"\\x"}', 'tru', '\u0000', '{"a":1,}'];
const BAD_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=robustness',
  'application/octet-stream',
  'application/jsonx',
  'garbage',
];
/**
 * Raw (already URL-encoded) path segments that name nothing. Dot segments
 * (`..`, `%2e%2e`) are left out: inject, like any WHATWG client, resolves them
 * before sending, so they would name the parent route; they are tested over a
 * real socket in the submissions errors suite.
 */
const BAD_SEGMENTS = [
  () => `robustness-${rand()}`,
  () => '...',
  () => '%2e%2e%2e',
  () => '%00',
  () => 'a%2Fb',
  () => 'x'.repeat(400),
  () => encodeURIComponent('книга-😀'),
  () => encodeURIComponent("' OR '1'='1"),
  () => '%20',
  () => 'UPPER-Case',
  () => '-',
  () => '%ZZ',
];

const isStringSchema = (s: JsonSchema | undefined): boolean =>
  !!s && (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')) || (s.anyOf ?? s.oneOf ?? []).some(isStringSchema));

function badQueryValues(name: string, s: JsonSchema): string[] {
  const out: string[] = [];
  if (s.type === 'integer' || s.type === 'number') {
    out.push('abc', '1abc');
    if (s.type === 'integer') out.push('1.5');
    if (typeof s.minimum === 'number') out.push(String(s.minimum - 1));
    if (typeof s.maximum === 'number') out.push(String(s.maximum + 1), String(s.maximum * 5));
  }
  if (s.type === 'boolean') out.push('maybe');
  if (s.enum || (s.anyOf ?? []).some((x: JsonSchema) => x.enum || 'const' in x)) out.push('robustness-not-a-member');
  if (typeof s.maxLength === 'number') out.push('x'.repeat(s.maxLength + 1));
  if (name === 'cursor') out.push('garbage', 'eyJvIjoieCIsInYiOltdfQ.AAAAAAAAAAAAAAAAAAAAAA', 'a.b.c');
  if (name === 'updated_since' || s.format === 'date-time') out.push('notadate', '2026-13-45T25:61:00Z');
  return [...new Set(out)];
}

/** A body this operation's schema rejects, so a case that gets past its header check stops at 422. */
export function invalidBody(op: Operation): unknown {
  if (!op.body) return undefined;
  return [{ [UNKNOWN]: true }, [], 'robustness', 0].find((b) => !op.body!.isValid(b));
}

/**
 * Every malformed request for one operation. `caller` is the credential that
 * gets past authentication (a key, or a session for session-only routes).
 */
export function casesFor(op: Operation, fx: RobustnessFixtures, caller: RequestOptions): Case[] {
  const url = fillPath(op.template, fx.params);
  const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(op.method);
  // Without a real value for every path parameter the lookup answers 404 before validation.
  const lookupMayFail = op.pathParams.some((p) => !(p.name in fx.params));
  const reach = (e: Expectation): Expectation[] => (lookupMayFail ? [e, notFound] : [e]);
  const cases: Case[] = [];
  const add = (name: string, opts: RequestOptions, expect: Expectation[], u = url) => cases.push({ name, method: op.method, url: u, opts, expect });
  const json = (payload: string, extra: Record<string, string> = {}): RequestOptions => ({
    ...caller,
    payload,
    headers: { 'content-type': 'application/json', ...extra },
  });

  if (op.needsAuth) {
    const bad: [string, Record<string, string>][] = [
      ['no credentials', {}],
      ['Bearer without a key', { authorization: 'Bearer' }],
      ['Bearer and a space', { authorization: 'Bearer ' }],
      ['Bearer x', { authorization: 'Bearer x' }],
      ['well-formed unknown key', { authorization: `Bearer svc_live_${base62(40)}` }],
      ['revoked key', { authorization: `Bearer ${fx.revokedToken}` }],
      ['two keys', { authorization: `Bearer ${fx.owner.token} ${fx.owner.token}` }],
      ['Basic credentials', { authorization: `Basic ${Buffer.from(`${fx.owner.email}:${fx.owner.password}`).toString('base64')}` }],
      ['10 KB Authorization', { authorization: `Bearer ${'a'.repeat(10 * KB)}` }],
      ['garbage session cookie', { cookie: `mb_session=${rand()}` }],
    ];
    for (const [name, headers] of bad) add(`auth: ${name}`, { headers, body: invalidBody(op) }, [unauthorized]);
  } else if (!unsafe) {
    // A public read may ignore a bad credential or refuse it, but must not fail on it.
    const ok = [...op.statuses].filter((s) => s < 300).map((status): Expectation => ({ status }));
    for (const authorization of ['Bearer', 'Bearer x', `Bearer ${fx.revokedToken}`, `Basic ${rand()}`, `Bearer ${'a'.repeat(10 * KB)}`]) {
      add(`public route, Authorization ${authorization.slice(0, 20)}`, { headers: { authorization } }, reach(unauthorized).concat(ok));
    }
  }

  const pathAnswers = [notFound, ...(OTHER_PATH_PARAM_ANSWERS[op.operationId] ?? []).map((status): Expectation => ({ status }))];
  for (const p of op.pathParams) {
    for (const seg of BAD_SEGMENTS) {
      const raw = seg();
      add(`path ${p.name}=${raw.slice(0, 40)}`, { ...caller }, pathAnswers, fillPath(op.template, fx.params, { name: p.name, raw }));
    }
  }

  for (const p of op.queryParams) {
    for (const value of badQueryValues(p.name, p.schema)) {
      const qs = new URLSearchParams({ [p.name]: value }).toString();
      const e: Expectation = { status: 400, code: 'query_param_invalid', queryParam: { param: p.name, value } };
      add(`query ${p.name}=${value.slice(0, 40)}`, { ...caller, body: invalidBody(op) }, reach(e), `${url}?${qs}`);
    }
    if (badQueryValues(p.name, p.schema).length) {
      add(`query ${p.name} malformed percent-encoding`, { ...caller }, reach({ status: 400, code: 'query_param_invalid', queryParam: { param: p.name } }), `${url}?${p.name}=%ZZ`);
    }
    add(`query ${p.name} repeated`, { ...caller }, reach({ status: 400, code: 'query_param_invalid', queryParam: { param: p.name } }), `${url}?${p.name}=1&${p.name}=2`);
  }

  const keyParam = op.headerParams.find((p) => p.name.toLowerCase() === 'idempotency-key');
  if (unsafe && keyParam) {
    const body = invalidBody(op);
    const required: Expectation = { status: 428, code: 'idempotency_key_required' };
    const tooLong: Expectation = { status: 400, code: 'validation_failed' };
    const over = 'k'.repeat((keyParam.schema.maxLength ?? 200) + 1);
    if (keyParam.required) {
      add('Idempotency-Key missing', { ...caller, body, idempotencyKey: false }, reach(required));
      add('Idempotency-Key empty', { ...caller, body, idempotencyKey: '' }, reach(required));
      add('Idempotency-Key blank', { ...caller, body, idempotencyKey: '   ' }, reach(required));
      add('Idempotency-Key quoted empty', { ...caller, body, idempotencyKey: '""' }, reach(required));
    }
    add(`Idempotency-Key ${over.length} characters`, { ...caller, body, idempotencyKey: over }, reach(tooLong));
    add(`Idempotency-Key quoted, ${over.length} inside`, { ...caller, body, idempotencyKey: `"${over}"` }, reach(tooLong));
    // A quoted key is a valid key: the request goes on and stops at the body.
    if (op.body) add('Idempotency-Key quoted', { ...caller, body, idempotencyKey: `"robustness-${rand()}"` }, reach(unprocessable(['body'])));
  }

  if (unsafe) {
    for (const payload of INVALID_JSON) add(`invalid JSON ${JSON.stringify(payload)}`, json(payload), reach({ status: 400, code: 'invalid_json' }));
    add('invalid JSON as +json', json('{"a":', { 'content-type': 'application/vnd.robustness+json' }), reach({ status: 400, code: 'invalid_json' }));
    // Prototype poisoning is refused at parse time (400) or by the schema (422); never accepted.
    for (const payload of ['{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"polluted": true}}}']) {
      add(`poisoned JSON ${payload}`, json(payload), reach({ status: 400, code: ['invalid_json', 'bad_request'] }).concat(unprocessable(['body'])));
    }
    for (const ct of BAD_CONTENT_TYPES) {
      if (op.body?.contentTypes.some((x) => x.split(';')[0] === ct.split(';')[0])) continue;
      // An upload route takes multipart: a malformed one is its own 400 (test/http/media/media.errors.test.ts).
      if (op.multipart && ct.startsWith('multipart/form-data')) continue;
      add(`Content-Type ${ct}`, { ...caller, payload: 'first_name=x', headers: { 'content-type': ct } }, reach({ status: 415, code: 'unsupported_media_type' }));
    }
    add('no Content-Type with a body', { ...caller, payload: '{"a": 1}' }, reach({ status: 415, code: 'unsupported_media_type' }));
    const big = Object.keys(op.body?.schema.properties ?? {}).find((k) => isStringSchema(op.body!.schema.properties[k])) ?? UNKNOWN;
    add('2 MB body', { ...caller, body: { [big]: 'x'.repeat(2 * KB * KB) } }, reach({ status: 413, code: 'payload_too_large' }));
  }

  if (unsafe && op.body) {
    const props: Record<string, JsonSchema> = op.body.schema.properties ?? {};
    for (const [name, schema] of Object.entries(props)) {
      for (const v of WRONG_VALUES) {
        if (op.body.isValidProperty(name, v)) continue;
        add(`${name}: ${JSON.stringify(v)}`, { ...caller, body: { [name]: v } }, reach(unprocessable(['body', name])));
      }
      const huge = 'x'.repeat(200 * KB);
      if (isStringSchema(schema) && !op.body.isValidProperty(name, huge)) {
        add(`${name}: 200 KB string`, { ...caller, body: { [name]: huge } }, reach(unprocessable(['body', name])));
      }
    }
    for (const b of WRONG_BODIES) {
      if (!op.body.isValid(b)) add(`whole body ${JSON.stringify(b)}`, json(JSON.stringify(b)), reach(unprocessable(['body'])));
    }
    if (!op.body.isValid({ [UNKNOWN]: 1 })) {
      add('unknown field', { ...caller, body: { [UNKNOWN]: 1 } }, reach(unprocessable(['body', UNKNOWN])));
      add('2,000 unknown fields', { ...caller, body: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`${UNKNOWN}${i}`, i])) }, reach(unprocessable(['body'])));
      add('200 KB field name', { ...caller, body: { [`k${'k'.repeat(200 * KB)}`]: 1 } }, reach(unprocessable(['body'])));
      const depth = 20_000;
      add(`object nested ${depth} deep`, json(`{"${UNKNOWN}":${'{"a":'.repeat(depth)}1${'}'.repeat(depth + 1)}`), reach(unprocessable(['body', UNKNOWN])).concat(tooDeep));
    }
    const depth = 100_000;
    const deepArray = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    if (!op.body.isValid([])) add(`array nested ${depth} deep`, json(deepArray), reach(unprocessable(['body'])).concat(tooDeep));
  }

  if (unsafe && !op.body && !op.multipart) {
    // No body is declared, so a body with fields in it is an unknown field (contract: rejected, never dropped).
    add('body on a body-less route', { ...caller, body: { [UNKNOWN]: 1 } }, reach(unprocessable(['body'])));
  }
  if (unsafe && op.multipart) {
    add('JSON on an upload route', { ...caller, body: { [UNKNOWN]: 1 } }, reach({ status: 415, code: 'unsupported_media_type' }));
  }
  return cases;
}

/** 405 for every other method on the path, and 308 from the path without its slash (query kept). */
export function routingCases(template: string, defined: string[], fx: RobustnessFixtures): Case[] {
  const url = fillPath(template, fx.params);
  const cases: Case[] = [];
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    if (defined.includes(method)) continue;
    const allow = [...defined];
    cases.push({ name: `${method} not defined`, method, url, opts: method === 'GET' || method === 'OPTIONS' ? {} : { body: {} }, expect: [{ status: 405, code: 'method_not_allowed', allow }] });
  }
  if (url.endsWith('/')) {
    const query = 'robustness=1&q=a%20b';
    for (const method of defined) {
      const bare = url.slice(0, -1);
      cases.push({ name: `${method} without trailing slash`, method, url: `${bare}?${query}`, opts: {}, expect: [{ status: 308, location: `${url}?${query}` }] });
    }
  }
  return cases;
}
