import { afterAll } from 'vitest';

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
