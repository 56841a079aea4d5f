import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { forbidDatabases } from './database-guard.js';
import { isDatabaseIndependent } from './database-independent.js';

// Registered first, so it runs after the file's own afterAll hooks (hooks run
// as a stack): an app built in beforeAll and never closed is closed here
// (build-test-app.ts keeps them in this set), not leaked into the next file.
afterAll(async () => {
  const open = (globalThis as Record<symbol, unknown>)[Symbol.for('memorybook.test.openApps')] as Set<{ close(): Promise<void> }> | undefined;
  for (const app of [...(open ?? [])]) await app.close();
});

// Files share a process (isolate: false): what one file sets in the
// environment must not reach the next one, nor the servers it spawns.
const env = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
});

// A file listed as database-independent (npm test runs it on PGlite only)
// is held to it: any way it opens a database throws, until the file ends.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let allowDatabases: (() => void) | undefined;
// (vitest reads fixtures from the first parameter and wants it destructured; the file is in the second.)
// eslint-disable-next-line no-empty-pattern
beforeAll(async ({}, suite) => {
  const file = path.relative(ROOT, suite.file.filepath).split(path.sep).join('/');
  if (isDatabaseIndependent(file)) allowDatabases = await forbidDatabases(file);
});
afterAll(() => {
  allowDatabases?.();
  allowDatabases = undefined;
});
