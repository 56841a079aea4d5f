/**
 * Generated robustness suite: every operation in the served OpenAPI document
 * gets a barrage of malformed requests (bad credentials, bad path and query
 * values, bad Idempotency-Keys, bad bodies, bad content types, odd methods,
 * missing trailing slashes). Each answer must be the documented status and
 * error shape, never a 5xx or a hang, and the barrage must write nothing.
 * Routes added later are covered without touching this file; a new path
 * parameter wants a real value in test/helpers/robustness/fixtures.ts.
 */
import { describe, expect, it } from 'vitest';
import type { RequestOptions } from '../../helpers/build-test-app.js';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { casesFor, routingCases, type Case } from '../../helpers/robustness/cases.js';
import { countStoredResponses, diffSnapshots, snapshotDb } from '../../helpers/robustness/db-snapshot.js';
import { createFixtures, type RobustnessFixtures } from '../../helpers/robustness/fixtures.js';
import { fillPath, listOperations, methodsByPath, type Operation } from '../../helpers/robustness/operations.js';
import { runCase } from '../../helpers/robustness/run-case.js';

// The document is read before the tests are collected, so each operation is its own test.
const t = await buildTestApp();
const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
const operations = listOperations(doc);
const paths = methodsByPath(operations);

/** The credential that gets this operation past authentication: a key, or a session where a key is refused. */
async function callerFor(op: Operation, fx: RobustnessFixtures): Promise<RequestOptions> {
  if (!op.needsAuth) return {};
  const probe = await t.request(op.method, fillPath(op.template, fx.params), { token: fx.owner.token, idempotencyKey: false });
  return probe.body?.code === 'session_required' ? { session: fx.session } : { token: fx.owner.token };
}

/** Runs the cases one after another between two snapshots; every problem is collected, then reported at once. */
async function barrage(cases: Case[]): Promise<string[]> {
  const before = await snapshotDb(t.db);
  const storedBefore = await countStoredResponses(t.db);
  const problems: string[] = [];
  for (const c of cases) {
    // Rate limits run before schema validation; clearing the hits (bookkeeping) keeps validation reachable.
    await t.db.query('DELETE FROM rate_limit_hits');
    const p = await runCase(t, c);
    if (p) problems.push(p);
  }
  problems.push(...diffSnapshots(before, await snapshotDb(t.db)).map((d) => `database written: ${d}`));
  const storedAfter = await countStoredResponses(t.db);
  if (storedAfter !== storedBefore) problems.push(`idempotency: ${storedAfter - storedBefore} response(s) stored for rejected requests`);
  return problems;
}

describe('robustness: the served document', () => {
  it('lists operations to walk', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter((op) => op.needsAuth).length).toBeGreaterThan(0);
  });
});

describe.each(operations.map((op) => [`${op.method} ${op.template} (${op.operationId})`, op] as const))('robustness: %s', (_name, op) => {
  it('answers every malformed request with a documented 4xx and writes nothing', async () => {
    const fx = await createFixtures(t);
    const missing = op.pathParams.filter((p) => !(p.name in fx.params)).map((p) => p.name);
    if (missing.length) console.warn(`robustness: no fixture for {${missing.join('}, {')}} of ${op.operationId}; add one in test/helpers/robustness/fixtures.ts`);
    const cases = casesFor(op, fx, await callerFor(op, fx));
    expect(cases.length).toBeGreaterThan(0);
    const problems = await barrage(cases);
    expect(problems, `${problems.length} of ${cases.length} cases failed:\n  ${problems.join('\n  ')}`).toEqual([]);
  });
});

describe.each([...paths].map(([template, methods]) => [template, methods] as const))('robustness: routing %s', (template, methods) => {
  it('answers other methods 405 with Allow, and the slash-less path 308', async () => {
    const fx = await createFixtures(t);
    const cases = routingCases(template, methods, fx);
    const problems = await barrage(cases);
    expect(problems, `${problems.length} of ${cases.length} cases failed:\n  ${problems.join('\n  ')}`).toEqual([]);
  });
});
