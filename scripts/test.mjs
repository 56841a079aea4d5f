#!/usr/bin/env node
// Runs the whole suite on embedded PGlite, then again on PostgreSQL when
// TEST_DATABASE_URL is set, and prints one closing "N passed, N failed" line.
// The PostgreSQL half leaves out the files listed in
// test/helpers/database-independent.ts: they never open a database (the
// test helpers hold them to it), so the PGlite half has run all they test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const extra = process.argv.slice(2);
const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const backends = [{ name: 'pglite', env: { TEST_DATABASE_URL: '' } }];
if (process.env.TEST_DATABASE_URL) {
  backends.push({
    name: 'postgres',
    env: { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL, TEST_SKIP_DATABASE_INDEPENDENT: '1' },
    // Files named on the command line may all be database-independent: nothing left to run here is no failure.
    args: extra.length ? ['--passWithNoTests'] : [],
    note: ' (database-independent files ran on pglite only)',
  });
}

const totals = { passed: 0, failed: 0, skipped: 0 };
let exitCode = 0;
for (const b of backends) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'memorybook-vitest-')), 'report.json');
  console.log(`\n=== test suite on ${b.name} ===`);
  const started = Date.now();
  const run = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...(b.args ?? []), ...extra], {
    stdio: 'inherit',
    env: { ...process.env, ...b.env },
  });
  if (run.status !== 0) exitCode = run.status ?? 1;
  try {
    const r = JSON.parse(readFileSync(out, 'utf8'));
    totals.passed += r.numPassedTests;
    totals.failed += r.numFailedTests;
    totals.skipped += r.numPendingTests + (r.numTodoTests ?? 0);
    console.log(`${b.name}: ${r.numPassedTests} passed, ${r.numFailedTests} failed in ${Math.round((Date.now() - started) / 1000)} s${b.note ?? ''}`);
  } catch {
    console.log(`${b.name}: no report (vitest exited ${run.status})`);
    exitCode ||= 1;
  }
}
console.log(`\ntotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(exitCode);
